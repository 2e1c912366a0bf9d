package gitrepo

import (
	"container/heap"
	"context"
	"errors"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/internal/git"
)

// graph reads commits' parents and committer times for ancestry walks.
// Shallow boundary commits are parentless, like git treats them; missing
// parents (a shallow or partial clone) are skipped.
type graph struct {
	r       *Repo
	nodes   map[plumbing.Hash]*gnode
	shallow map[plumbing.Hash]bool
}

type gnode struct {
	hash    plumbing.Hash
	time    int64
	parents []plumbing.Hash
	flags   uint8
}

const (
	flagA uint8 = 1 << iota
	flagB
	flagStale
	flagResult
)

func (r *Repo) newGraph() (*graph, error) {
	g := &graph{r: r, nodes: map[plumbing.Hash]*gnode{}}
	shallow, err := git.Shallow(r.gitDir)
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading the shallow list")
	}
	g.shallow = shallow
	return g, nil
}

// node returns the commit h; nil (no error) when the object is missing.
func (g *graph) node(h plumbing.Hash) (*gnode, error) {
	if n, ok := g.nodes[h]; ok {
		return n, nil
	}
	c, err := g.r.commit(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading commit %s", h)
	}
	n := &gnode{hash: h, time: c.Time}
	if !g.shallow[h] {
		n.parents = c.Parents
	}
	g.nodes[h] = n
	return n, nil
}

// gqueue is a max-heap by committer time, then sha (deterministic).
type gqueue []*gnode

func (q gqueue) Len() int { return len(q) }
func (q gqueue) Less(i, j int) bool {
	if q[i].time != q[j].time {
		return q[i].time > q[j].time
	}
	return q[i].hash.String() > q[j].hash.String()
}
func (q gqueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *gqueue) Push(x any)   { *q = append(*q, x.(*gnode)) }
func (q *gqueue) Pop() any {
	old := *q
	n := old[len(old)-1]
	*q = old[:len(old)-1]
	return n
}

func (q gqueue) hasNonStale() bool {
	for _, n := range q {
		if n.flags&flagStale == 0 {
			return true
		}
	}
	return false
}

// MergeBase returns the best common ancestor of commits a and b (full or
// resolvable revisions), "" when they share no history. Among several best
// ones (criss-cross merges) the newest by committer time wins, then the
// greatest sha.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	ha, err := r.Resolve(ctx, a)
	if err != nil {
		return "", err
	}
	hb, err := r.Resolve(ctx, b)
	if err != nil {
		return "", err
	}
	if ha == hb {
		return ha, nil
	}
	g, err := r.newGraph()
	if err != nil {
		return "", err
	}
	na, err := g.node(plumbing.NewHash(ha))
	if err != nil {
		return "", err
	}
	nb, err := g.node(plumbing.NewHash(hb))
	if err != nil {
		return "", err
	}
	if na == nil || nb == nil {
		return "", nil
	}
	// git's paint-down-to-common: paint ancestors of a and of b; a commit
	// painted by both is a candidate and its ancestors are stale.
	na.flags |= flagA
	nb.flags |= flagB
	q := &gqueue{na, nb}
	heap.Init(q)
	var results []*gnode
	for steps := 0; q.hasNonStale(); steps++ {
		if steps%256 == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		n := heap.Pop(q).(*gnode)
		flags := n.flags & (flagA | flagB | flagStale)
		if flags == flagA|flagB {
			if n.flags&flagResult == 0 {
				n.flags |= flagResult
				results = append(results, n)
			}
			flags |= flagStale
		}
		for _, ph := range n.parents {
			p, err := g.node(ph)
			if err != nil {
				return "", err
			}
			if p == nil || p.flags&flags == flags {
				continue
			}
			p.flags |= flags
			heap.Push(q, p)
		}
	}
	// Drop candidates that are ancestors of other candidates (clock skew
	// can let the walk find them), then pick deterministically.
	var best *gnode
	for _, c := range results {
		if len(results) > 1 {
			redundant, err := g.reachableFromAny(ctx, c, results)
			if err != nil {
				return "", err
			}
			if redundant {
				continue
			}
		}
		if best == nil || c.time > best.time || c.time == best.time && c.hash.String() > best.hash.String() {
			best = c
		}
	}
	if best == nil {
		return "", nil
	}
	return best.hash.String(), nil
}

