package kb

import (
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/link"
)

// A read answered from the stored compiled part (a native store's or a
// bundle's portable snapshot) decodes only the entries its answer shows:
// governing the few its match index names, get the one its id names
// (found through the stored id order), status none (its counts are
// stored). An operation over every entry (list, search, drift, export)
// decodes them all, once. Each entry and parse is checked as it is
// decoded; one that does not decode spoils the read (Reader.Spoiled).

// lazyEntries are a stored snapshot's entries, decoded when asked for.
type lazyEntries interface {
	len() int
	entry(i int) *entry.Entry
	every() []*entry.Entry
	byID(id string) (*entry.Entry, bool)
	id(i int) string
}

// fast answers from the stored compiled part without decoding an entry.
func (storePersist) fast(r *Reader, inputs string) *Snapshot {
	return readPersist{}.fast(r, inputs)
}

// fast answers from the stored compiled part without decoding an entry.
func (readPersist) fast(r *Reader, inputs string) *Snapshot {
	if r.compiled == "" {
		return nil
	}
	s, p, err := decodeCompiled(r.compiled, inputs)
	if err == nil {
		var t Tally
		var l *lazy
		if l, t, err = newLazy(r, p); err == nil {
			s.lazy, l.snap = l, s
			s.tally = &t
			return s
		}
	}
	r.compiled = ""
	return nil
}

// lazy holds a stored snapshot's entries, decoded one at a time.
type lazy struct {
	compiled string  // the whole compiled part, saved again as it is
	rd       *Reader // its mutex guards slots and the records (which change only under it)
	recs     []*cached
	tab      *table    // the stored rows, when the reader had not built records (recs is nil then)
	snap     *Snapshot // its configuration names the sources, to parse a file whose stored parse is corrupt
	scratch  cached
	table    string         // u32 × (n+1): where entry i starts in body; then u32 × n: the entries in id order
	body     string         // each entry: its id, then as decodeCompiledEntry reads it
	slots    []*entry.Entry // the entries decoded so far
	once     sync.Once      // decodes all of them, into decoded
	decoded  []*entry.Entry
}

// newLazy checks p's table (not its entries: each is checked when it is
// decoded) and decodes its tally.
func newLazy(r *Reader, p parts) (*lazy, Tally, error) {
	l := &lazy{compiled: r.compiled, rd: r, recs: r.recs, tab: r.tab, table: p.table, body: p.body, slots: make([]*entry.Entry, p.n)}
	if len(p.table) != 8*p.n+4 || l.at(0) != 0 || l.at(p.n) != len(p.body) {
		return nil, Tally{}, errBadSnapshot
	}
	for i := 0; i < p.n; i++ {
		if l.at(i) > l.at(i+1) || l.at(p.n+1+i) >= p.n {
			return nil, Tally{}, errBadSnapshot
		}
	}
	d := &entry.Decoder{Buf: p.tally}
	t := Tally{Counts: map[string]map[string]int{}}
	for k := d.Uvarint(); k > 0 && d.Err == nil; k-- {
		kind, status := d.String(), d.String()
		if t.Counts[kind] == nil {
			t.Counts[kind] = map[string]int{}
		}
		t.Counts[kind][status] = int(d.Uvarint())
	}
	for k := d.Uvarint(); k > 0 && d.Err == nil; k-- {
		t.Reviews = append(t.Reviews, Review{ID: d.String(), By: d.String()})
	}
	if d.Err != nil || len(d.Buf) != 0 {
		return nil, Tally{}, errBadSnapshot
	}
	return l, t, nil
}

// at is the table's i-th number.
func (l *lazy) at(i int) int {
	t := l.table[4*i : 4*i+4]
	return int(t[0]) | int(t[1])<<8 | int(t[2])<<16 | int(t[3])<<24
}

func (l *lazy) len() int { return len(l.slots) }

// id is entry i's id, read without decoding the entry.
func (l *lazy) id(i int) string {
	r := &entry.Decoder{Buf: l.body[l.at(i):l.at(i+1)]}
	return r.String()
}

// byID finds the entry with this id in the stored id order (a read's ids
// are distinct) and decodes only it.
func (l *lazy) byID(id string) (*entry.Entry, bool) {
	n := len(l.slots)
	k := sort.Search(n, func(k int) bool { return l.id(l.at(n+1+k)) >= id })
	if k < n && l.id(l.at(n+1+k)) == id {
		return l.entry(l.at(n + 1 + k)), true
	}
	return nil, false
}

// entry decodes entry i. One already decoded costs no allocation: an
// answer's ordering asks for the same entries many times.
func (l *lazy) entry(i int) *entry.Entry {
	l.rd.mu.Lock()
	defer l.rd.mu.Unlock()
	if e := l.slots[i]; e != nil {
		return e
	}
	return l.decode(i, &entry.Entry{}, &entry.Decoder{}, &entry.Decoder{})
}

