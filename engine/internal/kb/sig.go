package kb

import (
	"sort"
	"strconv"

	"github.com/kontext/kontext/engine/internal/entry"
)

// The strings a read hashes to notice a change in its skipped files,
// broken links and aliases, written out by hand: byte for byte what
// fmt's %v prints for them (stored snapshots keep their keys), without
// fmt, whose first use costs a WebAssembly engine's first answer its
// start-up compilation.

// skippedSig is fmt.Sprint(s).
func skippedSig(s []Skipped) string {
	b := []byte{'['}
	for i, x := range s {
		b = cat(b, sep(i), "{", x.File, " ", x.Reason, "}")
	}
	return string(append(b, ']'))
}

// diagListsSig is fmt.Sprint(ds).
func diagListsSig(ds [][]entry.Diagnostic) string {
	b := []byte{'['}
	for i, list := range ds {
		b = cat(b, sep(i), "[")
		for j, d := range list {
			b = cat(b, sep(j), "{", d.File, " ", strconv.Itoa(d.Line), " ", d.Severity, " ", d.Code, " ", d.Message, "}")
		}
		b = append(b, ']')
	}
	return string(append(b, ']'))
}

// aliasesSig is fmt.Sprint(m): its keys sorted.
func aliasesSig(m map[string][]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := []byte("map[")
	for i, k := range keys {
		b = cat(b, sep(i), k, ":[")
		for j, v := range m[k] {
			b = cat(b, sep(j), v)
		}
		b = append(b, ']')
	}
	return string(append(b, ']'))
}

// sep is the space %v puts before every element but the first.
func sep(i int) string {
	if i == 0 {
		return ""
	}
	return " "
}

// cat appends parts to b. Not inlined: in WebAssembly every inlined
// append is a copy of growslice's call, several times the code.
//
//go:noinline
func cat(b []byte, parts ...string) []byte {
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}
