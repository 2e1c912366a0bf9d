package gitrepo

import (
	"context"
	"crypto/sha1"
	"fmt"
	"github.com/kontext/kontext/internal/testrepo"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/apierr"
)

// gitEnv isolates git from the machine (see testrepo.Env).
func gitEnv(t *testing.T) {
	t.Helper()
	testrepo.Env(t)
	// Author and committer differ, so Log is seen to report the author.
	t.Setenv("GIT_AUTHOR_NAME", "Ada")
	t.Setenv("GIT_COMMITTER_NAME", "Bob")
}

type trepo struct {
	t    *testing.T
	dir  string
	tick int
}

func newTRepo(t *testing.T, dir string) *trepo {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	r := &trepo{t: t, dir: dir}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		r.git("init", "-q", "-b", "main")
	}
	return r
}

func (r *trepo) git(args ...string) string {
	r.t.Helper()
	return r.gitIn("", args...)
}

func (r *trepo) gitIn(stdin string, args ...string) string {
	r.t.Helper()
	r.tick++
	date := fmt.Sprintf("2026-01-01T00:%02d:%02dZ", r.tick/60%60, r.tick%60)
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// tryGit runs git and reports failure instead of failing the test.
func (r *trepo) tryGit(args ...string) (string, bool) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err == nil
}

func (r *trepo) write(name, content string) {
	r.t.Helper()
	testrepo.Write(r.t, r.dir, map[string]string{name: content})
}

