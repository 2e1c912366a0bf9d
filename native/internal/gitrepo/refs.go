package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/internal/git"
)

// revHint is appended to every "unknown revision" message.
const revHint = "pass a commit sha (at least 4 hex digits), a branch, a tag, a remote branch like origin/main, or HEAD~N"

// Resolve resolves rev to a full commit sha, like
// `git rev-parse --verify <rev>^{commit}`: a full or unique abbreviated
// sha, HEAD, a branch, tag, remote branch or full ref name, each
// optionally followed by ~N, ^N and ^{commit} suffixes. Tags are peeled.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.Contains(rev, "..") || strings.ContainsAny(rev, " \t\r\n\x00:\\*?[") {
		return "", apierr.Invalid("invalid revision %q: %s", rev, revHint)
	}
	base, suffix := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		base, suffix = rev[:i], rev[i:]
	}
	if base == "" || base == "@" {
		base = "HEAD"
	}
	if at := strings.Index(base, "@{"); at >= 0 {
		up, err := r.upstreamOf(rev, base[:at], base[at:])
		if err != nil {
			return "", err
		}
		base = up
	}
	h, err := r.resolveBase(base)
	if err != nil {
		return "", err
	}
	ch, c, err := r.peelToCommit(h)
	if err != nil {
		return "", revError(rev, err)
	}
	for suffix != "" {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		op := suffix[0]
		suffix = suffix[1:]
		if op == '^' && strings.HasPrefix(suffix, "{") {
			end := strings.IndexByte(suffix, '}')
			if end < 0 {
				return "", apierr.Invalid("invalid revision %q: %s", rev, revHint)
			}
			switch suffix[1:end] {
			case "", "commit":
			default:
				return "", apierr.Invalid("invalid revision %q: only ^{commit} is supported; %s", rev, revHint)
			}
			suffix = suffix[end+1:]
			continue
		}
		j := 0
		for j < len(suffix) && suffix[j] >= '0' && suffix[j] <= '9' {
			j++
		}
		n := 1
		if j > 0 {
			v, err := strconv.Atoi(suffix[:j])
			if err != nil {
				return "", apierr.Invalid("invalid revision %q: %s", rev, revHint)
			}
			n = v
		}
		suffix = suffix[j:]
		switch op {
		case '~':
			for ; n > 0; n-- {
				if len(c.Parents) == 0 {
					return "", apierr.Invalid("invalid revision %q: %s has no parent; %s", rev, ch, revHint)
				}
				ch = c.Parents[0]
				if c, err = r.commit(ch); err != nil {
					return "", revError(rev, err)
				}
			}
		case '^':
			if n == 0 {
				continue
			}
			if n > len(c.Parents) {
				return "", apierr.Invalid("invalid revision %q: %s has no parent %d; %s", rev, ch, n, revHint)
			}
			ch = c.Parents[n-1]
			if c, err = r.commit(ch); err != nil {
				return "", revError(rev, err)
			}
		}
	}
	return ch.String(), nil
}

func revError(rev string, err error) error {
	if errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, errNotCommit) {
		return apierr.Invalid("invalid revision %q: %v; %s", rev, err, revHint)
	}
	return apierr.Wrap(apierr.OperationFailed, err, "resolving %q", rev)
}

// resolveBase resolves a revision without suffixes to an object id, in
// git's order: a full sha, then refs (git's dwim rules), then a unique
// abbreviated sha.
func (r *Repo) resolveBase(base string) (plumbing.Hash, error) {
	if len(base) == 40 && isHex(base) {
		return plumbing.NewHash(base), nil
	}
	for _, name := range refCandidates(base) {
		h, err := r.refs.Resolve(name)
		if err == nil {
			return h, nil
		}
		if !errors.Is(err, plumbing.ErrReferenceNotFound) {
			return plumbing.ZeroHash, apierr.Wrap(apierr.OperationFailed, err, "reading ref %s", name)
		}
	}
	if len(base) >= 4 && len(base) < 40 && isHex(base) {
		return r.resolveShort(strings.ToLower(base))
	}
	return plumbing.ZeroHash, apierr.Invalid("unknown revision %q: %s", base, revHint)
}

// refCandidates are git's dwim rules (git help revisions).
func refCandidates(name string) []string {
	if strings.HasPrefix(name, "refs/") {
		return []string{name}
	}
	var out []string
	if strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == "" {
		out = append(out, name) // HEAD, FETCH_HEAD, ORIG_HEAD, …
	}
	return append(out, "refs/"+name, "refs/tags/"+name, "refs/heads/"+name, "refs/remotes/"+name, "refs/remotes/"+name+"/HEAD")
}

