package git

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// RawEntry is one entry of a raw tree; Name aliases the tree's bytes.
// Mode is canonicalised like git does (any 100xxx mode is Regular or
// Executable, an unknown type a Submodule), so entries compare like git
// compares them.
type RawEntry struct {
	Name []byte
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// NextEntry parses the first entry of a raw tree ("<octal mode>
// <name>\0<20-byte id>") and returns the rest of the tree.
func NextEntry(d []byte) (RawEntry, []byte, error) {
	var e RawEntry
	sp := bytes.IndexByte(d, ' ')
	if sp < 0 {
		return e, nil, fmt.Errorf("%w: missing mode terminator", ErrMalformedTree)
	}
	var mode uint32
	for _, c := range d[:sp] {
		if c < '0' || c > '7' || mode > 0o7777777 {
			return e, nil, fmt.Errorf("%w: malformed mode", ErrMalformedTree)
		}
		mode = mode<<3 | uint32(c-'0')
	}
	if sp == 0 {
		return e, nil, fmt.Errorf("%w: malformed mode", ErrMalformedTree)
	}
	e.Mode = canonicalMode(filemode.FileMode(mode))
	d = d[sp+1:]
	nul := bytes.IndexByte(d, 0)
	if nul < 0 {
		return e, nil, fmt.Errorf("%w: missing filename terminator", ErrMalformedTree)
	}
	if nul == 0 {
		return e, nil, fmt.Errorf("%w: empty filename", ErrMalformedTree)
	}
	e.Name = d[:nul:nul]
	d = d[nul+1:]
	if len(d) < len(e.Hash) {
		return e, nil, fmt.Errorf("%w: truncated object id", ErrMalformedTree)
	}
	copy(e.Hash[:], d)
	return e, d[len(e.Hash):], nil
}

func canonicalMode(mode filemode.FileMode) filemode.FileMode {
	switch mode & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if mode&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	default:
		return filemode.Submodule
	}
}

// compareNames orders entries like git sorts trees: by name bytes, a
// directory's name counting as if it ended in "/". A file and a directory
// of the same name are therefore different entries.
func compareNames(a []byte, aDir bool, b []byte, bDir bool) int {
	n := min(len(a), len(b))
	if c := bytes.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	var ca, cb byte
	if len(a) > n {
		ca = a[n]
	} else if aDir {
		ca = '/'
	}
	if len(b) > n {
		cb = b[n]
	} else if bDir {
		cb = '/'
	}
	return int(ca) - int(cb)
}

// Tree is a parsed tree.
type Tree struct {
	Hash    plumbing.Hash
	Entries []TreeEntry // in the object's order
	sorted  bool        // Entries are in git's order (binary search works)
}

// TreeEntry is one entry of a parsed Tree; Mode is canonical (RawEntry).
type TreeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// ParseTree parses raw tree h.
func ParseTree(h plumbing.Hash, d []byte) (*Tree, error) {
	t := &Tree{Hash: h, sorted: true}
	var prev RawEntry
	for len(d) > 0 {
		e, rest, err := NextEntry(d)
		if err != nil {
			return nil, err
		}
		if len(t.Entries) > 0 && compareNames(prev.Name, prev.Mode == filemode.Dir, e.Name, e.Mode == filemode.Dir) > 0 {
			t.sorted = false
		}
		prev, d = e, rest
		t.Entries = append(t.Entries, TreeEntry{Name: string(e.Name), Mode: e.Mode, Hash: e.Hash})
	}
	return t, nil
}

// Entry finds the entry called name directly in t (ErrEntryNotFound).
func (t *Tree) Entry(name string) (*TreeEntry, error) {
	n := []byte(name)
	if t.sorted {
		for _, dir := range []bool{false, true} {
			i := sort.Search(len(t.Entries), func(i int) bool {
				e := &t.Entries[i]
				return compareNames([]byte(e.Name), e.Mode == filemode.Dir, n, dir) >= 0
			})
			if i < len(t.Entries) && t.Entries[i].Name == name {
				return &t.Entries[i], nil
			}
		}
		return nil, ErrEntryNotFound
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Name == name {
			return e, nil
		}
		if compareNames([]byte(e.Name), e.Mode == filemode.Dir, n, true) > 0 {
			break // past where either a file or a directory name would be
		}
	}
	return nil, ErrEntryNotFound
}
