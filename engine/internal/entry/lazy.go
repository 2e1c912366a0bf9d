package entry

import (
	"regexp"
	"sync"
)

// lazyRegexp returns a function that compiles pattern on its first call
// (regexps compiled at init are a cold start's cost for every process,
// most of which never parse). One type for every pattern: a
// sync.OnceValue per pattern generated about 1.3 KB of code each in the
// WASM engine, which is at its size budget.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	l := &lazyRE{pattern: pattern}
	return l.get
}

type lazyRE struct {
	once    sync.Once
	pattern string
	re      *regexp.Regexp
}

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(l.compile)
	return l.re
}

func (l *lazyRE) compile() { l.re = regexp.MustCompile(l.pattern) }