// resolveShort resolves a unique abbreviated sha. When several objects
// share the prefix but exactly one of them is a commit (or a tag of one),
// that one wins, like git's committish disambiguation.
func (r *Repo) resolveShort(short string) (plumbing.Hash, error) {
	hs, err := r.objs.HashesWithPrefix(short)
	if err != nil {
		return plumbing.ZeroHash, apierr.Wrap(apierr.OperationFailed, err, "looking up %s", short)
	}
	var all, commits []string
	seen := map[plumbing.Hash]bool{}
	for _, h := range hs {
		if seen[h] {
			continue
		}
		seen[h] = true
		all = append(all, h.String())
		if _, _, err := r.peelToCommit(h); err == nil {
			commits = append(commits, h.String())
		}
	}
	slices.Sort(all)
	slices.Sort(commits)
	switch {
	case len(all) == 1:
		return plumbing.NewHash(all[0]), nil
	case len(commits) == 1:
		return plumbing.NewHash(commits[0]), nil
	case len(all) == 0:
		return plumbing.ZeroHash, apierr.Invalid("unknown revision %q: %s", short, revHint)
	}
	cands := commits
	if len(cands) == 0 {
		cands = all
	}
	return plumbing.ZeroHash, apierr.Invalid("ambiguous revision %q: it matches %s; pass more hex digits", short, strings.Join(cands, ", "))
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// RefTip returns the commit a full ref name (refs/…) points at, following
// symbolic refs and peeling tags.
func (r *Repo) RefTip(ctx context.Context, ref string) (string, error) {
	if !strings.HasPrefix(ref, "refs/") || strings.HasPrefix(ref, "-") {
		return "", apierr.Invalid("%q is not a full ref name: pass one starting with refs/, like refs/heads/main", ref)
	}
	h, ok, err := r.refCommit(ref)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", apierr.New(apierr.NotFound, "ref %s does not exist", ref)
	}
	return h, nil
}

// refCommit returns the commit a full ref points at; ok is false when the
// ref does not exist.
func (r *Repo) refCommit(name string) (string, bool, error) {
	h, err := r.refs.Resolve(name)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, apierr.Wrap(apierr.OperationFailed, err, "reading ref %s", name)
	}
	ch, _, err := r.peelToCommit(h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return "", false, nil // dangling ref (e.g. a broken shallow fetch)
	}
	if err != nil {
		return "", false, apierr.Wrap(apierr.OperationFailed, err, "reading ref %s", name)
	}
	return ch.String(), true, nil
}

// readConfig parses the repository's own config file (never the global or
// system one); a missing file is an empty config.
func (r *Repo) readConfig() (*config.Config, error) {
	cfg := config.New()
	f, err := os.Open(filepath.Join(git.CommonDir(r.gitDir), "config"))
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading the git config")
	}
	defer f.Close()
	if err := config.NewDecoder(f).Decode(cfg); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "parsing the git config")
	}
	return cfg, nil
}

// upstreamOf resolves branch@{upstream} (also @{u}, any case; an empty
// branch is the current one) to the full ref name of the upstream's tip,
// the way git reads it from branch.<name>.remote and .merge. Reflog forms
// (@{1}, @{-1}, @{yesterday}) and @{push} are not read: they are refused
// with a hint rather than answered wrongly.
func (r *Repo) upstreamOf(rev, branch, at string) (string, error) {
	switch strings.ToLower(at) {
	case "@{u}", "@{upstream}":
	default:
		return "", apierr.Invalid("invalid revision %q: only @{upstream} (@{u}) is supported after @; %s", rev, revHint)
	}
	if branch == "" || branch == "HEAD" {
		b, err := r.Branch()
		if err != nil {
			return "", err
		}
		if b == "" {
			return "", apierr.Invalid("invalid revision %q: HEAD is detached, so it has no upstream; %s", rev, revHint)
		}
		branch = b
	}
	branch = strings.TrimPrefix(branch, "refs/heads/")
	if _, err := r.refs.Resolve("refs/heads/" + branch); err != nil {
		return "", apierr.Invalid("invalid revision %q: no branch %q; %s", rev, branch, revHint)
	}
	cfg, err := r.readConfig()
	if err != nil {
		return "", err
	}
	sub := cfg.Section("branch").Subsection(branch)
	up := upstreamRef(sub.Option("remote"), sub.Option("merge"))
	if up == "" {
		return "", apierr.Invalid("invalid revision %q: no upstream configured for branch %q (git branch --set-upstream-to); %s", rev, branch, revHint)
	}
	return up, nil
}
