// Package gittest drives real temporary git repositories with the git
// binary for the tests of the git layer and of the packages built on it
// (internal/history): commits with a controlled clock, go-git's storage as
// the CLI opens it, and git's own reading of every object as an oracle.
// Only tests import it.
package gittest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/kontext/kontext/internal/testrepo"
)

// Repo is a scratch repository. Commit and Merge advance Clock by one:
// every commit made through them gets its own date, one minute apart.
type Repo struct {
	TB    testing.TB
	Dir   string
	Clock int
}

// New makes an empty repository (branch main) in a temporary directory,
// with git made hermetic (testrepo.Env).
func New(tb testing.TB) *Repo {
	tb.Helper()
	testrepo.Env(tb)
	r := &Repo{TB: tb, Dir: tb.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Git runs git in the repository and returns its trimmed output; a
// failure ends the test.
func (r *Repo) Git(args ...string) string {
	r.TB.Helper()
	return strings.TrimSpace(string(r.Run(nil, args...)))
}

// Run runs git with stdin (nil: none) and returns its stdout untrimmed.
// Author and committer dates are the Clock's.
func (r *Repo) Run(stdin []byte, args ...string) []byte {
	r.TB.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	date := fmt.Sprintf("@%d +0000", 1767225600+60*r.Clock)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.TB.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// Write writes a file (repository-relative path).
func (r *Repo) Write(path, content string) {
	r.TB.Helper()
	testrepo.Write(r.TB, r.Dir, map[string]string{path: content})
}

// Commit stages everything and commits; it returns the sha.
func (r *Repo) Commit(msg string) string {
	r.TB.Helper()
	r.Clock++
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Merge merges branches into the current branch with a merge commit; it
// returns the sha.
func (r *Repo) Merge(msg string, branches ...string) string {
	r.TB.Helper()
	r.Clock++
	// Octopus merges refuse a stat-dirty index (checkouts just rewrote files).
	r.Git("update-index", "-q", "--refresh")
	r.Git(append([]string{"merge", "-q", "--no-ff", "-m", msg}, branches...)...)
	return r.Git("rev-parse", "HEAD")
}

// GitDir is the repository's .git directory.
func (r *Repo) GitDir() string { return filepath.Join(r.Dir, ".git") }

// Storage opens gitDir's object storage the way the CLI does (descriptors
// kept open); it is closed when the test ends.
func Storage(tb testing.TB, gitDir string) *filesystem.Storage {
	tb.Helper()
	st := filesystem.NewStorageWithOptions(osfs.New(gitDir, osfs.WithBoundOS()),
		cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	tb.Cleanup(func() { st.Close() })
	return st
}

// Object is one object as git reads it.
type Object struct {
	Type plumbing.ObjectType
	Data []byte
}

// AllObjects is git's own reading of every object in the repository
// (cat-file --batch-all-objects --batch).
func (r *Repo) AllObjects() map[plumbing.Hash]Object {
	r.TB.Helper()
	br := bufio.NewReader(bytes.NewReader(r.Run(nil, "cat-file", "--batch-all-objects", "--batch")))
	res := map[plumbing.Hash]Object{}
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			return res
		}
		if err != nil {
			r.TB.Fatal(err)
		}
		f := strings.Fields(line) // <id> <type> <size>
		if len(f) != 3 {
			r.TB.Fatalf("cat-file: %q", line)
		}
		typ, err := plumbing.ParseObjectType(f[1])
		if err != nil {
			r.TB.Fatal(err)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			r.TB.Fatal(err)
		}
		data := make([]byte, n+1) // the content and a "\n"
		if _, err := io.ReadFull(br, data); err != nil {
			r.TB.Fatal(err)
		}
		res[plumbing.NewHash(f[0])] = Object{typ, data[:n]}
	}
}

// Fixture makes a history with the cases the diff must get right:
// several branches merged (one octopus), nested directories, deletes, a
// rename, a file replaced by a directory and back, a mode change, a
// symlink, a submodule gitlink, an empty commit and non-ASCII names. It
// returns the commits in the order they were made.
func Fixture(r *Repo) []string {
	var cs []string
	note := func(sha string) string { cs = append(cs, sha); return sha }
	r.Write("a.txt", "a\n")
	r.Write("dir/b.txt", "b\n")
	r.Write("dir/sub/c.txt", "c\n")
	r.Write("dir/sub/deeper/d.txt", "d\n")
	r.Write("x", "x is a file\n")
	r.Write("dir-z/e.txt", "e\n") // sorts between "dir" and "dir/" in git order
	base := note(r.Commit("initial"))

	r.Git("checkout", "-q", "-b", "feature")
	r.Write("dir/sub/c.txt", "c2\n")
	r.Write("feature/f1.txt", "f1\n")
	note(r.Commit("feature: c and f1"))
	r.Git("mv", "dir/b.txt", "dir/b2.txt")
	note(r.Commit("feature: rename b"))

	r.Git("checkout", "-q", "main")
	r.Write("a.txt", "a2\n")
	note(r.Commit("main: a2"))
	r.Git("rm", "-q", "x")
	r.Write("x/y.txt", "x is a dir\n")
	note(r.Commit("main: x becomes a directory"))
	merged := note(r.Merge("merge feature", "feature"))

	// An octopus of two branches forked from the merge (octopus refuses
	// file/directory changes against an older base).
	r.Git("checkout", "-q", "-b", "two", merged)
	r.Write("z/deep/nested/file.txt", "n\n")
	r.Write("ü/ñ é.txt", "unicode\n")
	note(r.Commit("two: nested and unicode"))
	r.Git("checkout", "-q", "-b", "three", merged)
	r.Write("three.txt", "3\n")
	note(r.Commit("three"))
	r.Git("checkout", "-q", "main")
	note(r.Merge("octopus", "two", "three"))

	if err := os.Chmod(filepath.Join(r.Dir, "a.txt"), 0o755); err != nil {
		r.TB.Fatal(err)
	}
	note(r.Commit("a.txt executable"))
	if err := os.Symlink("a.txt", filepath.Join(r.Dir, "link")); err != nil {
		r.TB.Fatal(err)
	}
	note(r.Commit("symlink"))
	r.Git("update-index", "--add", "--cacheinfo", "160000,"+base+",mod")
	r.Clock++
	r.Git("commit", "-q", "-m", "add a submodule gitlink")
	head := note(r.Git("rev-parse", "HEAD"))
	r.Git("update-index", "--cacheinfo", "160000,"+head+",mod")
	r.Clock++
	r.Git("commit", "-q", "-m", "bump the submodule")
	note(r.Git("rev-parse", "HEAD"))
	note(r.Commit("empty commit"))
	r.Git("rm", "-rq", "x")
	r.Write("x", "x is a file again\n")
	r.Git("rm", "-rq", "dir/sub")
	r.Write("dir/sub", "sub is a file now\n")
	note(r.Commit("directories become files"))
	r.Git("rm", "-q", "dir-z/e.txt")
	note(r.Commit("delete e"))
	return cs
}

// Generate makes a repository of exactly commits commits with git
// fast-import (10,000 `git commit` calls would take minutes): ~1,000 files
// in nested directories, 1–4 files changed per commit, an occasional add
// and delete, and every ~50 commits a 5-commit side branch merged back
// with a merge commit. The result is repacked like a gc'ed repository.
func Generate(tb testing.TB, commits int) *Repo {
	tb.Helper()
	r := New(tb)
	rng := rand.New(rand.NewPCG(1, uint64(commits)))
	var s bytes.Buffer
	mark, made, ts := 0, 0, int64(1767225600)
	version := 0
	contents := map[string]string{} // path → latest content
	var mainTip int
	emit := func(path string) {
		c := contents[path]
		fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", path, len(c), c)
	}
	blob := func(path string) {
		version++
		contents[path] = fmt.Sprintf("%s version %d\n", path, version)
		emit(path)
	}
	commit := func(ref string, from int, merge int, msg string, body func()) int {
		mark++
		made++
		ts += 60
		fmt.Fprintf(&s, "commit %s\nmark :%d\ncommitter Ada <ada@example.com> %d +0000\ndata %d\n%s\n", ref, mark, ts, len(msg), msg)
		if from > 0 {
			fmt.Fprintf(&s, "from :%d\n", from)
		}
		if merge > 0 {
			fmt.Fprintf(&s, "merge :%d\n", merge)
		}
		body()
		s.WriteByte('\n')
		return mark
	}
	path := func(top, mid, f int) string { return fmt.Sprintf("src/d%d/m%d/f%d.go", top, mid, f) }
	mainTip = commit("refs/heads/main", 0, 0, "initial", func() {
		for a := 0; a < 10; a++ {
			for b := 0; b < 10; b++ {
				for c := 0; c < 10; c++ {
					blob(path(a, b, c))
				}
			}
		}
	})
	var added []string
	for made < commits {
		if made%50 == 49 && commits-made >= 7 {
			// A side branch touching src/d9 only (main never does), merged
			// back with the side's files in the merge tree.
			side, changed := mainTip, map[string]bool{}
			for i := 0; i < 5; i++ {
				side = commit("refs/heads/side", side, 0, fmt.Sprintf("side %d", made), func() {
					p := path(9, rng.IntN(10), rng.IntN(10))
					changed[p] = true
					blob(p)
				})
			}
			mainTip = commit("refs/heads/main", mainTip, side, fmt.Sprintf("merge side at %d", made), func() {
				for _, p := range slices.Sorted(maps.Keys(changed)) {
					emit(p) // the side's content: main never touches src/d9
				}
			})
			continue
		}
		mainTip = commit("refs/heads/main", mainTip, 0, fmt.Sprintf("change %d", made), func() {
			for i := rng.IntN(4); i >= 0; i-- {
				blob(path(rng.IntN(9), rng.IntN(10), rng.IntN(10)))
			}
			switch {
			case made%17 == 0:
				p := fmt.Sprintf("src/d%d/new%d/g%d.go", rng.IntN(9), made%13, made)
				added = append(added, p)
				blob(p)
			case made%23 == 0 && len(added) > 0:
				fmt.Fprintf(&s, "D %s\n", added[0])
				added = added[1:]
			}
		})
	}
	r.Run(s.Bytes(), "fast-import", "--quiet")
	r.Git("repack", "-a", "-d", "-q")
	r.Git("reset", "-q", "--hard", "main")
	return r
}
