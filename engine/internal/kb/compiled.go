package kb

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

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
	h := sha256.New()
	put := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(p))
		}
	}
	opt := func(name string, b []byte) {
		if b == nil {
			put(name, "\x00none\x00")
			return
		}
		put(name, "\x00", strconv.Itoa(len(b)), "\x00")
		h.Write(b)
	}
	put("head\x00", head, "\x00")
	opt("config", cfgText)
	opt("ledger", ledger)
	opt("overlay", overlay)
	put("links\x00", strconv.Itoa(len(linkSig)), "\x00", linkSig, "\x00skipped\x00", strconv.Itoa(len(listSkipped)), "\x00", listSkipped, "\x00aliases\x00", aliasesSig(aliases))
	sum := h.Sum(nil)
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

// sameParse says whether a and b are equal in every field but those a
// read sets after parsing (supersession, paths and their source, file
// paths, links, extra), so that an entry equal to its file's parse is
// stored as a reference. Written out, not reflect.DeepEqual of two
// copies: a rebuild at 10,000 entries compares every entry, and the
// reflective comparison was a tenth of its time. TestSameParse keeps it in
// step with the fields of entry.Entry.
func sameParse(a, b *entry.Entry) bool {
	return parseFields(a) == parseFields(b) &&
		sameList(a.Tags, b.Tags) && sameList(a.Extends, b.Extends) && sameList(a.Commits, b.Commits)
}

// parsed are an entry's scalar fields that sameParse compares (one
// comparison of two values: compact code in the WASM engine).
type parsed struct {
	s                     [16]string
	adr                   int
	hasADR, ro, placehold bool
}

func parseFields(e *entry.Entry) parsed {
	return parsed{
		s: [16]string{e.ID, e.Kind, e.Title, e.Body, e.Summary, e.Status, e.StatusRaw, e.Date, e.DateRaw,
			e.ReviewBy, e.Checked, e.Verify, e.Visibility, e.File, e.Markdown, e.Style},
		adr: e.ADRNumber, hasADR: e.HasADRNumber, ro: e.ReadOnly, placehold: e.IsTemplate(),
	}
}

// sameList is reflect.DeepEqual on two lists: nil is not empty.
func sameList(a, b []string) bool { return (a == nil) == (b == nil) && slices.Equal(a, b) }

// encodeCompiled encodes s (read from inputs s.inputs) for the records
// names (sorted, all stored, in file order); "" when an entry holds a
// value the codec cannot store. A stored snapshot is saved again as it
// was loaded (the same records: no file changed).
func encodeCompiled(s *Snapshot, files map[string]*cached, names []string) string {
	if l, ok := s.lazy.(*lazy); ok {
		return l.compiled
	}
	if s.inputs == "" {
		return ""
	}
	ordinal := make(map[string]int, len(names))
	for i, f := range names {
		ordinal[f] = i
	}
	es := s.entries
	// The match index is built (when the snapshot has none yet) while the
	// entries are encoded: on a rebuild at 10,000 entries each is a third
	// of the save.
	index := make(chan builtIndex, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				index <- builtIndex{panicked: r} // raised again below, where the dispatcher recovers it
			}
		}()
		index <- builtIndex{ix: s.Governing()}
	}()
	// The table: where each entry starts (and where the last ends), then
	// the entries in id order, so a read decodes only the entries it needs.
	table := make([]byte, 0, 8*len(es)+4)
	body := &entry.Encoder{Buf: make([]byte, 0, 256*len(es))}
	for _, e := range es {
		table = binary.LittleEndian.AppendUint32(table, uint32(len(body.Buf)))
		body.String(e.ID)
		if !encodeCompiledEntry(body, e, files, ordinal) {
			return ""
		}
	}
	table = binary.LittleEndian.AppendUint32(table, uint32(len(body.Buf)))
	order := make([]int, len(es))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return es[order[a]].ID < es[order[b]].ID })
	for _, i := range order {
		table = binary.LittleEndian.AppendUint32(table, uint32(i))
	}
	t := &entry.Encoder{}
	encodeTally(t, s.Tally())
	built := <-index
	if built.panicked != nil {
		panic(built.panicked)
	}
	ix := built.ix
	// One buffer of about the final size: at ten thousand entries the
	// parts are megabytes, and each copy of them is fresh memory.
	w := &entry.Encoder{Buf: make([]byte, 0, len(s.inputs)+len(s.ID)+len(table)+len(body.Buf)+len(t.Buf)+ix.BinarySize()+128*len(s.Diagnostics)+64*len(s.Skipped)+64)}
	w.String(s.inputs)
	w.String(s.ID)
	w.Uvarint(uint64(len(es)))
	w.Bytes(table)
	w.Bytes(body.Buf)
	w.Bytes(t.Buf)
	entry.EncodeDiagnostics(w, s.Diagnostics)
	w.Uvarint(uint64(len(s.Skipped)))
	for _, sk := range s.Skipped {
		w.String(sk.File)
		w.String(sk.Reason)
	}
	w.Uvarint(uint64(ix.BinarySize()))
	w.Buf = ix.AppendBinary(w.Buf)
	return unsafe.String(unsafe.SliceData(w.Buf), len(w.Buf)) // w.Buf is not written again
}

// builtIndex is a match index built on another goroutine, or the panic
// that building it raised.
type builtIndex struct {
	ix       *match.Index
	panicked any
}

