package kb

import (
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/internal/entry"
)

// A native warm read validates the listing against the stored table in
// place: no record, map or per-file allocation unless a file changed.
// Only storePersist (SetStore) reaches this code, so the WASM engine links
// none of it.

// clean walks the listings (total files, distinct, each sorted, so almost
// always in the table's order) along the rows: the listings and the table
// hold the same number of files, and each listed file is a row with the
// same size, modification time, inode and source, not racy. The listed
// paths are distinct, so every row is then listed: nothing was deleted.
func (storePersist) clean(r *Reader, lists [][]job, total int) interface{ blob(string) string } {
	t := r.tab
	if _, portable := r.store.(PortableStore); portable || total != t.n || hasDuplicate(lists) {
		return nil // a portable table is checked by content (the reader's slow path)
	}
	next := 0
	for _, jobs := range lists {
		if !t.match(r, jobs, &next) {
			return nil
		}
	}
	return tableBlobs{t}
}

// match checks jobs against the rows from *next on (see clean).
func (t *table) match(r *Reader, jobs []job, next *int) bool {
	for _, j := range jobs {
		if j.target != "" {
			return false // a link: mergeLinks may alias it (the reader's slow path)
		}
		i := *next
		if i >= t.n || t.str(i, rowPath) != j.path {
			if i = t.find(j.path); i < 0 {
				return false
			}
		}
		*next = i + 1
		mod, stored := j.info.ModTime(), int64(t.u64(i, rowMod))
		if int64(t.u64(i, rowSize)) != j.info.Size() || mod.IsZero() || stored != mod.UnixNano() || stored >= t.racyFrom ||
			t.u64(i, rowID) != r.store.FileID(j.info) || !keyIs(t.str(i, rowKey), j.src, j.target) {
			return false
		}
	}
	return true
}

// find is the row of path p, -1 when there is none.
func (t *table) find(p string) int {
	i := sort.Search(t.n, func(i int) bool { return t.str(i, rowPath) >= p })
	if i < t.n && t.str(i, rowPath) == p {
		return i
	}
	return -1
}

// tableBlobs looks blob ids up in a table. (A type of its own: a method
// of table named like the interface's would link it into the WASM engine.)
type tableBlobs struct{ *table }

// blob is file's blob id as its row records it.
func (t tableBlobs) blob(file string) string {
	if i := t.find(file); i >= 0 {
		return t.str(i, rowBlob)
	}
	return ""
}

// keyIs reports whether k is srcKey(*src, target), without building it.
func keyIs(k string, src *entry.Source, target string) bool {
	for i, part := range [...]string{src.Kind, src.Style, src.Dir, target} {
		if len(k) < len(part) || k[:len(part)] != part {
			return false
		}
		k = k[len(part):]
		if i < 3 {
			if k == "" || k[0] != 0 {
				return false
			}
			k = k[1:]
		}
	}
	return k == ""
}

// hasDuplicate reports whether two listings hold one file.
func hasDuplicate(lists [][]job) bool {
	for i, l := range lists {
		for _, j := range l {
			if i > 0 && listedBefore(lists[:i], j.path) {
				return true
			}
		}
	}
	return false
}

// listedBefore reports whether one of lists (each sorted) holds file.
func listedBefore(lists [][]job, file string) bool {
	for _, l := range lists {
		if _, found := sort.Find(len(l), func(k int) int { return strings.Compare(file, l[k].path) }); found {
			return true
		}
	}
	return false
}
