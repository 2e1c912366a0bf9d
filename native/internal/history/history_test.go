package history

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/kontext/kontext/internal/gittest"
)

func build(t *testing.T, r *repo, max int) *Index {
	t.Helper()
	ix, err := Build(context.Background(), gittest.Storage(t, r.GitDir()), r.GitDir(), r.Git("rev-parse", "HEAD"), max)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// rebuild builds again (no limit), and checks that nothing was diffed and
// that the index equals want.
func rebuild(t *testing.T, r *repo, want *Index, what string) {
	t.Helper()
	n := diffCount.Load()
	ix := build(t, r, 0)
	if d := diffCount.Load() - n; d != 0 {
		t.Errorf("%s diffed %d commits", what, d)
	}
	if !reflect.DeepEqual(ix, want) {
		t.Errorf("%s differs from the first build", what)
	}
}

// checkOracle compares the index with git log and git rev-list.
func checkOracle(t *testing.T, r *repo, ix *Index) {
	t.Helper()
	want := r.oracle()
	got := map[string][]string{}
	for _, c := range ix.Commits {
		if c.Merge {
			if c.Paths != nil {
				t.Errorf("merge %s has paths %v", c.SHA, c.Paths)
			}
			continue
		}
		got[c.SHA] = c.Paths
	}
	if !reflect.DeepEqual(got, want) {
		for sha, w := range want {
			if !reflect.DeepEqual(got[sha], w) {
				t.Errorf("%s: got %q, want %q", sha, got[sha], w)
			}
		}
		for sha := range got {
			if _, ok := want[sha]; !ok {
				t.Errorf("%s: not in git log", sha)
			}
		}
	}
	revs := strings.Fields(r.Git("rev-list", "HEAD"))
	var walked []string
	for _, c := range ix.Commits {
		walked = append(walked, c.SHA)
	}
	sort.Strings(revs)
	sort.Strings(walked)
	if !reflect.DeepEqual(walked, revs) {
		t.Errorf("walked %d commits %v, rev-list has %d %v", len(walked), walked, len(revs), revs)
	}
	// Every commit comes before its parents.
	pos := map[string]int{}
	for i, c := range ix.Commits {
		pos[c.SHA] = i
	}
	for i, c := range ix.Commits {
		for _, p := range c.Parents {
			if j, ok := pos[p]; ok && j < i {
				t.Errorf("parent %s listed before its child %s", p, c.SHA)
			}
		}
	}
}

func TestBuildMatchesGitLog(t *testing.T) {
	r := newRepo(t)
	buildFixture(r)
	ix := build(t, r, 0)
	checkOracle(t, r, ix)
	if ix.Truncated || ix.Shallow {
		t.Errorf("Truncated=%v Shallow=%v", ix.Truncated, ix.Shallow)
	}
	head := ix.Commits[0]
	if head.SHA != ix.Head || head.Subject != "delete e" || head.Time.Location().String() != "UTC" {
		t.Errorf("head commit = %+v", head)
	}
	if want := r.Git("log", "-1", "--format=%an"); head.Author != want || want == "" {
		t.Errorf("head author %q, git says %q", head.Author, want)
	}
	if want := r.Git("log", "-1", "--format=%ct"); want != strconv.FormatInt(head.Time.Unix(), 10) {
		t.Errorf("head time %v, git says %s", head.Time, want)
	}
	if !reflect.DeepEqual(head.Paths, []string{"dir-z/e.txt"}) {
		t.Errorf("head paths %v", head.Paths)
	}
	if !ix.Reachable(ix.Head) || ix.Reachable(strings.Repeat("0", 40)) {
		t.Error("Reachable")
	}
}

func TestCache(t *testing.T) {
	r := newRepo(t)
	buildFixture(r)
	n0 := diffCount.Load()
	first := build(t, r, 0)
	cold := diffCount.Load() - n0
	if cold == 0 {
		t.Fatal("a cold build diffed nothing")
	}
	entries, err := os.ReadDir(filepath.Join(r.GitDir(), "kontext", "cache", "commits"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no cache written: %v", err)
	}

	rebuild(t, r, first, "a warm build")

	r.Write("new.txt", "new\n")
	r.Commit("one more")
	n2 := diffCount.Load()
	third := build(t, r, 0)
	if d := diffCount.Load() - n2; d != 1 {
		t.Errorf("after one commit, %d diffs", d)
	}
	checkOracle(t, r, third)

	// Many builds compact the segments and still answer the same.
	for i := 0; i < maxSegments+2; i++ {
		r.Write("new.txt", strings.Repeat("x", i+2))
		r.Commit("more")
		build(t, r, 0)
	}
	entries, _ = os.ReadDir(filepath.Join(r.GitDir(), "kontext", "cache", "commits"))
	if len(entries) > maxSegments {
		t.Errorf("%d segments after compaction", len(entries))
	}
	n3 := diffCount.Load()
	checkOracle(t, r, build(t, r, 0))
	if d := diffCount.Load() - n3; d != 0 {
		t.Errorf("build after compaction diffed %d commits", d)
	}
}

// TestWalkLog: a build of a head already built answers from its walk log
// alone, the same index; the limit is part of the key; a damaged log is
// dropped; only the newest logs are kept.
func TestWalkLog(t *testing.T) {
	r := newRepo(t)
	buildFixture(r)
	dir := filepath.Join(r.GitDir(), "kontext", "cache", "commits")
	logs := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, logPrefix+"*"+logSuffix))
		return m
	}
	first := build(t, r, 0)
	checkOracle(t, r, first)
	if n := len(logs()); n != 1 {
		t.Fatalf("%d walk logs after one build", n)
	}
	// Without the segments a walk would diff every commit again.
	segs, _ := filepath.Glob(filepath.Join(dir, segPrefix+"*"))
	for _, p := range segs {
		os.Remove(p)
	}
	rebuild(t, r, first, "a build from the walk log")

	three := build(t, r, 3)
	if !three.Truncated || len(three.Commits) != 3 {
		t.Fatalf("limit 3: Truncated=%v with %d commits", three.Truncated, len(three.Commits))
	}
	if again := build(t, r, 3); !reflect.DeepEqual(three, again) {
		t.Error("the logged walk of limit 3 differs from the built one")
	}
	if n := len(logs()); n != 2 {
		t.Errorf("%d walk logs for two limits", n)
	}

	for _, p := range logs() {
		data, _ := os.ReadFile(p)
		data[len(data)/2] ^= 0xff
		os.WriteFile(p, data, 0o644)
	}
	checkOracle(t, r, build(t, r, 0))
	if ix := build(t, r, 3); !reflect.DeepEqual(three, ix) {
		t.Error("limit 3 after its log was damaged differs")
	}

	for i := 0; i < maxLogs+2; i++ {
		r.Write("log.txt", strings.Repeat("x", i+1))
		r.Commit("log " + strconv.Itoa(i))
		checkOracle(t, r, build(t, r, 0))
	}
	if n := len(logs()); n > maxLogs {
		t.Errorf("%d walk logs kept, want at most %d", n, maxLogs)
	}
}

