package entry

import (
	"regexp"
	"sync"
)

// lazyRegexp returns a function that compiles pattern on its first call:
// regexps compiled at init are a cold start's cost for every process,
// most of which never parse.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