// every is all the entries, decoded once.
func (l *lazy) every() []*entry.Entry {
	l.once.Do(func() {
		l.rd.mu.Lock()
		defer l.rd.mu.Unlock()
		if len(l.slots) == 0 {
			return // nil, as a read that found none
		}
		slab := make([]entry.Entry, len(l.slots)) // one allocation for every entry
		r, parse := &entry.Decoder{Arena: true}, &entry.Decoder{Arena: true}
		l.decoded = make([]*entry.Entry, len(l.slots))
		for i := range l.decoded {
			l.decoded[i] = l.decode(i, &slab[i], r, parse)
		}
	})
	return l.decoded
}

// decode decodes entry i into into (once), with the decoders r and parse
// (Arena set to decode many). Lock l.rd.mu around it.
func (l *lazy) decode(i int, into *entry.Entry, r, parse *entry.Decoder) *entry.Entry {
	if e := l.slots[i]; e != nil {
		return e
	}
	r.Buf, r.Err = l.body[l.at(i):l.at(i+1)], nil
	id := r.String()
	n := len(l.recs)
	if l.tab != nil {
		n = l.tab.n
	}
	if !decodeCompiledEntry(r, into, l.rec, n, parse) || len(r.Buf) != 0 || into.ID != id {
		// A snapshot this program wrote (its key and CRC match) always
		// decodes; should one not (a portable one is another program's),
		// the entry is only its id, the reader counts the failure
		// (Spoiled: the engine makes that answer again from a fresh read)
		// and the store keeps the parses only, so the next read rebuilds
		// the compiled part from them.
		*into = entry.Entry{ID: id}
		l.rd.compiled, l.rd.last = "", nil
		l.rd.spoiled++
		l.rd.persist.save(l.rd, nil)
	}
	l.slots[i] = into
	return into
}

// rec is stored record k, its parse intact: one whose CRC fails is parsed
// again from its file (reparse). Lock l.rd.mu around it.
func (l *lazy) rec(k int) *cached {
	if l.tab == nil {
		if c := l.recs[k]; c.raw == "" || c.intact() {
			return c
		}
	} else if f := l.tab.row(k, &l.scratch); f != "" && l.scratch.intact() && l.withText(f, &l.scratch) {
		return &l.scratch // read before the next rec: decodeCompiledEntry keeps none of it
	}
	return l.reparse(k)
}

// withText gives c, file's row, the file's content when its parse leaves
// the text out (a portable parse, see encodeParse): read as the file
// system lends it, and checked against the row. false when it cannot be
// read or has changed (the entry is parsed again). Lock l.rd.mu around it.
func (l *lazy) withText(file string, c *cached) bool {
	if c.raw == "" || c.raw[0] < parseText {
		return true
	}
	data, lent, err := readLent(l.rd.fs, file)
	if err != nil || data == nil || check64(data) != c.check {
		return false
	}
	if lent {
		c.text = unsafe.String(unsafe.SliceData(data), len(data)) // never changed: see Lender
	} else {
		c.text = string(data)
	}
	return true
}

// reparse parses file k again, its stored parse being corrupt, and hands
// the fresh record to the reader, which saves its records at once without
// the compiled part: the next read builds that again. The content is
// checked against nothing: the file, listed unchanged a moment ago, is
// what the stored parse was made from (had it changed since, this entry
// is its new parse, as a read a moment later would give).
func (l *lazy) reparse(k int) *cached {
	r := l.rd
	var file, key string
	if l.tab != nil {
		var c cached
		file = l.tab.row(k, &c)
		key = c.key
	} else {
		for f, c := range r.files {
			if c == l.recs[k] {
				file, key = f, c.key
			}
		}
	}
	parts := strings.SplitN(key, "\x00", 4)
	if len(parts) != 4 || l.snap == nil || l.snap.Config == nil {
		return &cached{}
	}
	for _, src := range l.snap.Config.Sources() {
		if src.Kind != parts[0] || src.Style != parts[1] || src.Dir != parts[2] {
			continue
		}
		from := file
		if parts[3] != "" {
			from = parts[3]
		}
		fi, err := r.fs.Stat(link.FSPath(from))
		if err != nil {
			return &cached{}
		}
		c := r.parse(file, parts[3], fi, src)
		c.key, c.id = key, r.store.FileID(fi)
		c.racy = !c.mod.Before(time.Now().Truncate(time.Second))
		r.ensureFiles()
		if old := r.files[file]; old == nil || (old.raw != "" && !old.intact()) {
			r.files[file] = c
		}
		r.compiled, r.last, r.dirty = "", nil, true
		r.persist.save(r, nil)
		return c
	}
	return &cached{}
}