func TestOldSegmentVersionIsIgnored(t *testing.T) {
	c := &Commit{SHA: strings.Repeat("a", 40), Subject: "s", Author: "Ada", Paths: []string{"x"}}
	data := encodeSegment([]*Commit{c})
	out := map[plumbing.Hash]*Commit{}
	if err := decodeSegment(data, out); err != nil || out[plumbing.NewHash(c.SHA)].Author != "Ada" {
		t.Fatalf("round trip: %v %+v", err, out)
	}
	old := append([]byte("kontext-commits-1\n"), data[len(segMagic):]...)
	if err := decodeSegment(old, map[plumbing.Hash]*Commit{}); err == nil {
		t.Error("a segment of the previous format was accepted")
	}
}

func TestCorruptCacheIsIgnored(t *testing.T) {
	r := newRepo(t)
	buildFixture(r)
	build(t, r, 0)
	dir := filepath.Join(r.GitDir(), "kontext", "cache", "commits")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		data, _ := os.ReadFile(p)
		data[len(data)/2] ^= 0xff
		os.WriteFile(p, data, 0o644)
	}
	checkOracle(t, r, build(t, r, 0))
}

func TestTruncated(t *testing.T) {
	r := newRepo(t)
	buildFixture(r)
	ix := build(t, r, 3)
	if !ix.Truncated || len(ix.Commits) != 3 {
		t.Fatalf("Truncated=%v with %d commits", ix.Truncated, len(ix.Commits))
	}
	// The three newest commits by date, like git rev-list -n 3.
	want := strings.Fields(r.Git("rev-list", "-n", "3", "HEAD"))
	for i, c := range ix.Commits {
		if c.SHA != want[i] {
			t.Errorf("commit %d = %s, want %s", i, c.SHA, want[i])
		}
	}
	revs := len(strings.Fields(r.Git("rev-list", "HEAD")))
	if ix := build(t, r, revs); ix.Truncated {
		t.Error("Truncated with exactly max commits")
	}
}

