package repopath

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"src/a.go":       "src/a.go",
		"./src/a.go":     "src/a.go",
		"/src/a.go":      "src/a.go",
		"//src//a.go":    "src/a.go",
		"src/./a.go":     "src/a.go",
		"src/billing/":   "src/billing/",
		"src//billing//": "src/billing/",
		"./src/./":       "src/",
		"./././x":        "x",
		"a..b/c":         "a..b/c",
		"...":            "...",
	} {
		got, err := Normalize(in)
		if err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"..", "../x", "src/../x", "/..", "a/b/..", "", "/", "./", ".", "a/\xff", "src/a\x00b.go", "\x00", "src/\x00/"} {
		if got, err := Normalize(in); err == nil {
			t.Errorf("Normalize(%q) = %q, want error", in, got)
		}
	}
}

// TestCleanIsPathClean: alreadyClean(p) holds exactly when path.Clean leaves a
// relative p unchanged (Clean skips path.Clean on it), except for ".",
// ".." and paths starting "../", and never for an absolute p (Clean
// cleans all of those), on random paths over "a", "b", "/", "." and "..".
func TestCleanIsPathClean(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "b", "/", ".", ".."}
	for i := 0; i < 50000; i++ {
		p := ""
		for n := r.IntN(9); n > 0; n-- {
			p += alphabet[r.IntN(len(alphabet))]
		}
		want := p != "" && p[0] != '/' && path.Clean(p) == p && p != "." && p != ".." && !strings.HasPrefix(p, "../")
		if got := alreadyClean(p); got != want {
			t.Fatalf("alreadyClean(%q) = %v, want %v (path.Clean: %q)", p, got, want, path.Clean(p))
		}
	}
}

// TestRel: relative and "./"-prefixed spellings give one path; absolute
// paths resolve only under a disk root; climbing and outside paths are
// refused with the messages the API has always given.
func TestRel(t *testing.T) {
	root := Root{Dir: "/home/u/repo", Aliases: []string{"/data/repo"}}
	for in, want := range map[string]string{
		"src/a.go": "src/a.go", "./src/a.go": "src/a.go", `src\a.go`: "src/a.go", ".//src/./a.go": "src/a.go",
		"src/../lib/b.go": "lib/b.go", "src/": "src/", "./src/": "src/",
		"/home/u/repo/src/a.go": "src/a.go", "/data/repo/src/a.go": "src/a.go", "/home/u/repo/web/": "web/",
	} {
		if got, err := Rel(in, root); err != nil || got != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, c := range []struct {
		in   string
		root Root
		msg  string
	}{
		{"../x", root, `path "../x" escapes the repository (root /home/u/repo): it climbs out with ".."; pass a path inside it`},
		{"src/../../x", Root{}, `path "src/../../x" escapes the repository (the snapshot's root): it climbs out with ".."; pass a path inside it`},
		{"/etc/passwd", root, `path "/etc/passwd" is outside the repository (root /home/u/repo)`},
		{"/home/u/repo", root, `path "/home/u/repo" is the repository root (root /home/u/repo), not a file in it`},
		{"/src/a.go", Root{}, `path "/src/a.go" is absolute and this engine has no disk root; pass a path relative to the repository root`},
		{"./", root, `path "." names no file in the repository`},
	} {
		_, err := Rel(c.in, c.root)
		if _, ok := err.(*Error); !ok || err.Error() != c.msg {
			t.Errorf("Rel(%q): %v, want %q", c.in, err, c.msg)
		}
	}
}
