package gitrepo

import (
	"context"
	"errors"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/internal/git"
)

// Tree returns the regular files (executable or not) below any of dirs
// in commit sha, with their blob ids and contents. "" (or ".") is the whole
// tree. Symlinks come as links (engine.TreeFile.Link) where want takes
// them or their name has no extension, and a dir that is a symlink is one;
// a dir that is a regular file is that file (when want takes it);
// submodules are skipped; a dir that does not exist contributes nothing.
// Only the subtrees below dirs are read.
func (r *Repo) Tree(ctx context.Context, sha string, dirs []string, want func(string) bool) (map[string]engine.TreeFile, error) {
	_, c, err := r.peelToCommit(plumbing.NewHash(sha))
	if len(sha) != 40 || !isHex(sha) || errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, errNotCommit) {
		return nil, apierr.Invalid("%q is not a commit of this repository: pass a full commit sha", sha)
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading commit %s", sha)
	}
	out := map[string]engine.TreeFile{}
	for _, d := range normalizeDirs(dirs) {
		root, err := r.tree(c.Tree)
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "reading the tree of %s", sha)
		}
		t := root
		if d != "" {
			e, err := r.objs.FindEntry(root, d)
			if errors.Is(err, git.ErrEntryNotFound) || errors.Is(err, git.ErrDirectoryNotFound) {
				continue
			}
			if err != nil {
				return nil, apierr.Wrap(apierr.OperationFailed, err, "looking up %s in %s", d, sha)
			}
			switch e.Mode {
			case filemode.Symlink:
				if err := r.link(e.Hash, d, out); err != nil {
					return nil, err
				}
				continue
			case filemode.Regular, filemode.Executable, filemode.Deprecated:
				// A source may name one file (.cursorrules), and a link
				// may point at one.
				if want == nil || want(d) {
					data, err := r.objs.Blob(e.Hash)
					if err != nil {
						return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s in %s", d, sha)
					}
					out[d] = engine.TreeFile{Blob: e.Hash.String(), Data: data}
				}
				continue
			case filemode.Dir:
			default:
				continue
			}
			if t, err = r.tree(e.Hash); err != nil {
				return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s in %s", d, sha)
			}
		}
		if err := r.collect(ctx, t, d, want, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// collect adds the regular files below tree t (at prefix) that want
// takes (nil: all) to out.
func (r *Repo) collect(ctx context.Context, t *git.Tree, prefix string, want func(string) bool, out map[string]engine.TreeFile) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, e := range t.Entries {
		p := e.Name
		if prefix != "" {
			p = prefix + "/" + e.Name
		}
		switch e.Mode {
		case filemode.Dir:
			sub, err := r.tree(e.Hash)
			if err != nil {
				return apierr.Wrap(apierr.OperationFailed, err, "reading tree %s", p)
			}
			if err := r.collect(ctx, sub, p, want, out); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			if want != nil && !want(p) {
				continue
			}
			data, err := r.objs.Blob(e.Hash)
			if err != nil {
				return apierr.Wrap(apierr.OperationFailed, err, "reading %s", p)
			}
			out[p] = engine.TreeFile{Blob: e.Hash.String(), Data: data}
		case filemode.Symlink:
			if (want == nil || want(p)) || path.Ext(e.Name) == "" {
				if err := r.link(e.Hash, p, out); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// link adds the symbolic link at p (its blob is the target) to out.
func (r *Repo) link(h plumbing.Hash, p string, out map[string]engine.TreeFile) error {
	data, err := r.objs.Blob(h)
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "reading %s", p)
	}
	out[p] = engine.TreeFile{Blob: h.String(), Data: data, Link: true}
	return nil
}

// normalizeDirs cleans dirs and drops those inside another one, so no
// subtree is read twice.
func normalizeDirs(dirs []string) []string {
	if len(dirs) == 0 {
		return nil
	}
	var ds []string
	for _, d := range dirs {
		d = strings.Trim(path.Clean("/"+strings.ReplaceAll(d, "\\", "/")), "/")
		if d == "" {
			return []string{""}
		}
		ds = append(ds, d)
	}
	sort.Strings(ds)
	var out []string
	for _, d := range ds {
		if n := len(out); n > 0 && (d == out[n-1] || strings.HasPrefix(d, out[n-1]+"/")) {
			continue
		}
		out = append(out, d)
	}
	return out
}
