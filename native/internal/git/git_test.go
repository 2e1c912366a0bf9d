package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/kontext/kontext/internal/gittest"
)

const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// checkAllObjects reads every object through o and compares it with git's
// reading.
func checkAllObjects(t *testing.T, r *gittest.Repo, o *Objects) int {
	t.Helper()
	all := r.AllObjects()
	for h, want := range all {
		typ, data, err := o.Read(plumbing.AnyObject, h)
		if err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		if typ != want.Type || !bytes.Equal(data, want.Data) {
			t.Fatalf("%s: got %v (%d bytes), want %v (%d bytes)", h, typ, len(data), want.Type, len(want.Data))
		}
		// Asking for another type is "not found", like go-git.
		other := plumbing.BlobObject
		if want.Type == plumbing.BlobObject {
			other = plumbing.TreeObject
		}
		if _, _, err := o.Read(other, h); !errors.Is(err, plumbing.ErrObjectNotFound) {
			t.Fatalf("%s read as %v: %v, want ErrObjectNotFound", h, other, err)
		}
	}
	return len(all)
}

// TestObjectsPackedDeltasAndLoose reads every object of a repository with
// long delta chains, first all packed (the pack reader alone), then with
// loose objects next to the pack, and compares with git.
func TestObjectsPackedDeltasAndLoose(t *testing.T) {
	r := newRepo(t)
	var big strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&big, "line %d of a file that is edited a little in every commit\n", i)
	}
	for i := 0; i < 30; i++ {
		r.Write("big.txt", big.String()+fmt.Sprintf("version %d\n", i))
		r.Write(fmt.Sprintf("d%d/f.txt", i%5), fmt.Sprintf("f %d\n", i))
		r.Commit(fmt.Sprintf("c%d", i))
	}
	r.Git("tag", "-a", "-m", "an annotated tag", "v1")
	r.Git("repack", "-a", "-d", "-q", "--depth=50", "--window=50")
	idx, _ := filepath.Glob(filepath.Join(r.GitDir(), "objects", "pack", "*.idx"))
	if len(idx) != 1 || !strings.Contains(r.Git("verify-pack", "-v", idx[0]), "chain length = 2") {
		t.Fatal("the pack has no delta chains; the test would not test them")
	}
	o := objects(r, false)
	n := checkAllObjects(t, r, o) // no fallback: only the packs
	if n < 90 {
		t.Fatalf("only %d objects", n)
	}
	// Objects share slabs: each one's slice must end where it does, or an
	// append by a caller would write into its neighbour.
	for h := range r.AllObjects() {
		if _, data, err := o.Read(plumbing.AnyObject, h); err != nil || cap(data) != len(data) {
			t.Fatalf("%s: %d bytes, capacity %d, %v", h, len(data), cap(data), err)
		}
	}

	r.Write("big.txt", big.String()+"loose\n")
	r.Write("new/dir/file.txt", "loose\n")
	r.Commit("loose")
	checkAllObjects(t, r, objects(r, false)) // packed and loose, no fallback
}

// TestObjectsNewPack maps a pack that appears after the first read, as in
// a long-lived process after a fetch or gc.
func TestObjectsNewPack(t *testing.T) {
	r := newRepo(t)
	r.Write("a.txt", "a\n")
	first := r.Commit("first")
	r.Git("repack", "-a", "-d", "-q")
	o := objects(r, false)
	if _, err := o.Commit(plumbing.NewHash(first)); err != nil {
		t.Fatal(err)
	}
	r.Write("b.txt", "b\n")
	second := r.Commit("second")
	if _, err := o.Commit(plumbing.NewHash(second)); err != nil {
		t.Fatalf("loose object: %v", err)
	}
	r.Write("c.txt", "c\n")
	third := r.Commit("third")
	r.Git("repack", "-d", "-q") // packs the loose objects and deletes them
	if _, err := o.Commit(plumbing.NewHash(third)); err != nil {
		t.Fatalf("an object packed after the first read: %v", err)
	}
	c, err := o.Commit(plumbing.NewHash(second))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Parents) != 1 || c.Parents[0].String() != first || c.Subject != "second" {
		t.Fatalf("second: %+v", c)
	}
	if _, err := o.Commit(plumbing.NewHash(strings.Repeat("ab", 20))); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Fatalf("missing object: %v", err)
	}
}

