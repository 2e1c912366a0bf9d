package gitrepo

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native/internal/git"
)

// Uncommitted lists, sorted, the worktree paths `git status` would show:
// staged changes (index vs HEAD), unstaged changes and deletions (worktree
// vs index; a file is hashed only when its size or mtime differ from the
// index entry, or it is racily clean) and untracked files that no
// .gitignore (at any level) or .git/info/exclude ignores. The global
// excludes file is deliberately not read. An untracked nested repository
// is listed as "dir/", like git does; submodules are not inspected.
func (r *Repo) Uncommitted(ctx context.Context) ([]string, error) {
	return engine.MemoUncommitted(ctx, func() ([]string, error) { return r.uncommitted(ctx) })
}

func (r *Repo) uncommitted(ctx context.Context) ([]string, error) {
	if out, err := r.uncommittedFast(ctx); !errors.Is(err, errNoFastStatus) {
		return out, err
	}
	return r.uncommittedGoGit(ctx)
}

// uncommittedGoGit is uncommitted through go-git's index decoder: for
// what the status scan does not read (status.go) and as its reference in
// tests.
func (r *Repo) uncommittedGoGit(ctx context.Context) ([]string, error) {
	idx, err := r.readIndex()
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading the git index")
	}
	// When git's cached tree of the index (the TREE extension, which git
	// keeps valid after a commit) covers every entry and is HEAD's tree,
	// the index equals HEAD: no staged change, and HEAD's tree need not be
	// flattened (on a big repository most of the cost of this call).
	same, err := r.indexIsHead(idx)
	if err != nil {
		return nil, err
	}
	var head map[string]headFile
	if !same {
		if head, err = r.headFiles(ctx); err != nil {
			return nil, err
		}
	}
	changed := map[string]bool{}
	tracked := make(map[string]*index.Entry, len(idx.Entries))
	for _, e := range idx.Entries {
		tracked[e.Name] = e
	}
	// The untracked walk (listing every directory) runs beside the stat
	// pass over the tracked files: both only read.
	untracked := map[string]bool{}
	walked := make(chan error, 1)
	go func() { walked <- r.untracked(ctx, tracked, untracked) }()
	var indexTime int64
	if fi, err := os.Stat(filepath.Join(r.gitDir, "index")); err == nil {
		indexTime = fi.ModTime().UnixNano()
	}
	for i, e := range idx.Entries {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				<-walked
				return nil, err
			}
		}
		if e.Stage != 0 || e.IntentToAdd { // go-git's index.Merged is 1, a decoded normal entry 0
			changed[e.Name] = true // conflicted or intent-to-add
			continue
		}
		if !same {
			if h, ok := head[e.Name]; !ok || h.hash != e.Hash || h.mode != e.Mode {
				changed[e.Name] = true // staged
			}
		}
		if e.SkipWorktree || e.Mode == filemode.Submodule {
			continue
		}
		dirty, err := r.worktreeDiffers(e, indexTime)
		if err != nil {
			<-walked
			return nil, err
		}
		if dirty {
			changed[e.Name] = true
		}
	}
	for p := range head {
		if _, ok := tracked[p]; !ok {
			changed[p] = true // staged deletion
		}
	}
	if err := <-walked; err != nil {
		return nil, err
	}
	for p := range untracked {
		changed[p] = true
	}
	out := make([]string, 0, len(changed))
	for p := range changed {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// readIndex decodes the worktree's git index with go-git's codec (every
// entry and extension); a missing index is an empty one.
func (r *Repo) readIndex() (*index.Index, error) {
	idx := &index.Index{Version: 2}
	f, err := os.Open(filepath.Join(r.gitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return idx, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := index.NewDecoder(bufio.NewReader(f)).Decode(idx); err != nil {
		return nil, err
	}
	return idx, nil
}

// indexIsHead reports whether the index's cached tree is valid for the
// whole index and equals HEAD's tree (false whenever it cannot tell).
func (r *Repo) indexIsHead(idx *index.Index) (bool, error) {
	if idx.Cache == nil || len(idx.Cache.Entries) == 0 {
		return false, nil
	}
	root := idx.Cache.Entries[0]
	// An invalidated root is not decoded: the first entry is then a
	// subdirectory's, whose path is not "".
	if root.Path != "" || root.Entries != len(idx.Entries) {
		return false, nil
	}
	return r.treeIsHead(root.Hash)
}

// treeIsHead reports whether tree is HEAD's tree (false before the first
// commit).
func (r *Repo) treeIsHead(tree plumbing.Hash) (bool, error) {
	headID, err := r.refs.Resolve("HEAD")
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return false, nil
	}
	if err != nil {
		return false, apierr.Wrap(apierr.OperationFailed, err, "reading HEAD")
	}
	c, err := r.commit(headID)
	if err != nil {
		return false, apierr.Wrap(apierr.OperationFailed, err, "reading the HEAD commit")
	}
	return c.Tree == tree, nil
}

type headFile struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// headFiles flattens HEAD's tree (empty before the first commit).
func (r *Repo) headFiles(ctx context.Context) (map[string]headFile, error) {
	out := map[string]headFile{}
	headID, err := r.refs.Resolve("HEAD")
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading HEAD")
	}
	c, err := r.commit(headID)
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading the HEAD commit")
	}
	var walk func(h plumbing.Hash, prefix string) error
	walk = func(h plumbing.Hash, prefix string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := r.tree(h)
		if err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "reading the HEAD tree")
		}
		for _, e := range t.Entries {
			p := prefix + e.Name
			if e.Mode == filemode.Dir {
				if err := walk(e.Hash, p+"/"); err != nil {
					return err
				}
				continue
			}
			out[p] = headFile{hash: e.Hash, mode: e.Mode}
		}
		return nil
	}
	if err := walk(c.Tree, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// worktreeDiffers compares a tracked file with its index entry: stat data
// first, content only when the stat data differ or the entry is racily
// clean (the file changed in the second the index was written).
func (r *Repo) worktreeDiffers(e *index.Entry, indexTime int64) (bool, error) {
	return r.fileDiffers(e.Name, e.Mode, e.Size, e.ModifiedAt.UnixNano(), e.Hash, indexTime)
}

// fileDiffers is worktreeDiffers for the file name whose index entry has
// mode, size, mtime (nanoseconds) and hash.
func (r *Repo) fileDiffers(name string, emode filemode.FileMode, size uint32, emtime int64, hash plumbing.Hash, indexTime int64) (bool, error) {
	p := filepath.Join(r.root, filepath.FromSlash(name))
	fi, err := os.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return true, nil // deleted
		}
		return false, apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
	}
	mode, err := filemode.NewFromOSFileMode(fi.Mode())
	if err != nil || fi.IsDir() {
		return true, nil // replaced by a directory or something odd
	}
	if mode != emode {
		// git (core.fileMode=true) reports an executable bit change; a
		// file turned symlink or back is a change too.
		return true, nil
	}
	mtime := fi.ModTime().UnixNano()
	if statClean(uint32(fi.Size()), mtime, size, emtime, indexTime) {
		return false, nil
	}
	h, err := hashWorktreeFile(p, fi)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return true, nil
		}
		return false, apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
	}
	return h != hash, nil
}

