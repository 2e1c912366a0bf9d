package git

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Side is one side of a changed path: its canonical mode and object id;
// the zero Side (Mode filemode.Empty) when the path is absent there.
type Side struct {
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// ChangeFunc receives one changed path: "/"-separated, unquoted, only
// valid during the call (copy it to keep it). A non-nil error stops the
// diff and is returned by Diff.
type ChangeFunc func(path []byte, from, to Side) error

// Differ compares trees the way `git diff-tree -r --no-renames` does: it
// merges the two trees' sorted entries, skips equal subtrees by hash
// without reading them and reports every changed non-directory path (a
// file, symlink or submodule) in git's tree order. A path whose type
// changes between a directory and a non-directory is two changes, the
// non-directory's and then each path below the directory, because git
// orders a directory as if its name ended in "/". A mode change alone
// (chmod, file ↔ symlink) is a change.
//
// A Differ reuses its buffers; it is not safe for concurrent use.
type Differ struct {
	objs *Objects
	ctx  context.Context
	fn   ChangeFunc
	path []byte // the directory being diffed, "/"-terminated
}

// NewDiffer returns a differ reading trees from objs.
func NewDiffer(objs *Objects) *Differ { return &Differ{objs: objs} }

// Diff reports the changes from tree from to tree to (either may be the
// zero hash: the empty tree) to fn. ctx is checked before each tree read.
func (d *Differ) Diff(ctx context.Context, from, to plumbing.Hash, fn ChangeFunc) error {
	d.ctx, d.fn, d.path = ctx, fn, d.path[:0]
	defer func() { d.ctx, d.fn = nil, nil }()
	return d.trees(from, to)
}

func (d *Differ) trees(x, y plumbing.Hash) error {
	if x == y {
		return nil
	}
	if err := d.ctx.Err(); err != nil {
		return err
	}
	xd, err := d.objs.RawTree(x)
	if err != nil {
		return err
	}
	yd, err := d.objs.RawTree(y)
	if err != nil {
		return err
	}
	var ex, ey RawEntry
	haveX, haveY := false, false
	for {
		if !haveX && !haveY {
			// Two trees of neighbouring commits share most entries byte
			// for byte (mode, name and id): skip those without parsing
			// them. Profiles of a long history put a quarter of the walk
			// in parsing entries that this comparison skips.
			xd, yd = skipEqual(xd, yd)
		}
		if !haveX && len(xd) > 0 {
			if ex, xd, err = NextEntry(xd); err != nil {
				return fmt.Errorf("tree %s: %w", x, err)
			}
			haveX = true
		}
		if !haveY && len(yd) > 0 {
			if ey, yd, err = NextEntry(yd); err != nil {
				return fmt.Errorf("tree %s: %w", y, err)
			}
			haveY = true
		}
		c := 0
		switch {
		case !haveX && !haveY:
			return nil
		case !haveY:
			c = -1
		case !haveX:
			c = 1
		default:
			c = compareNames(ex.Name, ex.Mode == filemode.Dir, ey.Name, ey.Mode == filemode.Dir)
		}
		switch {
		case c < 0:
			err = d.oneSide(&ex, true)
			haveX = false
		case c > 0:
			err = d.oneSide(&ey, false)
			haveY = false
		default:
			haveX, haveY = false, false
			if ex.Mode == filemode.Dir {
				err = d.sub(ex.Name, ex.Hash, ey.Hash)
			} else if ex.Hash != ey.Hash || ex.Mode != ey.Mode {
				err = d.emit(ex.Name, Side{ex.Mode, ex.Hash}, Side{ey.Mode, ey.Hash})
			}
		}
		if err != nil {
			return err
		}
	}
}

// oneSide reports an entry present in one tree only: a non-directory, or
// every path below a directory.
func (d *Differ) oneSide(e *RawEntry, old bool) error {
	switch {
	case e.Mode == filemode.Dir && old:
		return d.sub(e.Name, e.Hash, plumbing.ZeroHash)
	case e.Mode == filemode.Dir:
		return d.sub(e.Name, plumbing.ZeroHash, e.Hash)
	case old:
		return d.emit(e.Name, Side{e.Mode, e.Hash}, Side{})
	default:
		return d.emit(e.Name, Side{}, Side{e.Mode, e.Hash})
	}
}

// sub diffs the subtrees called name.
func (d *Differ) sub(name []byte, x, y plumbing.Hash) error {
	n := len(d.path)
	d.path = append(append(d.path, name...), '/')
	err := d.trees(x, y)
	d.path = d.path[:n]
	return err
}

func (d *Differ) emit(name []byte, from, to Side) error {
	n := len(d.path)
	d.path = append(d.path, name...)
	err := d.fn(d.path, from, to)
	d.path = d.path[:n]
	return err
}

// skipEqual drops the leading entries that are byte-identical in both raw
// trees (both start at an entry boundary). An identical entry is
// unchanged whatever it is: same mode, same name, same object. The equal
// prefix is found a word at a time, then only the entry boundaries inside
// it are looked up.
func skipEqual(xd, yd []byte) ([]byte, []byte) {
	p := commonPrefix(xd, yd)
	off := 0
	for {
		nul := bytes.IndexByte(xd[off:p], 0)
		if nul < 0 {
			break
		}
		end := off + nul + 1 + len(plumbing.Hash{})
		if end > p {
			break
		}
		off = end
	}
	return xd[off:], yd[off:]
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}
