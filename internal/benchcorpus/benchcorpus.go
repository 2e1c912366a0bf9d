// Package benchcorpus generates the synthetic knowledge bases the benchmarks
// measure: n frontmatter entries with three patterns each, the query paths,
// and (for whole-process comparisons) a git repository holding them with a
// .gitattributes of the same globs, so `git check-attr -a` matches the same
// patterns kontext does.
package benchcorpus

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Governing is the governing workload: n entries with three patterns each
// (a literal-prefix dir, an exact file, a negation; every 20th adds a
// suffix pattern) over 2,000 modules, and 1,000 query paths.
func Governing(n int) (map[string]string, []string) {
	kinds := []string{"decisions", "conventions", "learnings", "incidents", "architecture"}
	files := map[string]string{}
	for i := 0; i < n; i++ {
		k := kinds[i%len(kinds)]
		status := "active"
		if k == "decisions" {
			status = "accepted"
		}
		files[fmt.Sprintf(".ai/%s/g-%05d.md", k, i)] = fmt.Sprintf("---\nstatus: %s\ndate: 2026-01-%02d\nsummary: Synthetic entry %d of module %d\npaths: [%s]\ntags: [m%d]\n---\n# Entry %d of module %d\n\nModule %d keeps its invariants.\n",
			status, i%28+1, i, i%2000, quoted(Patterns(i)), i%2000, i, i%2000, i%2000)
	}
	paths := make([]string, 0, 1000)
	for i := 0; i < 1000; i++ {
		m := (i * 7) % 2000
		switch i % 5 {
		case 0, 1:
			paths = append(paths, fmt.Sprintf("src/m%d/s%d/h%d.go", m, i%5, i))
		case 2:
			paths = append(paths, fmt.Sprintf("src/m%d/s%d/testdata/g%d.json", m, i%5, i))
		case 3:
			paths = append(paths, fmt.Sprintf("src/m%d/f%d.go", m, m+2000*(i%5)))
		default:
			paths = append(paths, fmt.Sprintf("docs/p%d.x%d", i, i%7))
		}
	}
	return files, paths
}

// Patterns are the globs of entry i.
func Patterns(i int) []string {
	m, s := i%2000, i%5
	p := []string{fmt.Sprintf("src/m%d/s%d/**", m, s), fmt.Sprintf("src/m%d/f%d.go", m, i), fmt.Sprintf("!src/m%d/s%d/testdata/**", m, s)}
	if i%20 == 0 {
		p = append(p, fmt.Sprintf("**/*.x%d", i%7))
	}
	return p
}

func quoted(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = `"` + p + `"`
	}
	return strings.Join(q, ", ")
}

// Attributes is a .gitattributes with the globs of n entries: each entry is
// an attribute set by its patterns and unset by its negations (gitattributes
// has no negative patterns), so `git check-attr -a` evaluates the same globs.
func Attributes(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		for _, p := range Patterns(i) {
			if strings.HasPrefix(p, "!") {
				fmt.Fprintf(&b, "/%s -k%d\n", p[1:], i)
			} else if strings.HasPrefix(p, "**/") {
				fmt.Fprintf(&b, "%s k%d\n", p, i)
			} else {
				fmt.Fprintf(&b, "/%s k%d\n", p, i)
			}
		}
	}
	return b.String()
}

// Repo writes a git repository at dir holding the n-entry corpus and its
// .gitattributes, committed once, and returns one query path that a few
// entries govern.
func Repo(dir string, n int) (string, error) {
	files, paths := Governing(n)
	files[".gitattributes"] = Attributes(n)
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(files[f]), 0o644); err != nil {
			return "", err
		}
	}
	// Committing 10,000 files starts git's automatic gc: in the
	// foreground, so nothing packs the repository while it is measured
	// (or removed).
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "gc.autoDetach=false", "commit", "-q", "-m", "corpus"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return paths[0], nil
}