func TestShallow(t *testing.T) {
	src := newRepo(t)
	buildFixture(src)
	r := &repo{&gittest.Repo{TB: t, Dir: t.TempDir()}}
	r.Git("clone", "-q", "--depth", "3", "file://"+src.Dir, r.Dir)
	ix := build(t, r, 0)
	if !ix.Shallow {
		t.Error("Shallow not set")
	}
	// git treats the shallow boundary as root commits; so do we.
	checkOracle(t, r, ix)
	// Boundary commits are not cached, nor is the walk logged: a later
	// unshallow changes them (the head stays the same).
	if logs, _ := filepath.Glob(filepath.Join(r.GitDir(), "kontext", "cache", "commits", logPrefix+"*")); len(logs) != 0 {
		t.Errorf("a shallow walk was logged: %v", logs)
	}
	n := diffCount.Load()
	build(t, r, 0)
	if d := diffCount.Load() - n; d == 0 {
		t.Error("shallow boundary commits were cached")
	}
	// A merge on the shallow boundary is a root to git too.
	r8 := &repo{&gittest.Repo{TB: t, Dir: t.TempDir()}}
	r8.Git("clone", "-q", "--depth", "8", "file://"+src.Dir, r8.Dir)
	if got := r8.Git("log", "-1", "--format=%s", r8.Git("rev-parse", "HEAD~7")); got != "octopus" {
		t.Fatalf("boundary is %q, not the octopus merge", got)
	}
	checkOracle(t, r8, build(t, r8, 0))

	r.Git("fetch", "-q", "--unshallow")
	ix = build(t, r, 0)
	if ix.Shallow {
		t.Error("still Shallow after unshallow")
	}
	checkOracle(t, r, ix)
}

func TestNoCommits(t *testing.T) {
	r := newRepo(t)
	st := gittest.Storage(t, r.GitDir())
	if _, err := Build(context.Background(), st, r.GitDir(), "", 0); !errors.Is(err, ErrNoCommits) {
		t.Errorf("empty head: %v", err)
	}
	if _, err := Build(context.Background(), st, r.GitDir(), strings.Repeat("1", 40), 0); !errors.Is(err, ErrNoCommits) {
		t.Errorf("missing head: %v", err)
	}
	if _, err := Build(context.Background(), st, r.GitDir(), "HEAD", 0); err == nil || errors.Is(err, ErrNoCommits) {
		t.Errorf("non-sha head: %v", err)
	}
}

func TestSince(t *testing.T) {
	r := newRepo(t)
	r.Write("a", "1")
	c1 := r.Commit("c1")
	r.Git("checkout", "-q", "-b", "side")
	r.Write("s", "1")
	s1 := r.Commit("s1")
	r.Write("s", "2")
	s2 := r.Commit("s2")
	r.Git("checkout", "-q", "main")
	r.Write("a", "2")
	m1 := r.Commit("m1") // the look
	r.Merge("merge side", "side")
	r.Write("a", "3")
	m2 := r.Commit("m2")
	ix := build(t, r, 0)

	shas := func(cs []*Commit) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.SHA)
		}
		sort.Strings(out)
		return out
	}
	sorted := func(s ...string) []string { sort.Strings(s); return s }
	if got, want := shas(ix.Since(m1)), sorted(m2, s2, s1); !reflect.DeepEqual(got, want) {
		t.Errorf("Since(m1) = %v, want %v", got, want)
	}
	if got, want := shas(ix.Since(s2)), sorted(m2, m1); !reflect.DeepEqual(got, want) {
		t.Errorf("Since(s2) = %v, want %v", got, want)
	}
	if got, want := shas(ix.Since("")), sorted(m2, m1, s2, s1, c1); !reflect.DeepEqual(got, want) {
		t.Errorf("Since(\"\") = %v, want %v", got, want)
	}
	if got := ix.Since(m2); len(got) != 0 {
		t.Errorf("Since(head) = %v", shas(got))
	}
	// Newest first.
	if got := ix.Since(m1); got[0].SHA != m2 {
		t.Errorf("Since(m1)[0] = %s, want m2", got[0].Subject)
	}
	// Against git itself.
	want := strings.Fields(r.Git("rev-list", "--no-merges", "HEAD", "^"+m1))
	if got := shas(ix.Since(m1)); !reflect.DeepEqual(got, sorted(want...)) {
		t.Errorf("Since(m1) = %v, rev-list %v", got, want)
	}
}