// encodeCompiledEntry appends e, as a reference to its file's stored
// parse when it can; false when it holds a value the codec cannot store.
func encodeCompiledEntry(w *entry.Encoder, e *entry.Entry, files map[string]*cached, ordinal map[string]int) bool {
	c, ok := files[e.File]
	if !ok || c.raw != "" || c.entry == nil || !sameParse(e, c.entry) {
		w.Buf = append(w.Buf, entryWhole)
		return entry.EncodeEntry(w, e) == nil
	}
	w.Buf = append(w.Buf, entryRef)
	w.Uvarint(uint64(ordinal[e.File]))
	// A list (or PathsSource) the read left as parsed is a bit in same,
	// not stored again: almost always the paths, the largest part.
	lists, parsed := refLists(e), refLists(c.entry)
	same := uint64(0)
	for i, xs := range lists {
		if sameList(xs, parsed[i]) {
			same |= 1 << i
		}
	}
	if e.PathsSource == c.entry.PathsSource {
		same |= 1 << len(lists)
	}
	w.Uvarint(same)
	for i, xs := range lists {
		if same&(1<<i) == 0 {
			w.Strings(xs)
		}
	}
	if same&(1<<len(lists)) == 0 {
		w.String(e.PathsSource)
	}
	entry.EncodeLinks(w, e.Links)
	if reflect.DeepEqual(e.Extra, c.entry.Extra) {
		w.Bool(false)
		return true
	}
	w.Bool(true)
	return entry.EncodeExtra(w, e.Extra) == nil
}

// refLists are the lists an entry stored as a reference keeps beside its
// parse, in their stored order; refFields points at them.
func refLists(e *entry.Entry) [4][]string {
	return [4][]string{e.Supersedes, e.SupersededBy, e.Paths, e.FilePaths}
}

func refFields(e *entry.Entry) [4]*[]string {
	return [4]*[]string{&e.Supersedes, &e.SupersededBy, &e.Paths, &e.FilePaths}
}

func encodeTally(w *entry.Encoder, t Tally) {
	var keys []string
	for kind, m := range t.Counts {
		for status := range m {
			keys = append(keys, kind+"\x00"+status)
		}
	}
	sort.Strings(keys) // the same entries give the same bytes
	w.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		kind, status, _ := strings.Cut(k, "\x00")
		w.String(kind)
		w.String(status)
		w.Uvarint(uint64(t.Counts[kind][status]))
	}
	w.Uvarint(uint64(len(t.Reviews)))
	for _, r := range t.Reviews {
		w.String(r.ID)
		w.String(r.By)
	}
}

// parts are a compiled part's entry count, table, entries and tally,
// still encoded.
type parts struct {
	n                  int
	table, body, tally string
}

// decodeCompiled decodes a compiled snapshot built from inputs, all but
// its entries; an error when it was built from other inputs or does not
// decode. The caller fills the entries from p and what comes from the
// inputs themselves (configuration, ledger, overlay, HEAD, blob ids).
func decodeCompiled(data, inputs string) (s *Snapshot, p parts, err error) {
	r := &entry.Decoder{Buf: data}
	if r.String() != inputs || r.Err != nil {
		return nil, p, errBadSnapshot
	}
	s = &Snapshot{ID: r.String(), inputs: inputs}
	n := r.Uvarint()
	p = parts{table: r.String(), body: r.String(), tally: r.String()}
	if r.Err != nil || n > uint64(len(p.table)) {
		return nil, p, errBadSnapshot
	}
	p.n = int(n)
	s.Diagnostics = entry.DecodeDiagnostics(r)
	k := r.Uvarint()
	if k > uint64(len(r.Buf)) {
		return nil, p, errBadSnapshot
	}
	for i := uint64(0); i < k; i++ {
		s.Skipped = append(s.Skipped, Skipped{File: r.String(), Reason: r.String()})
	}
	ix := r.String()
	if r.Err != nil || len(r.Buf) != 0 {
		return nil, p, errBadSnapshot
	}
	index, err := match.DecodeIndex(ix, p.n)
	if err != nil {
		return nil, p, errBadSnapshot
	}
	s.index = index
	s.matchOnce.Do(func() {}) // the index is loaded: never built again
	return s, p, nil
}

// decodeCompiledEntry reads one entry of the compiled part (after its id)
// into e; rec gives the n stored records by position.
func decodeCompiledEntry(r *entry.Decoder, e *entry.Entry, rec func(int) *cached, n int, parse *entry.Decoder) bool {
	switch mode, _ := r.Byte(); mode {
	case entryWhole:
		return entry.DecodeEntryInto(r, e)
	case entryRef:
		k := r.Uvarint()
		if k >= uint64(n) {
			return false
		}
		shared := false // e's lists are the record's entry's
		switch c := rec(int(k)); {
		case c.raw != "": // intact: see lazy.rec
			parse.Buf, parse.Err = c.raw, nil
			if has, ok := decodeParse(parse, e, c.text); !has || !ok {
				return false
			}
		case c.entry != nil:
			*e, shared = *c.entry, true
		default:
			return false
		}
		same := r.Uvarint()
		if same >= 1<<5 {
			return false
		}
		for i, p := range refFields(e) {
			if same&(1<<i) == 0 {
				*p = r.Strings()
			} else if shared {
				*p = slices.Clone(*p) // the record's entry keeps its own lists
			}
		}
		if same&(1<<4) == 0 {
			e.PathsSource = r.String()
		}
		e.Links = entry.DecodeLinks(r)
		if r.Bool() {
			e.Extra = entry.DecodeExtra(r)
		}
		return r.Err == nil
	}
	return false
}
