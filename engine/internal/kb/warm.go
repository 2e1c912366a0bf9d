package kb

import (
	"sort"

	"github.com/kontext/kontext/engine/internal/entry"
)

// A warm read validates the listings against the stored rows in place: no
// record, map or per-file allocation unless a file changed. A native store
// checks each file's stat data, a portable snapshot its content (clean).

// clean walks the listings (total files, each sorted by path) in the
// order of their first paths along the rows: the rows and the listings
// hold the same number of files, each listed file is the next row (paths
// increasing), with the same size and source and, from a native store,
// the same modification time and inode, not racy; from a portable table
// (a bundle's snapshot, whose times and identities are another machine's)
// the content has the row's checksum instead, read as the file system
// lends it, so a bundle opened in WASM validates without a record, map or
// copy per file and the open repository holds the snapshot and the files
// only. The listed paths are distinct, so every row is then listed:
// nothing was deleted. nil otherwise (the read's slow path decides): also
// for links (mergeLinks may alias them), a file two sources list or rows
// that do not decode.
func clean(r *Reader, lists [][]job, total int) interface{ blob(string) string } {
	if _, portable := r.store.(PortableStore); portable {
		return walkRows(r, lists, total, func(j job, c *cached) bool {
			if c.size != j.info.Size() {
				return false
			}
			data, _, err := readLent(r.fs, j.path)
			return err == nil && data != nil && check64(data) == c.check
		})
	}
	return walkRows(r, lists, total, func(j job, c *cached) bool {
		mod := j.info.ModTime()
		return c.size == j.info.Size() && !mod.IsZero() && c.mod.Equal(mod) && !c.racy && c.id == r.store.FileID(j.info)
	})
}

// walkRows is clean's walk: same reports whether listed file j is as row
// c records it (paths, order, links and sources are walkRows' checks).
func walkRows(r *Reader, lists [][]job, total int, same func(j job, c *cached) bool) interface{ blob(string) string } {
	t := r.tab
	if total != t.n || hasDuplicate(lists) {
		return nil
	}
	order := make([][]job, 0, len(lists))
	for _, l := range lists {
		if len(l) > 0 {
			order = append(order, l)
		}
	}
	sort.Slice(order, func(a, b int) bool { return order[a][0].path < order[b][0].path })
	d := &entry.Decoder{Buf: t.rows}
	prev := ""
	var c cached
	for _, jobs := range order {
		for _, j := range jobs {
			f, _, _ := t.next(d, &c)
			if f != j.path || f <= prev || j.target != "" || !keyIs(c.key, j.src, j.target) || !same(j, &c) {
				return nil
			}
			prev = f
		}
	}
	if len(d.Buf) != 0 {
		return nil
	}
	return tableBlobs{t}
}

// index finds where each row and its parse start (once; rows that
// decoded in clean decode here).
func (t *table) index() {
	t.once.Do(func() {
		t.at, t.parsAt = make([]uint32, t.n), make([]uint32, t.n)
		d := &entry.Decoder{Buf: t.rows}
		off := 0
		var c cached
		for i := 0; i < t.n; i++ {
			t.at[i], t.parsAt[i] = uint32(len(t.rows)-len(d.Buf)), uint32(off)
			_, _, plen := t.next(d, &c)
			off += plen
		}
	})
}

// row decodes row i into c (its parse too) and returns the file's path;
// "" when it does not decode or its parse lies outside the parses.
func (t *table) row(i int, c *cached) string {
	t.index()
	f, blob, plen := t.next(&entry.Decoder{Buf: t.rows[t.at[i]:]}, c)
	if off := int(t.parsAt[i]); f != "" && off+plen <= len(t.parses) {
		c.raw, c.blob = t.parses[off:off+plen], blobText(blob, nil)
		return f
	}
	return ""
}

// path is row i's path, "" when the row does not decode.
func (t *table) path(i int) string {
	t.index()
	var c cached
	f, _, _ := t.next(&entry.Decoder{Buf: t.rows[t.at[i]:]}, &c)
	return f
}

// tableBlobs looks blob ids up in a table whose rows clean walked (so in
// path order).
type tableBlobs struct{ *table }

// blob is file's blob id as its row records it.
func (t tableBlobs) blob(file string) string {
	var c cached
	i := sort.Search(t.n, func(i int) bool { return t.path(i) >= file })
	if i < t.n && t.row(i, &c) == file {
		return c.blob
	}
	return ""
}