// reachableFromAny reports whether target is a proper ancestor of any of
// the other commits in from.
func (g *graph) reachableFromAny(ctx context.Context, target *gnode, from []*gnode) (bool, error) {
	seen := map[plumbing.Hash]bool{}
	var stack []plumbing.Hash
	for _, f := range from {
		if f != target {
			stack = append(stack, f.parents...)
		}
	}
	for len(stack) > 0 {
		if len(seen)%256 == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h == target.hash {
			return true, nil
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		n, err := g.node(h)
		if err != nil {
			return false, err
		}
		if n != nil {
			stack = append(stack, n.parents...)
		}
	}
	return false, nil
}

// DefaultBase finds HEAD's drift base when none is given (spec 04,
// entries.drift): the merge base of HEAD with origin/HEAD (origin-head),
// else origin/main or origin/master (origin-main), else the current
// branch's upstream (upstream), else the default branch of
// checkout.defaultRemote (default-remote); else no base (fallback-none)
// with a warning saying why. A candidate ref that shares no history with
// HEAD is passed over.
func (r *Repo) DefaultBase(ctx context.Context) (engine.Base, error) {
	head, err := r.Head(ctx)
	if err != nil {
		return engine.Base{}, err
	}
	if head == "" {
		return engine.Base{Source: "fallback-none", Warning: "no drift base: the repository has no commits yet"}, nil
	}
	cfg, err := r.readConfig()
	if err != nil {
		return engine.Base{}, err
	}
	var tried []string
	try := func(ref, source string) (engine.Base, bool, error) {
		tip, ok, err := r.refCommit(ref)
		if err != nil || !ok {
			return engine.Base{}, false, err
		}
		tried = append(tried, ref)
		mb, err := r.MergeBase(ctx, head, tip)
		if err != nil || mb == "" {
			return engine.Base{}, false, err
		}
		return engine.Base{SHA: mb, Source: source}, true, nil
	}
	type cand struct{ ref, source string }
	cands := []cand{
		{"refs/remotes/origin/HEAD", "origin-head"},
		{"refs/remotes/origin/main", "origin-main"},
		{"refs/remotes/origin/master", "origin-main"},
	}
	branch, err := r.Branch()
	if err != nil {
		return engine.Base{}, err
	}
	if branch != "" {
		if up := upstreamRef(cfg.Section("branch").Subsection(branch).Option("remote"), cfg.Section("branch").Subsection(branch).Option("merge")); up != "" {
			cands = append(cands, cand{up, "upstream"})
		}
	}
	if dr := cfg.Section("checkout").Option("defaultRemote"); dr != "" && validRefPart(dr) {
		for _, b := range []string{"HEAD", "main", "master"} {
			cands = append(cands, cand{"refs/remotes/" + dr + "/" + b, "default-remote"})
		}
	}
	for _, c := range cands {
		b, ok, err := try(c.ref, c.source)
		if err != nil {
			return engine.Base{}, err
		}
		if ok {
			return b, nil
		}
	}
	return engine.Base{Source: "fallback-none", Warning: r.noBaseWarning(cfg, branch, tried)}, nil
}

// upstreamRef maps branch.<name>.remote/merge to the ref holding the
// upstream's tip: refs/remotes/<remote>/<branch>, or the local branch
// itself when remote is ".".
func upstreamRef(remote, merge string) string {
	if remote == "" || merge == "" {
		return ""
	}
	if remote == "." {
		if strings.HasPrefix(merge, "refs/") {
			return merge
		}
		return "refs/heads/" + merge
	}
	if !validRefPart(remote) {
		return ""
	}
	b := strings.TrimPrefix(merge, "refs/heads/")
	return "refs/remotes/" + remote + "/" + b
}

func validRefPart(s string) bool {
	return s != "" && !strings.Contains(s, "..") && !strings.ContainsAny(s, " \t\n\x00:\\*?[~^") && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "-")
}

// noBaseWarning explains why no drift base was found.
func (r *Repo) noBaseWarning(cfg *config.Config, branch string, tried []string) string {
	var why []string
	hasRemoteRefs, _ := r.refs.HasPrefix("refs/remotes/")
	hs, _ := git.Shallow(r.gitDir)
	shallow := len(hs) > 0
	switch {
	case len(tried) > 0 && shallow:
		why = append(why, "a shallow clone: HEAD shares no fetched history with "+strings.Join(tried, ", ")+" (deepen the clone, e.g. git fetch --unshallow)")
	case len(tried) > 0:
		why = append(why, "HEAD shares no history with "+strings.Join(tried, ", "))
	case !cfg.HasSection("remote") && !hasRemoteRefs:
		why = append(why, "the repository has no remote")
	case shallow:
		why = append(why, "a shallow clone without the remote's default branch (fetch origin/main or origin/HEAD)")
	default:
		why = append(why, "no origin/HEAD, origin/main, origin/master, upstream or checkout.defaultRemote branch")
	}
	if branch == "" {
		why = append(why, "HEAD is detached, so it has no upstream")
	}
	return "no drift base: " + strings.Join(why, "; ") + "; pass base explicitly (e.g. base: \"main\")"
}
