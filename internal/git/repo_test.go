package git

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/kontext/kontext/internal/testrepo"
)

// repo is a scratch repository driven by the git binary.
type repo struct {
	tb    testing.TB
	dir   string
	clock int
}

func newRepo(tb testing.TB) *repo {
	tb.Helper()
	testrepo.Env(tb)
	r := &repo{tb: tb, dir: tb.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.tb.Helper()
	return strings.TrimSpace(string(r.gitRaw(nil, args...)))
}

// gitRaw runs git and returns its untrimmed stdout.
func (r *repo) gitRaw(stdin []byte, args ...string) []byte {
	r.tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	date := fmt.Sprintf("@%d +0000", 1767225600+60*r.clock)
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
	return out
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

func (r *repo) gitDir() string { return filepath.Join(r.dir, ".git") }

// storage is go-git's filesystem storage, the fallback the CLI uses.
func storage(tb testing.TB, gitDir string) *filesystem.Storage {
	tb.Helper()
	st := filesystem.NewStorageWithOptions(osfs.New(gitDir, osfs.WithBoundOS()),
		cache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
	tb.Cleanup(func() { st.Close() })
	return st
}

func (r *repo) objects(withFallback bool) *Objects {
	r.tb.Helper()
	var o *Objects
	if withFallback {
		o = OpenObjects(r.gitDir(), storage(r.tb, r.gitDir()))
	} else {
		o = OpenObjects(r.gitDir(), nil)
	}
	r.tb.Cleanup(o.Close)
	return o
}

type catObject struct {
	typ  plumbing.ObjectType
	data []byte
}

// allObjects is git's own reading of every object (cat-file --batch).
func (r *repo) allObjects() map[plumbing.Hash]catObject {
	r.tb.Helper()
	out := r.gitRaw(nil, "cat-file", "--batch-all-objects", "--batch")
	br := bufio.NewReader(bytes.NewReader(out))
	res := map[plumbing.Hash]catObject{}
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			return res
		}
		if err != nil {
			r.tb.Fatal(err)
		}
		f := strings.Fields(line) // <id> <type> <size>
		if len(f) != 3 {
			r.tb.Fatalf("cat-file: %q", line)
		}
		typ, err := plumbing.ParseObjectType(f[1])
		if err != nil {
			r.tb.Fatal(err)
		}
		n, _ := strconv.Atoi(f[2])
		data := make([]byte, n+1) // the content and a "\n"
		if _, err := io.ReadFull(br, data); err != nil {
			r.tb.Fatal(err)
		}
		res[plumbing.NewHash(f[0])] = catObject{typ, data[:n]}
	}
}

// buildFixture makes a history with the cases a differ must get right:
// nested directories, deletes, a rename, a file replaced by a directory
// and back, a mode change, a symlink, a submodule gitlink, a merge, an
// empty commit and non-ASCII and quoted names. It returns the commits in
// order.
func buildFixture(r *repo) []string {
	var cs []string
	r.write("a.txt", "a\n")
	r.write("dir/b.txt", "b\n")
	r.write("dir/sub/c.txt", "c\n")
	r.write("dir/sub/deeper/d.txt", "d\n")
	r.write("dir/sub/deeper/e.txt", "e\n")
	r.write("x", "x is a file\n")
	r.write("dir-z/e.txt", "e\n") // sorts between "dir" and "dir/" in git order
	r.write("dir.txt", "sorts between dir and dir/\n")
	cs = append(cs, r.commit("initial"))

	r.git("checkout", "-q", "-b", "feature")
	r.write("dir/sub/deeper/d.txt", "d2\n")
	r.write("feature/f1.txt", "f1\n")
	cs = append(cs, r.commit("feature: nested change and f1"))
	r.git("mv", "dir/b.txt", "dir/b2.txt")
	cs = append(cs, r.commit("feature: rename b"))

	r.git("checkout", "-q", "main")
	r.write("a.txt", "a2\n")
	cs = append(cs, r.commit("main: a2"))
	r.git("rm", "-q", "x")
	r.write("x/y.txt", "x is a dir\n")
	cs = append(cs, r.commit("main: x becomes a directory"))
	r.clock++
	r.git("merge", "-q", "--no-ff", "-m", "merge feature", "feature")
	cs = append(cs, r.git("rev-parse", "HEAD"))

	r.write("z/deep/nested/file.txt", "n\n")
	r.write("ü/ñ é.txt", "unicode\n")
	r.write("tab\there.txt", "quoted by git\n")
	cs = append(cs, r.commit("nested, unicode and quoted names"))
	if err := os.Chmod(filepath.Join(r.dir, "a.txt"), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	cs = append(cs, r.commit("a.txt executable"))
	if err := os.Symlink("a.txt", filepath.Join(r.dir, "link")); err != nil {
		r.tb.Fatal(err)
	}
	cs = append(cs, r.commit("symlink"))
	r.git("rm", "-q", "link")
	r.write("link", "the symlink became a file\n")
	cs = append(cs, r.commit("symlink becomes a file"))
	r.git("update-index", "--add", "--cacheinfo", "160000,"+cs[0]+",mod")
	r.clock++
	r.git("commit", "-q", "-m", "add a submodule gitlink")
	cs = append(cs, r.git("rev-parse", "HEAD"))
	r.git("update-index", "--cacheinfo", "160000,"+cs[1]+",mod")
	r.clock++
	r.git("commit", "-q", "-m", "bump the submodule")
	cs = append(cs, r.git("rev-parse", "HEAD"))
	cs = append(cs, r.commit("empty commit"))
	r.git("rm", "-rq", "x")
	r.write("x", "x is a file again\n")
	r.git("rm", "-rq", "dir/sub")
	r.write("dir/sub", "sub is a file now\n")
	cs = append(cs, r.commit("directories become files"))
	r.git("rm", "-rq", "dir-z", "z")
	cs = append(cs, r.commit("delete whole trees"))
	return cs
}
