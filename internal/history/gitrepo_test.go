package history

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/kontext/kontext/internal/testrepo"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// gitEnv isolates git from the machine (see testrepo.Env).
func gitEnv(tb testing.TB) {
	tb.Helper()
	testrepo.Env(tb)
}

// repo is a scratch repository driven by the git binary.
type repo struct {
	tb    testing.TB
	dir   string
	clock int // commit dates advance one minute per commit
}

func newRepo(tb testing.TB) *repo {
	tb.Helper()
	gitEnv(tb)
	r := &repo{tb: tb, dir: tb.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.tb.Helper()
	return r.gitIn(nil, args...)
}

func (r *repo) gitIn(stdin []byte, args ...string) string {
	r.tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	date := "2026-01-01T00:00:00Z"
	if r.clock > 0 {
		date = fmt.Sprintf("@%d +0000", 1767225600+60*r.clock)
	}
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(path, content string) {
	r.tb.Helper()
	testrepo.Write(r.tb, r.dir, map[string]string{path: content})
}

// commit stages everything and commits with a fresh date; returns the sha.
func (r *repo) commit(msg string) string {
	r.tb.Helper()
	r.clock++
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// merge merges branches into the current branch with a merge commit.
func (r *repo) merge(msg string, branches ...string) string {
	r.tb.Helper()
	r.clock++
	// Octopus merges refuse a stat-dirty index (checkouts just rewrote files).
	r.git("update-index", "-q", "--refresh")
	r.git(append([]string{"merge", "-q", "--no-ff", "-m", msg}, branches...)...)
	return r.git("rev-parse", "HEAD")
}

func (r *repo) gitDir() string { return filepath.Join(r.dir, ".git") }

// storage opens the object storage the way the CLI does, with descriptors
// kept open.
func openStorage(tb testing.TB, gitDir string) *filesystem.Storage {
	tb.Helper()
	st := filesystem.NewStorageWithOptions(osfs.New(gitDir, osfs.WithBoundOS()),
		cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	tb.Cleanup(func() { st.Close() })
	return st
}

// oracle returns git's own answer: every non-merge commit's changed paths
// against its first parent.
func (r *repo) oracle() map[string][]string {
	r.tb.Helper()
	out := r.git("-c", "core.quotePath=false", "log", "--no-merges", "--no-renames", "--name-only", "--format=%H")
	res := map[string][]string{}
	cur := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
		case len(line) == 40 && isHex(line):
			cur = line
			res[cur] = []string{}
		default:
			res[cur] = append(res[cur], line)
		}
	}
	for _, ps := range res {
		sort.Strings(ps)
	}
	return res
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// buildFixture makes a history with the cases the diff must get right:
// several branches merged (one octopus), nested directories, deletes, a
// rename, a file replaced by a directory and back, a mode change, a
// symlink, a submodule gitlink, an empty commit and non-ASCII names.
func buildFixture(r *repo) {
	r.write("a.txt", "a\n")
	r.write("dir/b.txt", "b\n")
	r.write("dir/sub/c.txt", "c\n")
	r.write("dir/sub/deeper/d.txt", "d\n")
	r.write("x", "x is a file\n")
	r.write("dir-z/e.txt", "e\n") // sorts between "dir" and "dir/" in git order
	base := r.commit("initial")

	r.git("checkout", "-q", "-b", "feature")
	r.write("dir/sub/c.txt", "c2\n")
	r.write("feature/f1.txt", "f1\n")
	r.commit("feature: c and f1")
	r.git("mv", "dir/b.txt", "dir/b2.txt")
	r.commit("feature: rename b")

	r.git("checkout", "-q", "main")
	r.write("a.txt", "a2\n")
	r.commit("main: a2")
	r.git("rm", "-q", "x")
	r.write("x/y.txt", "x is a dir\n")
	r.commit("main: x becomes a directory")
	merged := r.merge("merge feature", "feature")

	// An octopus of two branches forked from the merge (octopus refuses
	// file/directory changes against an older base).
	r.git("checkout", "-q", "-b", "two", merged)
	r.write("z/deep/nested/file.txt", "n\n")
	r.write("ü/ñ é.txt", "unicode\n")
	r.commit("two: nested and unicode")
	r.git("checkout", "-q", "-b", "three", merged)
	r.write("three.txt", "3\n")
	r.commit("three")
	r.git("checkout", "-q", "main")
	r.merge("octopus", "two", "three")

	if err := os.Chmod(filepath.Join(r.dir, "a.txt"), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	r.commit("a.txt executable")
	if err := os.Symlink("a.txt", filepath.Join(r.dir, "link")); err != nil {
		r.tb.Fatal(err)
	}
	r.commit("symlink")
	r.git("update-index", "--add", "--cacheinfo", "160000,"+base+",mod")
	r.clock++
	r.git("commit", "-q", "-m", "add a submodule gitlink")
	head := r.git("rev-parse", "HEAD")
	r.git("update-index", "--cacheinfo", "160000,"+head+",mod")
	r.clock++
	r.git("commit", "-q", "-m", "bump the submodule")
	r.commit("empty commit")
	r.git("rm", "-rq", "x")
	r.write("x", "x is a file again\n")
	r.git("rm", "-rq", "dir/sub")
	r.write("dir/sub", "sub is a file now\n")
	r.commit("directories become files")
	r.git("rm", "-q", "dir-z/e.txt")
	r.commit("delete e")
}