// TestCommitsMatchGit compares parsed commits (packed and loose, merges
// included) with git's own formatting of them.
func TestCommitsMatchGit(t *testing.T) {
	r := newRepo(t)
	t.Setenv("GIT_AUTHOR_NAME", "Ada Lovelace")
	t.Setenv("GIT_COMMITTER_NAME", "Bob")
	buildFixture(r)
	r.Clock++
	r.Git("commit", "-q", "--allow-empty", "-m", "subject line\r\n\nbody\nmore body")
	r.Git("repack", "-a", "-d", "-q")
	r.Commit("loose commit")
	o := objects(r, true)
	log := r.Git("log", "--all", "--format=%H %T %ct %P|%an|%s")
	lines := strings.Split(log, "\n")
	merges := 0
	for _, line := range lines {
		head, rest, _ := strings.Cut(line, "|")
		author, subject, _ := strings.Cut(rest, "|")
		f := strings.Fields(head)
		c, err := o.Commit(plumbing.NewHash(f[0]))
		if err != nil {
			t.Fatal(err)
		}
		var parents []string
		for _, p := range c.Parents {
			parents = append(parents, p.String())
		}
		if len(parents) > 1 {
			merges++
		}
		got := fmt.Sprintf("%s %s %d %s", f[0], c.Tree, c.Time, strings.Join(parents, " "))
		if strings.TrimSpace(got) != strings.TrimSpace(head) || c.Author != author || c.Subject != strings.TrimSuffix(subject, "\r") {
			t.Errorf("commit %s: got %q %q %q, want %q %q %q", f[0], got, c.Author, c.Subject, head, author, subject)
		}
	}
	if len(lines) < 15 || merges != 2 {
		t.Fatalf("%d commits, %d merges", len(lines), merges)
	}
}

