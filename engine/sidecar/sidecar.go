// Package sidecar owns the governing sidecar: what a full read of the
// knowledge base leaves next to its compiled snapshot so that a later
// process can answer `kontext governing` while it initialises, before
// the Markdown and YAML parsers exist — each entry's listing fields in
// snapshot order, and the compiled match index. (The inputs the read
// consumed, with their stat data, are the native writer's: package
// quick.) It also owns the order of a governing answer, which the
// engine's entries.governing and that early answer share.
package sidecar

import (
	"encoding/binary"
	"errors"
	"slices"
	"sort"

	"github.com/kontext/kontext/engine/internal/match"
)

// Match is one requested path an entry governs.
type Match struct {
	Path, Rule  string
	Specificity int
}

// Hit is one governing entry of an answer: its owner (the entry's index in
// the snapshot), the matches at or above the minimum specificity, and the
// best of them.
type Hit struct {
	Owner   int
	Matches []Match
	Best    int
}

// Hits filters and orders index lookup results as entries.governing
// answers them: matches below minSpec dropped (and entries left with
// none), skip(owner) entries left out, then the most specific first and,
// among equals, kind rank and id ascending (key).
func Hits(rs []match.Result, minSpec int, skip func(owner int) bool, key func(owner int) (rank int, id string)) []Hit {
	var hits []Hit
	for _, r := range rs {
		if skip != nil && skip(r.Owner) {
			continue
		}
		var ms []Match
		best := -1
		for _, m := range r.Matches {
			if m.Specificity < minSpec {
				continue
			}
			ms = append(ms, Match{Path: m.Path, Rule: m.Rule, Specificity: m.Specificity})
			best = max(best, m.Specificity)
		}
		if len(ms) > 0 {
			hits = append(hits, Hit{Owner: r.Owner, Matches: ms, Best: best})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Best != b.Best {
			return a.Best > b.Best
		}
		ra, ida := key(a.Owner)
		rb, idb := key(b.Owner)
		if ra != rb {
			return ra < rb
		}
		return ida < idb
	})
	return hits
}

// Entry is what the governing listing shows of one entry.
type Entry struct {
	Kind, ID, Title string
	Status          *string
	Authority       bool
	Rank            int // the kind's rank (decision first)
}

// Answer is the part of the sidecar the early answer reads: the snapshot
// it was made from, its entries in snapshot order and the encoded match
// index over them.
type Answer struct {
	Snapshot string
	Entries  []Entry
	Index    string
}

const magic = "kontext-sidecar-2\n"

var errCorrupt = errors.New("the governing sidecar is not one this build wrote whole")

// Append appends a's encoding: the entries behind a table of their
// offsets, so that a reader decodes only the entries an answer names.
// The file that holds it is checksummed as a whole.
func (a *Answer) Append(b []byte) []byte {
	// Sized once (each length takes at most 10 bytes): at 10,000 entries
	// the answer is megabytes, and growing it copies them again and again.
	size := len(magic) + len(a.Snapshot) + len(a.Index) + 30 + 4*len(a.Entries)
	for _, e := range a.Entries {
		size += len(e.Kind) + len(e.ID) + len(e.Title) + 50
		if e.Status != nil {
			size += len(*e.Status)
		}
	}
	b = slices.Grow(b, size)
	b = append(b, magic...)
	b = appendStr(b, a.Snapshot)
	b = appendStr(b, a.Index)
	b = binary.AppendUvarint(b, uint64(len(a.Entries)))
	// The offsets table, then the entries straight after it.
	table := len(b)
	b = append(b, make([]byte, 4*len(a.Entries))...)
	body := len(b)
	for i, e := range a.Entries {
		binary.LittleEndian.PutUint32(b[table+4*i:], uint32(len(b)-body))
		b = appendStr(b, e.Kind)
		b = appendStr(b, e.ID)
		b = appendStr(b, e.Title)
		flags := uint64(0)
		if e.Status != nil {
			flags |= 1
		}
		if e.Authority {
			flags |= 2
		}
		b = binary.AppendUvarint(b, flags)
		if e.Status != nil {
			b = appendStr(b, *e.Status)
		}
		b = binary.AppendUvarint(b, uint64(e.Rank))
	}
	return b
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Decoded is an encoded Answer opened for lookups: entries are decoded
// when asked for.
type Decoded struct {
	Snapshot string
	Index    string
	offsets  string // 4 bytes per entry, into body
	body     string
}

// Decode opens what Append wrote; the strings share data's memory.
func Decode(data string) (*Decoded, error) {
	if len(data) < len(magic) || data[:len(magic)] != magic {
		return nil, errCorrupt
	}
	d := decoder{s: data[len(magic):]}
	a := &Decoded{Snapshot: d.str(), Index: d.str()}
	n := d.num()
	if d.bad || n > uint64(len(d.s))/4 {
		return nil, errCorrupt
	}
	a.offsets, a.body = d.s[:4*n], d.s[4*n:]
	return a, nil
}

// Len is the number of entries.
func (a *Decoded) Len() int { return len(a.offsets) / 4 }

// Entry decodes entry i; ok is false when it does not decode.
func (a *Decoded) Entry(i int) (e Entry, ok bool) {
	if i < 0 || i >= a.Len() {
		return e, false
	}
	o := a.offsets[4*i:]
	off := uint32(o[0]) | uint32(o[1])<<8 | uint32(o[2])<<16 | uint32(o[3])<<24
	if uint64(off) > uint64(len(a.body)) {
		return e, false
	}
	d := decoder{s: a.body[off:]}
	e.Kind, e.ID, e.Title = d.str(), d.str(), d.str()
	flags := d.num()
	if flags&1 != 0 {
		s := d.str()
		e.Status = &s
	}
	e.Authority = flags&2 != 0
	e.Rank = int(d.num())
	return e, !d.bad
}

type decoder struct {
	s   string
	bad bool
}

func (d *decoder) num() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if len(d.s) == 0 {
			break
		}
		c := d.s[0]
		d.s = d.s[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.bad, d.s = true, ""
	return 0
}

func (d *decoder) str() string {
	n := d.num()
	if n > uint64(len(d.s)) {
		d.bad, d.s = true, ""
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

// Lookup answers governing for paths (repository-relative, normalised as
// entries.governing normalises them): the hits in answer order, and the
// entries they name (by owner). An index or entry that does not decode
// is an error.
func (a *Decoded) Lookup(paths []string) ([]Hit, map[int]Entry, error) {
	ix, err := match.DecodeIndex(a.Index, a.Len())
	if err != nil {
		return nil, nil, err
	}
	rs := ix.Lookup(paths)
	entries := make(map[int]Entry, len(rs))
	for _, r := range rs {
		e, ok := a.Entry(r.Owner)
		if !ok {
			return nil, nil, errCorrupt
		}
		entries[r.Owner] = e
	}
	hits := Hits(rs, 0, nil, func(o int) (int, string) { return entries[o].Rank, entries[o].ID })
	return hits, entries, nil
}

// NormalizePath is the normalisation entries.governing applies to a
// clean repository-relative path.
func NormalizePath(p string) (string, error) { return match.NormalizePath(p) }
