package git

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// LookupPaths looks each of paths ("a/b/c") up below tree root and calls
// found with every path that has an entry there (of any mode; a
// directory's entry too). Only the trees along the paths' directories are
// read, each once however many paths it holds, and they are scanned in
// their raw form: no tree is parsed into entries or maps (a caller that
// asks about a few files of a big tree pays for those directories only).
// A path git would not store (see FindEntry) and a path below something
// that is not a directory have no entry.
func (o *Objects) LookupPaths(root plumbing.Hash, paths []string, found func(path string, e RawEntry)) error {
	ps := make([]string, 0, len(paths))
	for _, p := range paths {
		if validTreePath(p) == nil {
			ps = append(ps, p)
		}
	}
	sort.Strings(ps)
	ps = slices.Compact(ps)
	if len(ps) == 0 {
		return nil
	}
	return o.lookup(root, ps, 0, found)
}

// lookup scans tree h for ps, sorted paths whose first off bytes are the
// tree's directory (with its trailing slash).
func (o *Objects) lookup(h plumbing.Hash, ps []string, off int, found func(string, RawEntry)) error {
	d, err := o.RawTree(h)
	if err != nil {
		return err
	}
	for len(d) > 0 {
		e, rest, err := NextEntry(d)
		if err != nil {
			return fmt.Errorf("tree %s: %w", h, err)
		}
		d = rest
		// The paths naming this entry itself.
		i := sort.Search(len(ps), func(i int) bool { return ps[i][off:] >= string(e.Name) })
		if i < len(ps) && ps[i][off:] == string(e.Name) {
			found(ps[i], e)
		}
		if e.Mode != filemode.Dir {
			continue
		}
		// The paths below this directory: a contiguous run of the sorted
		// paths, since they share the prefix name + "/".
		lo := sort.Search(len(ps), func(i int) bool { return compareBelow(ps[i][off:], e.Name) >= 0 })
		hi := lo
		for hi < len(ps) && compareBelow(ps[hi][off:], e.Name) == 0 {
			hi++
		}
		if lo < hi {
			if err := o.lookup(e.Hash, ps[lo:hi], off+len(e.Name)+1, found); err != nil {
				return err
			}
		}
	}
	return nil
}

// compareBelow compares path s with the prefix dir + "/": 0 when s is
// below dir, otherwise the order of s and that prefix.
func compareBelow(s string, dir []byte) int {
	n := len(dir)
	if len(s) <= n {
		if c := strings.Compare(s, string(dir[:len(s)])); c != 0 {
			return c
		}
		return -1 // a prefix of dir + "/" sorts before it
	}
	if c := strings.Compare(s[:n], string(dir)); c != 0 {
		return c
	}
	return int(s[n]) - '/'
}