func TestContextCancelled(t *testing.T) {
	r := newRepo(t)
	r.Write("a", "1")
	r.Commit("c1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, gittest.Storage(t, r.GitDir()), r.GitDir(), r.Git("rev-parse", "HEAD"), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestPacked runs the oracle on packed history: the pack reader (deltas,
// the idx lookup) and, after more commits, packs and loose objects mixed.
func TestPacked(t *testing.T) {
	r := newRepo(t)
	buildFixture(r)
	r.Git("repack", "-a", "-d", "-q", "--depth=50", "--window=50")
	checkOracle(t, r, build(t, r, 0))
	r.Write("dir/b2.txt", "after the repack\n")
	r.Commit("loose after pack")
	os.RemoveAll(filepath.Join(r.GitDir(), "kontext"))
	checkOracle(t, r, build(t, r, 0))
}

// TestGeneratedRepoMatchesGitLog checks the benchmark's repository shape
// (fast-import, merges every ~50 commits, repacked) against the oracle.
func TestGeneratedRepoMatchesGitLog(t *testing.T) {
	r := genRepo(t, 160)
	ix := build(t, r, 0)
	checkOracle(t, r, ix)
	merges := 0
	for _, c := range ix.Commits {
		if c.Merge {
			merges++
		}
	}
	if len(ix.Commits) != 160 || merges < 2 {
		t.Errorf("%d commits, %d merges", len(ix.Commits), merges)
	}
}

// TestConcurrentBuilds runs builds side by side on one cache directory, as
// concurrent processes would.
func TestConcurrentBuilds(t *testing.T) {
	r := newRepo(t)
	buildFixture(r)
	head := r.Git("rev-parse", "HEAD")
	want := r.oracle()
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		go func() {
			ix, err := Build(context.Background(), gittest.Storage(t, r.GitDir()), r.GitDir(), head, 0)
			if err == nil {
				for _, c := range ix.Commits {
					if !c.Merge && !reflect.DeepEqual(c.Paths, want[c.SHA]) {
						err = errors.New("paths differ for " + c.SHA)
						break
					}
				}
			}
			errs <- err
		}()
	}
	for i := 0; i < 6; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	checkOracle(t, r, build(t, r, 0))
}

// TestWalkLogMatchesFreshBuilds: across random commits, branches, merges,
// switches and resets, and three limits, every build with the cache (its
// segments and walk logs) equals a build with no cache at all.
func TestWalkLogMatchesFreshBuilds(t *testing.T) {
	r := newRepo(t)
	buildFixture(r)
	cache := filepath.Join(r.GitDir(), "kontext", "cache", "commits")
	aside := filepath.Join(t.TempDir(), "cache")
	fresh := func(max int) *Index {
		t.Helper()
		if err := os.Rename(cache, aside); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		ix := build(t, r, max)
		if err := os.RemoveAll(cache); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(aside, cache); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return ix
	}
	rng := rand.New(rand.NewPCG(13, 1))
	branches := []string{"main"}
	cur := "main"
	for step := 0; step < 30; step++ {
		switch op := rng.IntN(10); {
		case op < 4:
			r.Write(fmt.Sprintf("%s/f%d.txt", cur, rng.IntN(4)), strconv.Itoa(step))
			r.Commit(fmt.Sprintf("step %d on %s", step, cur))
		case op < 5:
			cur = fmt.Sprintf("b%d", step)
			r.Git("checkout", "-q", "-b", cur)
			branches = append(branches, cur)
		case op < 7:
			cur = branches[rng.IntN(len(branches))]
			r.Git("checkout", "-q", cur)
		case op < 9:
			if other := branches[rng.IntN(len(branches))]; other != cur {
				r.Merge(fmt.Sprintf("merge %s into %s", other, cur), other)
			}
		default:
			if strings.Contains(r.Git("log", "-1", "--format=%P"), " ") || r.Git("rev-list", "--count", "HEAD") == "1" {
				continue // keep merges and the root: only a plain commit is dropped
			}
			r.Git("reset", "-q", "--hard", "HEAD~1")
		}
		for _, max := range []int{0, 3, 7} {
			got, again, want := build(t, r, max), build(t, r, max), fresh(max)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(again, want) {
				t.Fatalf("step %d, limit %d: a build with the cache differs from one without", step, max)
			}
			if max == 0 {
				checkOracle(t, r, got)
			}
		}
	}
	if logs, _ := filepath.Glob(filepath.Join(cache, logPrefix+"*")); len(logs) == 0 {
		t.Error("no walk was logged")
	}
}