func (r *trepo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func (r *trepo) open() *Repo {
	r.t.Helper()
	repo, err := Open(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return repo
}

// fixture: main c1..c3 (tags v1 annotated on c1, t2 lightweight on c2),
// feature from c2 with one commit, merged into main.
func fixture(t *testing.T) *trepo {
	r := newTRepo(t, "")
	r.write("a/b/c.txt", "c\n")
	r.write("a/d.txt", "d\n")
	r.write("x.txt", "x\n")
	r.commit("c1")
	r.git("tag", "-a", "v1", "-m", "version 1")
	r.write("x.txt", "x2\n")
	r.commit("c2")
	r.git("tag", "t2")
	r.git("checkout", "-q", "-b", "feature")
	r.write("f.txt", "f\n")
	r.commit("f1")
	r.git("checkout", "-q", "main")
	r.write("a/b/c.txt", "c3\n")
	r.commit("c3")
	return r
}

func TestResolve(t *testing.T) {
	gitEnv(t)
	src := fixture(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	src.git("clone", "-q", "--bare", src.dir, bare)
	work := &trepo{t: t, dir: t.TempDir()}
	work.git("clone", "-q", bare, "work")
	work.dir = filepath.Join(work.dir, "work")
	work.write("w.txt", "w\n")
	work.commit("w1")
	work.git("merge", "-q", "--no-ff", "-m", "merge feature", "origin/feature")
	head := work.git("rev-parse", "HEAD")

	revs := []string{
		head, head[:7], head[:4], strings.ToUpper(head[:10]), "HEAD", "@", "HEAD~1", "HEAD^", "HEAD^2", "HEAD^^", "HEAD~2^", "HEAD^0",
		"main", "v1", "t2", "origin/main", "origin/feature", "origin", "refs/heads/main",
		"refs/remotes/origin/main", "refs/tags/v1", "v1^{commit}", "v1~0", "main~1", "heads/main",
		"@{u}", "@{upstream}", "@{U}", "main@{u}", "main@{upstream}~1", "HEAD@{u}", "origin/feature^", "t2~1", "v1^0",
		"tags/v1", "remotes/origin/feature", "feature", "nosuch@{u}",
	}
	check := func(name string) {
		repo := work.open()
		revs := revs
		// Every object's short forms: commits, trees and blobs (the
		// latter resolve but are not commits: git refuses them too).
		for _, id := range strings.Fields(work.git("rev-list", "--all", "--objects", "--no-object-names")) {
			revs = append(revs, id[:5], id[:7], id[:12], id[:39])
		}
		for _, rev := range revs {
			want, ok := work.tryGit("rev-parse", "--verify", "-q", rev+"^{commit}")
			got, err := repo.Resolve(context.Background(), rev)
			if !ok {
				if apierr.CodeOf(err) != apierr.InvalidInput {
					t.Errorf("%s: Resolve(%q) = %q, %v; git cannot resolve it", name, rev, got, err)
				}
				continue
			}
			if err != nil || got != want {
				t.Errorf("%s: Resolve(%q) = %q, %v; want %s", name, rev, got, err, want)
			}
		}
		for _, rev := range []string{"-x", "--all", "nosuchref", "HEAD~100", "HEAD^3", "", "main..feature", "ffff", "v1^{tree}", "HEAD:x.txt",
			"HEAD@{1}", "@{-1}", "main@{push}", "main@{yesterday}"} {
			got, err := repo.Resolve(context.Background(), rev)
			if apierr.CodeOf(err) != apierr.InvalidInput {
				t.Errorf("%s: Resolve(%q) = %q, %v; want invalid_input", name, rev, got, err)
			} else if !strings.Contains(err.Error(), "pass") {
				t.Errorf("%s: Resolve(%q) error %q does not say what to pass", name, rev, err)
			}
		}
		if got, err := repo.RefTip(context.Background(), "refs/tags/v1"); err != nil || got != work.git("rev-parse", "v1^{commit}") {
			t.Errorf("%s: RefTip(refs/tags/v1) = %q, %v", name, got, err)
		}
		if _, err := repo.RefTip(context.Background(), "refs/heads/nope"); apierr.CodeOf(err) != apierr.NotFound {
			t.Errorf("%s: RefTip of a missing ref: %v", name, err)
		}
		if _, err := repo.RefTip(context.Background(), "main"); apierr.CodeOf(err) != apierr.InvalidInput {
			t.Errorf("%s: RefTip of a short name: %v", name, err)
		}
	}
	check("loose")
	work.git("pack-refs", "--all")
	work.git("gc", "-q")
	check("packed")
}

// TestResolveAmbiguous writes two commits whose ids share 4 hex digits.
func TestResolveAmbiguous(t *testing.T) {
	gitEnv(t)
	r := newTRepo(t, "")
	r.commit("base")
	tree := r.git("rev-parse", "HEAD^{tree}")
	seen := map[string]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		body := fmt.Sprintf("tree %s\nauthor Ada <ada@example.com> 1767225600 +0000\ncommitter Ada <ada@example.com> 1767225600 +0000\n\nc%d\n", tree, i)
		id := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprintf("commit %d\x00%s", len(body), body))))
		if other, ok := seen[id[:4]]; ok {
			a, b = other, body
			break
		}
		seen[id[:4]] = body
	}
	ha := r.gitIn(a, "hash-object", "-t", "commit", "-w", "--stdin")
	hb := r.gitIn(b, "hash-object", "-t", "commit", "-w", "--stdin")
	if ha[:4] != hb[:4] {
		t.Fatalf("no collision: %s %s", ha, hb)
	}
	repo := r.open()
	_, err := repo.Resolve(context.Background(), ha[:4])
	if apierr.CodeOf(err) != apierr.InvalidInput || !strings.Contains(err.Error(), ha) || !strings.Contains(err.Error(), hb) {
		t.Errorf("ambiguous short sha: %v", err)
	}
	if _, ok := r.tryGit("rev-parse", "--verify", "-q", ha[:4]+"^{commit}"); ok {
		t.Error("git resolved the ambiguous prefix")
	}
	n := 4
	for ha[:n] == hb[:n] {
		n++
	}
	if got, err := repo.Resolve(context.Background(), ha[:n]); err != nil || got != ha {
		t.Errorf("Resolve(%s) = %q, %v", ha[:n], got, err)
	}
}