// statClean: a file whose size and mtime equal its index entry's is
// unchanged, unless it is racily clean (modified no earlier than the index
// was written, so a change in the same tick would not show).
func statClean(size uint32, mtime int64, esize uint32, emtime, indexTime int64) bool {
	return size == esize && mtime == emtime && (indexTime == 0 || mtime < indexTime)
}

// hashWorktreeFile returns the blob id of a file (a symlink's target for a
// symlink).
func hashWorktreeFile(p string, fi os.FileInfo) (plumbing.Hash, error) {
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return plumbing.ComputeHash(plumbing.BlobObject, []byte(filepath.ToSlash(target))), nil
	}
	f, err := os.Open(p)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := plumbing.NewHasher(plumbing.BlobObject, fi.Size())
	if _, err := io.Copy(h, f); err != nil {
		return plumbing.ZeroHash, err
	}
	return h.Sum(), nil
}

// untracked walks the worktree and adds files that are neither tracked nor
// ignored to out. Ignored directories are not descended into, like git.
func (r *Repo) untracked(ctx context.Context, tracked map[string]*index.Entry, out map[string]bool) error {
	// Directories that hold tracked files: an untracked directory without
	// any can be a nested repository.
	trackedDirs := map[string]bool{}
	for name := range tracked {
		for d := name; ; {
			i := strings.LastIndexByte(d, '/')
			if i < 0 {
				break
			}
			d = d[:i]
			if trackedDirs[d] {
				break
			}
			trackedDirs[d] = true
		}
	}
	patterns := readPatternFile(filepath.Join(git.CommonDir(r.gitDir), "info", "exclude"), nil)
	var walk func(dir string, parts []string, patterns []gitignore.Pattern) error
	walk = func(dir string, parts []string, patterns []gitignore.Pattern) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		abs := filepath.Join(r.root, filepath.FromSlash(dir))
		ents, err := os.ReadDir(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return apierr.Wrap(apierr.OperationFailed, err, "listing %s", dir)
		}
		// Only a directory whose listing has a .gitignore is asked for one:
		// on a big tree the failed opens cost more than the listing.
		for _, de := range ents {
			if de.Name() == ".gitignore" && !de.IsDir() {
				patterns = append(patterns[:len(patterns):len(patterns)], readPatternFile(filepath.Join(abs, ".gitignore"), parts)...)
				break
			}
		}
		m := gitignore.NewMatcher(patterns)
		for _, de := range ents {
			name := de.Name()
			if name == ".git" {
				continue
			}
			rel := name
			if dir != "" {
				rel = dir + "/" + name
			}
			sub := append(parts[:len(parts):len(parts)], name)
			if de.IsDir() {
				if e, ok := tracked[rel]; ok && e.Mode == filemode.Submodule {
					continue
				}
				if !trackedDirs[rel] && m.Match(sub, true) {
					continue
				}
				if !trackedDirs[rel] {
					if _, err := os.Lstat(filepath.Join(abs, name, ".git")); err == nil {
						out[rel+"/"] = true // an untracked nested repository
						continue
					}
				}
				if err := walk(rel, sub, patterns); err != nil {
					return err
				}
				continue
			}
			if _, ok := tracked[rel]; ok {
				continue
			}
			if !m.Match(sub, false) {
				out[rel] = true
			}
		}
		return nil
	}
	return walk("", nil, patterns)
}

// readPatternFile parses a gitignore-format file; a missing file has no
// patterns.
func readPatternFile(p string, domain []string) []gitignore.Pattern {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