func TestParseCommit(t *testing.T) {
	const tree = "0123456789abcdef0123456789abcdef01234567"
	const parent = "89abcdef0123456789abcdef0123456789abcdef"
	sig := "sig " // a signature header with a continuation line
	for _, tc := range []struct {
		name, raw string
		want      Commit
		err       bool
	}{
		{name: "full", raw: "tree " + tree + "\nparent " + parent + "\nauthor Ada L <a@x> 1700000000 +0100\ncommitter Bob <b@x> 1700000001 -0500\n\nsubject\r\nbody\n",
			want: Commit{Tree: plumbing.NewHash(tree), Parents: []plumbing.Hash{plumbing.NewHash(parent)}, Author: "Ada L", Time: 1700000001, Subject: "subject"}},
		{name: "signed", raw: "tree " + tree + "\nauthor A <a@x> 1 +0000\ncommitter B <b@x> 2 +0000\ngpgsig -----BEGIN\n " + sig + "\n \n -----END\n\nmsg",
			want: Commit{Tree: plumbing.NewHash(tree), Author: "A", Time: 2, Subject: "msg"}},
		{name: "no committer time", raw: "tree " + tree + "\nauthor A <a@x> 1 +0000\ncommitter B <b@x>\n\nm\n",
			want: Commit{Tree: plumbing.NewHash(tree), Author: "A", Time: NoTime, Subject: "m"}},
		{name: "headers only", raw: "tree " + tree + "\n",
			want: Commit{Tree: plumbing.NewHash(tree), Time: NoTime}},
		{name: "parent out of place is ignored", raw: "tree " + tree + "\nauthor A <a@x> 1 +0000\nparent " + parent + "\ncommitter B <b@x> 5 +0000\n\nm",
			want: Commit{Tree: plumbing.NewHash(tree), Author: "A", Time: NoTime, Subject: "m"}},
		{name: "empty", raw: "", err: true},
		{name: "tree not first", raw: "parent " + parent + "\ntree " + tree + "\n", err: true},
		{name: "bad tree", raw: "tree xyz\n", err: true},
		{name: "bad parent", raw: "tree " + tree + "\nparent 123\n", err: true},
	} {
		var c Commit
		err := ParseCommit([]byte(tc.raw), &c)
		if tc.err {
			if !errors.Is(err, ErrMalformedCommit) {
				t.Errorf("%s: err = %v, want ErrMalformedCommit", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(c.Parents) == 0 {
			c.Parents = nil
		}
		if fmt.Sprint(c) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, c, tc.want)
		}
	}
	if got := time.Unix(NoTime, 0).UTC(); got != (time.Time{}) || NoTime != (time.Time{}).Unix() {
		t.Errorf("NoTime is %v, not the zero time", got)
	}
}

func TestParseTagTarget(t *testing.T) {
	target := "0123456789abcdef0123456789abcdef01234567"
	h, err := ParseTagTarget([]byte("object " + target + "\ntype commit\ntag v1\ntagger A <a@b> 1 +0000\n\nmsg\n"))
	if err != nil || h.String() != target {
		t.Fatalf("got %s, %v", h, err)
	}
	for _, bad := range []string{"", "type commit\n", "object xyz\n", "object " + target + "\ntype nope\n", "object " + target + "\ntag v1\n", "object " + target + "\ntype commit\n\n", "object " + target + "\n"} {
		if _, err := ParseTagTarget([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseTreeErrors(t *testing.T) {
	id := strings.Repeat("\x01", 20)
	for raw, want := range map[string]string{
		"100644 a":                    "missing filename terminator",
		"100644a b\x00" + id:          "malformed mode",
		"10x644 a\x00" + id:           "malformed mode",
		" a\x00" + id:                 "malformed mode",
		"100644 \x00" + id:            "empty filename",
		"100644 a\x00" + id[:5]:       "truncated object id",
		"100644 a\x00" + id + "40000": "missing mode terminator",
	} {
		_, err := ParseTree(plumbing.ZeroHash, []byte(raw))
		if !errors.Is(err, ErrMalformedTree) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", raw, err, want)
		}
	}
	tr, err := ParseTree(plumbing.ZeroHash, []byte("100664 old\x00"+id+"40000 d\x00"+id+"160000 m\x00"+id+"120000 s\x00"+id+"100775 x\x00"+id))
	if err != nil {
		t.Fatal(err)
	}
	var modes []filemode.FileMode
	for _, e := range tr.Entries {
		modes = append(modes, e.Mode)
	}
	want := []filemode.FileMode{filemode.Regular, filemode.Dir, filemode.Submodule, filemode.Symlink, filemode.Executable}
	if !slices.Equal(modes, want) {
		t.Errorf("canonical modes %v, want %v", modes, want)
	}
}

// diffTreeOracle is `git diff-tree -r --no-renames` between two trees, as
// ":oldmode newmode oldid newid status\tpath" lines.
func diffTreeOracle(r *gittest.Repo, a, b string) []string {
	r.TB.Helper()
	out := r.Run(nil, "diff-tree", "-r", "--no-renames", "-z", a, b)
	var res []string
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		res = append(res, strings.TrimPrefix(fields[i], ":")+"\t"+fields[i+1])
	}
	return res
}

func sideMode(s Side) string {
	if s.Mode == filemode.Empty {
		return "000000"
	}
	return fmt.Sprintf("%06o", uint32(s.Mode))
}

// differLines runs the differ and formats its callback output like
// diffTreeOracle.
func differLines(t *testing.T, d *Differ, a, b plumbing.Hash) []string {
	t.Helper()
	var res []string
	err := d.Diff(context.Background(), a, b, func(path []byte, from, to Side) error {
		status := "M"
		switch {
		case from.Mode == filemode.Empty:
			status = "A"
		case to.Mode == filemode.Empty:
			status = "D"
		case from.Mode&0o170000 != to.Mode&0o170000:
			status = "T"
		}
		res = append(res, fmt.Sprintf("%s %s %s %s %s\t%s", sideMode(from), sideMode(to), from.Hash, to.Hash, status, path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDifferMatchesDiffTree compares the differ's callback output (paths,
// modes, ids, order) with git diff-tree for every commit against each
// parent (merges against both), against the empty tree, and between
// distant commits; once packed and once loose.
func TestDifferMatchesDiffTree(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", packed), func(t *testing.T) {
			r := newRepo(t)
			cs := buildFixture(r)
			if packed {
				r.Git("repack", "-a", "-d", "-q", "--depth=50", "--window=50")
			}
			o := objects(r, true)
			d := NewDiffer(o)
			tree := func(c string) (string, plumbing.Hash) {
				t.Helper()
				cm, err := o.Commit(plumbing.NewHash(c))
				if err != nil {
					t.Fatal(err)
				}
				return cm.Tree.String(), cm.Tree
			}
			pairs := [][2]string{{cs[0], cs[len(cs)-1]}, {cs[len(cs)-1], cs[0]}, {cs[2], cs[9]}}
			for _, c := range cs {
				cm, err := o.Commit(plumbing.NewHash(c))
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range cm.Parents {
					pairs = append(pairs, [2]string{p.String(), c})
				}
			}
			checked := 0
			for _, pr := range pairs {
				as, ah := tree(pr[0])
				bs, bh := tree(pr[1])
				want := diffTreeOracle(r, as, bs)
				got := differLines(t, d, ah, bh)
				if !slices.Equal(got, want) {
					t.Errorf("%s..%s:\n got  %q\n want %q", pr[0][:7], pr[1][:7], got, want)
				}
				checked += len(want)
			}
			// From and to the empty tree.
			_, last := tree(cs[len(cs)-2])
			if got, want := differLines(t, d, plumbing.ZeroHash, last), diffTreeOracle(r, emptyTree, last.String()); !slices.Equal(got, want) {
				t.Errorf("from the empty tree:\n got  %q\n want %q", got, want)
			}
			if got, want := differLines(t, d, last, plumbing.ZeroHash), diffTreeOracle(r, last.String(), emptyTree); !slices.Equal(got, want) {
				t.Errorf("to the empty tree:\n got  %q\n want %q", got, want)
			}
			if checked < 30 {
				t.Fatalf("only %d changes compared", checked)
			}
		})
	}
}

// TestDifferStops: the callback's error and a cancelled context end the
// diff.
func TestDifferStops(t *testing.T) {
	r := newRepo(t)
	cs := buildFixture(r)
	o := objects(r, true)
	c, err := o.Commit(plumbing.NewHash(cs[len(cs)-1]))
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	calls := 0
	err = NewDiffer(o).Diff(context.Background(), plumbing.ZeroHash, c.Tree, func([]byte, Side, Side) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("callback error: err = %v after %d calls", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = NewDiffer(o).Diff(ctx, plumbing.ZeroHash, c.Tree, func([]byte, Side, Side) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestShallowClone reads a shallow clone: the boundary commit's parents
// are listed but absent, and everything fetched reads and diffs like git.
func TestShallowClone(t *testing.T) {
	src := newRepo(t)
	cs := buildFixture(src)
	src.Git("repack", "-a", "-d", "-q")
	r := &gittest.Repo{TB: t, Dir: filepath.Join(t.TempDir(), "clone")}
	src.Git("clone", "-q", "--depth", "3", "--no-local", "file://"+src.Dir, r.Dir)
	shallow, err := os.ReadFile(filepath.Join(r.GitDir(), "shallow"))
	if err != nil {
		t.Fatal(err)
	}
	boundary := plumbing.NewHash(strings.TrimSpace(strings.Split(string(shallow), "\n")[0]))
	o := objects(r, true)
	c, err := o.Commit(boundary)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Parents) == 0 {
		t.Fatal("the boundary commit lists no parents")
	}
	if _, err := o.Commit(c.Parents[0]); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Fatalf("parent beyond the boundary: %v, want ErrObjectNotFound", err)
	}
	checkAllObjects(t, r, o)
	head, err := o.Commit(plumbing.NewHash(cs[len(cs)-1]))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDiffer(o)
	if got, want := differLines(t, d, c.Tree, head.Tree), diffTreeOracle(r, c.Tree.String(), head.Tree.String()); !slices.Equal(got, want) {
		t.Errorf("boundary..HEAD:\n got  %q\n want %q", got, want)
	}
}

// TestLinkedWorktree follows a linked worktree's commondir to the shared
// objects.
func TestLinkedWorktree(t *testing.T) {
	r := newRepo(t)
	r.Write("a.txt", "a\n")
	head := r.Commit("first")
	r.Git("repack", "-a", "-d", "-q")
	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "--detach", wt, head)
	gitDir := strings.TrimSpace(string(must(os.ReadFile(filepath.Join(wt, ".git")))))
	gitDir = strings.TrimSpace(strings.TrimPrefix(gitDir, "gitdir:"))
	o := OpenObjects(gitDir, nil) // no fallback: only the shared packs can answer
	defer o.Close()
	c, err := o.Commit(plumbing.NewHash(head))
	if err != nil || c.Subject != "first" {
		t.Fatalf("commit via the linked worktree: %+v, %v", c, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestTreeLookupsMatchGoGit checks path lookups and file reads against
// go-git's plumbing/object on a fixture history, paths that git rejects
// included.
func TestTreeLookupsMatchGoGit(t *testing.T) {
	r := newRepo(t)
	cs := buildFixture(r)
	r.Git("repack", "-a", "-d", "-q")
	st := gittest.Storage(t, r.GitDir())
	o := objects(r, true)
	for _, h := range cs {
		want, err := object.GetCommit(st, plumbing.NewHash(h))
		if err != nil {
			t.Fatal(err)
		}
		got, err := o.Commit(plumbing.NewHash(h))
		if err != nil {
			t.Fatal(err)
		}
		if got.Tree != want.TreeHash || got.Time != want.Committer.When.Unix() || len(got.Parents) != len(want.ParentHashes) {
			t.Fatalf("commit %s: got %+v, want tree %s time %d parents %v", h, got, want.TreeHash, want.Committer.When.Unix(), want.ParentHashes)
		}
		gt, err := o.Tree(got.Tree)
		if err != nil {
			t.Fatal(err)
		}
		paths := []string{"", "a.txt", "dir", "dir/sub", "dir/sub/deeper/d.txt", "dir/sub/c.txt/x", "x", "x/y.txt", "mod", "mod/x", "link",
			"ü/ñ é.txt", "tab\there.txt", "nope", "nope/x", "dir/nope/x", ".git", "a/../b", "dir//sub", "dir/sub/", "x\\y", ".GIT/x", "dir-z/e.txt", "dir.txt"}
		wt, _ := want.Tree()
		for _, e := range wt.Entries {
			paths = append(paths, e.Name, e.Name+"/x")
		}
		for _, p := range paths {
			// A fresh tree per lookup: go-git caches subtrees per *Tree keyed
			// by filepath.Join, which makes "a//b" depend on earlier lookups.
			wt, _ := want.Tree()
			we, werr := wt.FindEntry(p)
			ge, gerr := o.FindEntry(gt, p)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("%s FindEntry(%q): got %v, want %v", h, p, gerr, werr)
			}
			if werr == nil && (we.Name != ge.Name || we.Mode != ge.Mode || we.Hash != ge.Hash) {
				t.Fatalf("%s FindEntry(%q): got %+v, want %+v", h, p, ge, we)
			}
			wt, _ = want.Tree()
			wf, werr := wt.File(p)
			gd, gerr := o.File(gt, p)
			if (werr == nil) != (gerr == nil) || errors.Is(werr, object.ErrFileNotFound) != errors.Is(gerr, ErrFileNotFound) {
				t.Fatalf("%s File(%q): got %v, want %v", h, p, gerr, werr)
			}
			if werr == nil {
				if s, _ := wf.Contents(); s != string(gd) {
					t.Fatalf("%s File(%q): contents differ", h, p)
				}
			}
		}
	}
}
