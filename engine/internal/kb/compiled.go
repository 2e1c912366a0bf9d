package kb

import (
	"encoding/hex"
	"fmt"

	"reflect"

	"github.com/kontext/kontext/engine/internal/digest"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/match"
)

// The compiled snapshot: what a read derives from the per-file parses —
// the entries after links, overlay and sorting, every diagnostic, the
// skipped files, the snapshot id and the compiled match index — stored
// next to the parses. A process whose listing finds every file unchanged
// and whose other inputs (HEAD, configuration, ledger, overlay, links)
// hash to the stored value answers from it without decoding a single
// parse or compiling a pattern.

// readInputs hashes everything besides the stored files that a read's
// answer depends on.
func readInputs(head string, cfgText, ledger, overlay []byte, linkSig, listSkipped string, aliases map[string][]string) string {
	h := digest.NewSHA256()
	opt := func(name string, b []byte) {
		if b == nil {
			fmt.Fprintf(h, "%s\x00none\x00", name)
			return
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(b))
		h.Write(b)
	}
	fmt.Fprintf(h, "head\x00%s\x00", head)
	opt("config", cfgText)
	opt("ledger", ledger)
	opt("overlay", overlay)
	fmt.Fprintf(h, "links\x00%d\x00%s\x00skipped\x00%d\x00%s\x00aliases\x00%v", len(linkSig), linkSig, len(listSkipped), listSkipped, aliases)
	sum := h.Sum()
	return hex.EncodeToString(sum[:])
}

// An entry of the compiled part is stored either whole or, almost always,
// as a reference to its file's stored parse plus the fields the read
// changes after parsing (links resolved, overlay paths, a link's target):
// each file's text is stored once.
const (
	entryWhole = 0
	entryRef   = 1
)

// derived zeroes the fields a read sets after parsing, so what is left
// must equal the parse for an entry to be stored as a reference.
func derived(e entry.Entry) entry.Entry {
	e.Supersedes, e.SupersededBy, e.Links, e.Paths, e.PathsSource, e.FilePaths, e.Extra = nil, nil, nil, nil, "", nil, nil
	return e
}

// encodeCompiled encodes s (read from inputs s.inputs) for the records
// names (sorted, all stored, in file order); "" when an entry holds a
// value the codec cannot store.
func encodeCompiled(s *Snapshot, files map[string]*cached, names []string) string {
	if s.inputs == "" {
		return ""
	}
	ordinal := make(map[string]int, len(names))
	for i, f := range names {
		ordinal[f] = i
	}
	w := &entry.Encoder{Buf: make([]byte, 0, 256*len(s.Entries)+1024)}
	w.String(s.inputs)
	w.String(s.ID)
	w.Uvarint(uint64(len(s.Entries)))
	for _, e := range s.Entries {
		c, ok := files[e.File]
		if ok && c.raw == "" && c.entry != nil && reflect.DeepEqual(derived(*e), derived(*c.entry)) {
			w.Buf = append(w.Buf, entryRef)
			w.Uvarint(uint64(ordinal[e.File]))
			for _, xs := range [][]string{e.Supersedes, e.SupersededBy, e.Paths, e.FilePaths} {
				w.Strings(xs)
			}
			w.String(e.PathsSource)
			entry.EncodeLinks(w, e.Links)
			if reflect.DeepEqual(e.Extra, c.entry.Extra) {
				w.Bool(false)
			} else {
				w.Bool(true)
				if entry.EncodeExtra(w, e.Extra) != nil {
					return ""
				}
			}
			continue
		}
		w.Buf = append(w.Buf, entryWhole)
		if entry.EncodeEntry(w, e) != nil {
			return ""
		}
	}
	entry.EncodeDiagnostics(w, s.Diagnostics)
	w.Uvarint(uint64(len(s.Skipped)))
	for _, sk := range s.Skipped {
		w.String(sk.File)
		w.String(sk.Reason)
	}
	w.String(string(s.Governing().AppendBinary(nil)))
	return string(w.Buf)
}

// decodeCompiled decodes a compiled snapshot built from inputs; an error
// when it was built from other inputs or does not decode. The caller
// fills what comes from the inputs themselves (configuration, ledger,
// overlay, HEAD, blob ids).
func decodeCompiled(data, inputs string, recs []*cached) (*Snapshot, error) {
	r := &entry.Decoder{Buf: data, Arena: true}
	parse := &entry.Decoder{Arena: true}
	if r.String() != inputs || r.Err != nil {
		return nil, errBadSnapshot
	}
	s := &Snapshot{ID: r.String(), inputs: inputs}
	n := r.Uvarint()
	if n > uint64(len(r.Buf)) {
		return nil, errBadSnapshot
	}
	slab := make([]entry.Entry, n) // one allocation for every entry
	s.Entries = make([]*entry.Entry, n)
	s.byID = make(map[string]*entry.Entry, n)
	for i := range slab {
		e := &slab[i]
		switch mode, _ := r.Byte(); mode {
		case entryWhole:
			if !entry.DecodeEntryInto(r, e) {
				return nil, errBadSnapshot
			}
		case entryRef:
			k := r.Uvarint()
			if k >= uint64(len(recs)) {
				return nil, errBadSnapshot
			}
			switch c := recs[k]; {
			case c.raw != "":
				parse.Buf, parse.Err = c.raw, nil
				if has, ok := decodeParse(parse, e, c.text); !has || !ok {
					return nil, errBadSnapshot
				}
			case c.entry != nil:
				*e = *c.entry
			default:
				return nil, errBadSnapshot
			}
			for _, p := range []*[]string{&e.Supersedes, &e.SupersededBy, &e.Paths, &e.FilePaths} {
				*p = r.Strings()
			}
			e.PathsSource = r.String()
			e.Links = entry.DecodeLinks(r)
			if r.Bool() {
				e.Extra = entry.DecodeExtra(r)
			}
			if r.Err != nil {
				return nil, errBadSnapshot
			}
		default:
			return nil, errBadSnapshot
		}
		s.Entries[i] = e
		s.byID[e.ID] = e
	}
	s.Diagnostics = entry.DecodeDiagnostics(r)
	k := r.Uvarint()
	if k > uint64(len(r.Buf)) {
		return nil, errBadSnapshot
	}
	for i := uint64(0); i < k; i++ {
		s.Skipped = append(s.Skipped, Skipped{File: r.String(), Reason: r.String()})
	}
	if n == 0 {
		s.Entries = nil // as a read that found none
	}
	ix := r.String()
	if r.Err != nil || len(r.Buf) != 0 {
		return nil, errBadSnapshot
	}
	index, err := match.DecodeIndex(ix, len(s.Entries))
	if err != nil {
		return nil, errBadSnapshot
	}
	s.index = index
	s.matchOnce.Do(func() {}) // the index is loaded: never built again
	return s, nil
}