func TestMergeBase(t *testing.T) {
	gitEnv(t)
	r := fixture(t)
	// A criss-cross: x and y each merge the other's parent.
	r.git("checkout", "-q", "-b", "x", "main")
	r.write("x1", "1")
	r.commit("x1")
	r.git("checkout", "-q", "-b", "y", "feature")
	r.write("y1", "1")
	r.commit("y1")
	r.git("merge", "-q", "--no-ff", "-m", "y merges x", "x~0")
	r.git("checkout", "-q", "x")
	r.git("merge", "-q", "--no-ff", "-m", "x merges y~1", "y~1")
	r.write("x2", "2")
	r.commit("x2")
	r.git("checkout", "-q", "y")
	r.write("y2", "2")
	r.commit("y2")
	repo := r.open()
	ctx := context.Background()
	for _, pair := range [][2]string{{"main", "feature"}, {"feature", "main"}, {"main", "main"}, {"main", "main~1"}, {"x", "y"}, {"y", "x"}, {"v1", "feature"}} {
		got, err := repo.MergeBase(ctx, pair[0], pair[1])
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Fields(r.git("merge-base", "--all", pair[0], pair[1]))
		if !contains(all, got) {
			t.Errorf("MergeBase(%s, %s) = %s, git says %v", pair[0], pair[1], got, all)
		}
		if len(all) == 1 && got != r.git("merge-base", pair[0], pair[1]) {
			t.Errorf("MergeBase(%s, %s) = %s", pair[0], pair[1], got)
		}
	}
	// Unrelated histories.
	r.git("checkout", "-q", "--orphan", "lonely")
	r.commit("lonely")
	if got, err := repo.MergeBase(ctx, "lonely", "main"); err != nil || got != "" {
		t.Errorf("unrelated: %q, %v", got, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestDefaultBase(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	src := fixture(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	src.git("clone", "-q", "--bare", src.dir, bare)

	clone := func() *trepo {
		parent := t.TempDir()
		r := &trepo{t: t, dir: parent}
		r.git("clone", "-q", bare, "w")
		r.dir = filepath.Join(parent, "w")
		r.write("local.txt", "l\n")
		r.commit("local work")
		return r
	}
	expect := func(name string, r *trepo, source, other string) {
		t.Helper()
		b, err := r.open().DefaultBase(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := ""
		if other != "" {
			want = r.git("merge-base", "HEAD", other)
		}
		if b.Source != source || b.SHA != want {
			t.Errorf("%s: DefaultBase = %+v, want %s %s", name, b, source, want)
		}
		if (source == "fallback-none") != (b.Warning != "") {
			t.Errorf("%s: warning %q", name, b.Warning)
		}
	}

	r := clone()
	expect("origin/HEAD", r, "origin-head", "refs/remotes/origin/HEAD")

	r.git("remote", "set-head", "origin", "-d")
	expect("origin/main", r, "origin-main", "refs/remotes/origin/main")

	r.git("branch", "-m", "main", "trunk") // still tracks origin/main, which now counts as origin-main
	expect("renamed", r, "origin-main", "refs/remotes/origin/main")

	// An upstream on a remote that is not origin.
	up := newTRepo(t, "")
	up.git("remote", "add", "up", bare)
	up.git("fetch", "-q", "up")
	up.git("reset", "-q", "--hard", "up/feature")
	up.write("u.txt", "u\n")
	up.commit("mine")
	up.git("config", "branch.main.remote", "up")
	up.git("config", "branch.main.merge", "refs/heads/feature")
	expect("upstream", up, "upstream", "refs/remotes/up/feature")

	// A local upstream (remote ".").
	loc := fixture(t)
	loc.git("checkout", "-q", "-b", "topic", "feature")
	loc.write("t.txt", "t\n")
	loc.commit("topic")
	loc.git("config", "branch.topic.remote", ".")
	loc.git("config", "branch.topic.merge", "refs/heads/main")
	expect("local upstream", loc, "upstream", "refs/heads/main")

	// checkout.defaultRemote.
	fork := newTRepo(t, "")
	fork.git("remote", "add", "fork", bare)
	fork.git("fetch", "-q", "fork")
	fork.git("reset", "-q", "--hard", "fork/feature")
	fork.write("k.txt", "k\n")
	fork.commit("mine")
	fork.git("config", "checkout.defaultRemote", "fork")
	expect("default remote", fork, "default-remote", "refs/remotes/fork/main")

	// No remote at all.
	none := fixture(t)
	expect("no remote", none, "fallback-none", "")
	b, _ := none.open().DefaultBase(ctx)
	if !strings.Contains(b.Warning, "no remote") {
		t.Errorf("warning %q does not say there is no remote", b.Warning)
	}
	none.git("checkout", "-q", "--detach")
	b, _ = none.open().DefaultBase(ctx)
	if b.Source != "fallback-none" || !strings.Contains(b.Warning, "detached") {
		t.Errorf("detached: %+v", b)
	}

	// A remote whose history HEAD does not share.
	orphan := clone()
	orphan.git("checkout", "-q", "--orphan", "alone")
	orphan.commit("alone")
	b, _ = orphan.open().DefaultBase(ctx)
	if b.Source != "fallback-none" || !strings.Contains(b.Warning, "no history") {
		t.Errorf("unrelated: %+v", b)
	}

	// An empty repository.
	empty := newTRepo(t, "")
	b, err := empty.open().DefaultBase(ctx)
	if err != nil || b.Source != "fallback-none" || b.Warning == "" {
		t.Errorf("empty: %+v %v", b, err)
	}
}

func TestTree(t *testing.T) {
	gitEnv(t)
	r := fixture(t)
	r.write("a/b/deep/e.txt", "e\n")
	r.write("a/b/deep/AGENTS.md", "agents\n")
	if err := os.Symlink("c.txt", filepath.Join(r.dir, "a/b/link")); err != nil {
		t.Skip(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "a/b/run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	head := r.commit("more")
	repo := r.open()
	ctx := context.Background()

	gitFiles := func(dir string) map[string]string {
		out := map[string]string{}
		args := []string{"ls-tree", "-r", "HEAD"}
		if dir != "" {
			args = append(args, "--", dir)
		}
		for _, line := range strings.Split(r.git(args...), "\n") {
			meta, p, _ := strings.Cut(line, "\t")
			f := strings.Fields(meta)
			if f[0] == "100644" || f[0] == "100755" || f[0] == "120000" { // files and symlinks
				out[p] = f[2]
			}
		}
		return out
	}
	for _, tc := range []struct {
		dirs []string
		want map[string]string
	}{
		{[]string{"a/b"}, gitFiles("a/b")},
		{[]string{"a/b/", "a/b/deep", "missing", "x.txt"}, withFile(gitFiles("a/b"), "x.txt", gitFiles("")["x.txt"])}, // a dir naming a file is that file
		{[]string{"a"}, gitFiles("a")},
		{[]string{""}, gitFiles("")},
		{[]string{"."}, gitFiles("")},
		{nil, map[string]string{}},
	} {
		files, err := repo.Tree(ctx, head, tc.dirs, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for p, f := range files {
			got[p] = f.Blob
			if want := r.git("cat-file", "blob", f.Blob); strings.TrimSpace(string(f.Data)) != want {
				t.Errorf("%s: data %q, want %q", p, f.Data, want)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Tree(%q) = %v, want %v", tc.dirs, got, tc.want)
		}
	}
	if _, ok := gitFiles("a/b")["a/b/link"]; !ok {
		t.Error("the oracle does not list the symlink")
	}
	if files, err := repo.Tree(ctx, head, []string{"a"}, nil); err != nil || !files["a/b/link"].Link || files["a/b/c.txt"].Link {
		t.Errorf("Tree marks links: %+v, %v", files["a/b/link"], err)
	}
	// want: only the files it takes are read (a whole-tree source reads a
	// few names anywhere, never every blob).
	md := func(p string) bool { return strings.HasSuffix(p, ".md") }
	files, err := repo.Tree(ctx, head, []string{""}, md)
	if err != nil {
		t.Fatal(err)
	}
	wantMD := map[string]string{}
	for p, b := range gitFiles("") {
		if md(p) || p == "a/b/link" { // a link without an extension may be a directory's
			wantMD[p] = b
		}
	}
	gotMD := map[string]string{}
	for p, f := range files {
		gotMD[p] = f.Blob
	}
	if len(wantMD) != 2 || !reflect.DeepEqual(gotMD, wantMD) {
		t.Errorf("Tree with want = %v, want %v", gotMD, wantMD)
	}
	if _, err := repo.Tree(ctx, strings.Repeat("0", 40), nil, nil); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Errorf("unknown commit: %v", err)
	}
}

func TestUncommitted(t *testing.T) {
	gitEnv(t)
	r := newTRepo(t, "")
	r.write(".gitignore", "*.log\n/build/\n")
	r.write("sub/.gitignore", "secret*\n!secret-ok.txt\n")
	r.write("staged.txt", "s\n")
	r.write("unstaged.txt", "u\n")
	r.write("same-size.txt", "aaaa\n")
	r.write("deleted.txt", "d\n")
	r.write("removed.txt", "r\n")
	r.write("clean.txt", "c\n")
	r.write("sub/keep.txt", "k\n")
	r.write("tracked.log", "tracked but ignored\n")
	r.git("add", "-f", "tracked.log")
	r.commit("base")

	r.write("staged.txt", "s2\n")
	r.git("add", "staged.txt")
	r.write("unstaged.txt", "u2\n")
	r.write("same-size.txt", "bbbb\n")
	if err := os.Remove(filepath.Join(r.dir, "deleted.txt")); err != nil {
		t.Fatal(err)
	}
	r.git("rm", "-q", "removed.txt")
	r.write("new.txt", "n\n")
	r.write("deep/er/new.txt", "n\n")
	r.write("debug.log", "ignored\n")
	r.write("build/out.bin", "ignored\n")
	r.write("sub/secret.txt", "ignored\n")
	r.write("sub/secret-ok.txt", "shown\n")
	r.write("excluded.tmp", "ignored\n")
	r.write(".git/info/exclude", "*.tmp\n")
	r.write("added.txt", "a\n")
	r.git("add", "added.txt")
	r.write("tracked.log", "changed\n")

	got, err := r.open().Uncommitted(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(r.git("status", "--porcelain", "-uall", "--no-renames"), "\n") {
		if len(line) > 3 {
			want = append(want, line[3:])
		}
	}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Uncommitted = %v\ngit status  = %v", got, want)
	}
	for _, p := range []string{"staged.txt", "unstaged.txt", "same-size.txt", "deleted.txt", "removed.txt", "new.txt", "sub/secret-ok.txt", "added.txt", "tracked.log"} {
		if !contains(got, p) {
			t.Errorf("%s missing", p)
		}
	}

	// A clean worktree after a commit (and a refreshed index).
	r.git("add", "-A")
	r.commit("all")
	r.git("status", "-s")
	if got, err := r.open().Uncommitted(context.Background()); err != nil || len(got) != 0 {
		t.Errorf("clean worktree: %v, %v", got, err)
	}
}

func TestLogAuthor(t *testing.T) {
	gitEnv(t)
	r := fixture(t)
	repo := r.open()
	head, _ := repo.Head(context.Background())
	log, err := repo.Log(context.Background(), head, 0)
	if err != nil || log == nil || len(log.Commits) != 3 {
		t.Fatalf("Log = %+v, %v", log, err)
	}
	if c := log.Commits[0]; c.Author != "Ada" || c.Subject != "c3" || c.SHA != head {
		t.Errorf("head commit %+v", c)
	}
	if log, err := repo.Log(context.Background(), "", 0); log != nil || err != nil {
		t.Errorf("Log(\"\") = %v, %v", log, err)
	}
}

// withFile is m with p added.
func withFile(m map[string]string, p, blob string) map[string]string {
	m[p] = blob
	return m
}
