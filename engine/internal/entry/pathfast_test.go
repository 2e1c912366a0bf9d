package entry

import (
	"path"
	"strings"
	"testing"
)

// The listing's helpers answer exactly as the library calls they stand in
// for, clean paths or not.
func TestPathHelpersAreTheLibrary(t *testing.T) {
	inputs := []string{
		"", ".", "..", "/", "a", "a.md", "A.MD", "a/b.md", ".ai/decisions/0001-Use-X.md", "a//b.md", "a/./b.md",
		"a/../b.md", "./a.md", "../a.md", "/a/b.md", "a/b/", "a\\b\\C.md", "Templates/x.md", "dir/ÄÖ.md", "İstanbul.md",
		"a/b/c/d.md", "x/..", "x/.", "K.md", // the Kelvin sign lowers to k
	}
	for _, in := range inputs {
		if got, want := dirOf(in), path.Dir(in); got != want {
			t.Errorf("dirOf(%q) = %q, path.Dir %q", in, got, want)
		}
		if got, want := lowerASCII(in), strings.ToLower(in); got != want {
			t.Errorf("lowerASCII(%q) = %q, strings.ToLower %q", in, got, want)
		}
		if got, want := lowerBase(in), strings.ToLower(path.Base(strings.ReplaceAll(in, "\\", "/"))); got != want {
			t.Errorf("lowerBase(%q) = %q, want %q", in, got, want)
		}
	}
}
