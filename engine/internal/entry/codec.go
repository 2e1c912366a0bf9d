package entry

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// The compact binary form of parsed entries and diagnostics, for the
// compiled snapshot a native reader keeps between processes. Strings are
// a uvarint length and bytes; Extra keeps its Go types exactly (a tag per
// value), so an entry decoded from it answers byte for byte like a fresh
// parse. A value of a type the codec does not know is an error: the caller
// then does not store that file (it is parsed again next time).

// Encoder appends values to a buffer. With Text set (the content of the
// file a portable parse travels with), a string that occurs in Text is
// written as the span of Text it is, not as its bytes: most fields of an
// entry are spans of its file, so the parse then holds little the file
// does not. A Decoder reads it back with the same Text.
type Encoder struct {
	Buf  []byte
	Text string
}

func (w *Encoder) Uvarint(v uint64) { w.Buf = binary.AppendUvarint(w.Buf, v) }
func (w *Encoder) Varint(v int64)   { w.Buf = binary.AppendVarint(w.Buf, v) }

// minSpan is the shortest string written as a span of Text: a span costs
// two varints, so a shorter one is its bytes.
const minSpan = 3

// String writes s: a uvarint length and the bytes; with Text set, the
// length shifted left by one, its low bit set when the offset in Text
// follows instead of the bytes.
func (w *Encoder) String(s string) {
	if w.Text == "" {
		w.Uvarint(uint64(len(s)))
		w.Buf = append(w.Buf, s...)
		return
	}
	if len(s) >= minSpan {
		if i := strings.Index(w.Text, s); i >= 0 {
			w.Uvarint(uint64(len(s))<<1 | 1)
			w.Uvarint(uint64(i))
			return
		}
	}
	w.Uvarint(uint64(len(s)) << 1)
	w.Buf = append(w.Buf, s...)
}

// Bytes writes b as String writes a string (never as a span), without
// making one of it.
func (w *Encoder) Bytes(b []byte) {
	if w.Text == "" {
		w.Uvarint(uint64(len(b)))
	} else {
		w.Uvarint(uint64(len(b)) << 1)
	}
	w.Buf = append(w.Buf, b...)
}
func (w *Encoder) Bool(b bool) {
	if b {
		w.Buf = append(w.Buf, 1)
	} else {
		w.Buf = append(w.Buf, 0)
	}
}

// Strings writes a slice, keeping nil apart from empty.
func (w *Encoder) Strings(xs []string) {
	if xs == nil {
		w.Uvarint(0)
		return
	}
	w.Uvarint(uint64(len(xs)) + 1)
	for _, s := range xs {
		w.String(s)
	}
}

// Decoder reads what an Encoder wrote; the first error sticks. It reads
// from one string, so every decoded string is a slice of it (no copy).
type Decoder struct {
	Buf string
	Err error
	// Text: the Encoder's Text (see Encoder); spans are slices of it.
	Text string
	// Arena, when set, is where string lists are carved from (one
	// allocation for many entries instead of one per list).
	Arena bool
	arena []string
}

var errShort = errors.New("snapshot record is truncated")

func (r *Decoder) fail(err error) {
	if r.Err == nil {
		r.Err = err
	}
	r.Buf = ""
}

func (r *Decoder) Uvarint() uint64 {
	var v uint64
	for i := 0; i < len(r.Buf) && i < binary.MaxVarintLen64; i++ {
		b := r.Buf[i]
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				break
			}
			r.Buf = r.Buf[i+1:]
			return v | uint64(b)<<(7*i)
		}
		v |= uint64(b&0x7f) << (7 * i)
	}
	r.fail(errShort)
	return 0
}

func (r *Decoder) Varint() int64 {
	u := r.Uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (r *Decoder) String() string {
	n := r.Uvarint()
	if r.Text != "" {
		span := n&1 == 1
		if n >>= 1; span {
			off := r.Uvarint()
			if off > uint64(len(r.Text)) || n > uint64(len(r.Text))-off {
				r.fail(errShort)
				return ""
			}
			return r.Text[off : off+n]
		}
	}
	if n > uint64(len(r.Buf)) {
		r.fail(errShort)
		return ""
	}
	s := r.Buf[:n]
	r.Buf = r.Buf[n:]
	return s
}

func (r *Decoder) Bool() bool {
	if len(r.Buf) == 0 {
		r.fail(errShort)
		return false
	}
	b := r.Buf[0]
	r.Buf = r.Buf[1:]
	return b == 1
}

func (r *Decoder) Strings() []string {
	n := r.Uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(r.Buf)) {
		r.fail(errShort)
		return nil
	}
	var out []string
	if n == 1 {
		return []string{} // empty, not nil (no allocation)
	}
	if r.Arena {
		if cap(r.arena)-len(r.arena) < int(n-1) {
			r.arena = make([]string, 0, max(int(n-1), 4096))
		}
		at := len(r.arena)
		r.arena = r.arena[:at+int(n-1)]
		out = r.arena[at : at+int(n-1) : at+int(n-1)]
	} else {
		out = make([]string, n-1)
	}
	for i := range out {
		out[i] = r.String()
	}
	return out
}

// EncodeEntry appends e.
func EncodeEntry(w *Encoder, e *Entry) error {
	for _, s := range []string{e.ID, e.Kind, e.Title, e.Body, e.Summary, e.Status, e.StatusRaw, e.Date, e.DateRaw,
		e.ReviewBy, e.Checked, e.Verify, e.Visibility, e.File, e.Markdown, e.Style, e.PathsSource} {
		w.String(s)
	}
	for _, xs := range [][]string{e.Paths, e.Tags, e.Supersedes, e.SupersededBy, e.Extends, e.Commits, e.FilePaths} {
		w.Strings(xs)
	}
	w.Varint(int64(e.ADRNumber))
	w.Bool(e.HasADRNumber)
	w.Bool(e.ReadOnly)
	w.Bool(e.placeholder)
	EncodeLinks(w, e.Links)
	return EncodeExtra(w, e.Extra)
}

// EncodeLinks appends typed links, keeping nil apart from empty.
func EncodeLinks(w *Encoder, links []TypedLink) {
	if links == nil {
		w.Uvarint(0)
		return
	}
	w.Uvarint(uint64(len(links)) + 1)
	for _, l := range links {
		w.String(l.Type)
		w.String(l.Target)
		w.String(l.Text)
	}
}

// EncodeExtra appends an entry's extra map (nil kept apart from empty).
func EncodeExtra(w *Encoder, extra map[string]any) error {
	if extra == nil {
		w.Bool(false)
		return nil
	}
	w.Bool(true)
	return encodeValue(w, extra, 0)
}

// DecodeLinks reads what EncodeLinks wrote.
func DecodeLinks(r *Decoder) []TypedLink {
	n := r.Uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(r.Buf)) {
		r.fail(errShort)
		return nil
	}
	links := make([]TypedLink, n-1)
	for i := range links {
		links[i] = TypedLink{Type: r.String(), Target: r.String(), Text: r.String()}
	}
	return links
}

// DecodeExtra reads what EncodeExtra wrote.
func DecodeExtra(r *Decoder) map[string]any {
	if !r.Bool() {
		return nil
	}
	v := decodeValue(r, 0)
	m, ok := v.(map[string]any)
	if !ok && r.Err == nil {
		r.fail(errors.New("snapshot entry extra is not a map"))
	}
	return m
}

// Byte reads one byte.
func (r *Decoder) Byte() (byte, bool) {
	if len(r.Buf) == 0 {
		r.fail(errShort)
		return 0, false
	}
	b := r.Buf[0]
	r.Buf = r.Buf[1:]
	return b, true
}

// DecodeEntry reads an entry EncodeEntry wrote.
func DecodeEntry(r *Decoder) *Entry {
	e := &Entry{}
	if !DecodeEntryInto(r, e) {
		return nil
	}
	return e
}

// DecodeEntryInto reads an entry EncodeEntry wrote into e (so many entries
// can share one allocation); false when it does not decode.
func DecodeEntryInto(r *Decoder, e *Entry) bool {
	for _, p := range []*string{&e.ID, &e.Kind, &e.Title, &e.Body, &e.Summary, &e.Status, &e.StatusRaw, &e.Date, &e.DateRaw,
		&e.ReviewBy, &e.Checked, &e.Verify, &e.Visibility, &e.File, &e.Markdown, &e.Style, &e.PathsSource} {
		*p = r.String()
	}
	for _, p := range []*[]string{&e.Paths, &e.Tags, &e.Supersedes, &e.SupersededBy, &e.Extends, &e.Commits, &e.FilePaths} {
		*p = r.Strings()
	}
	e.ADRNumber = int(r.Varint())
	e.HasADRNumber = r.Bool()
	e.ReadOnly = r.Bool()
	e.placeholder = r.Bool()
	e.Links = DecodeLinks(r)
	e.Extra = DecodeExtra(r)
	return r.Err == nil
}

// EncodeDiagnostics appends ds.
func EncodeDiagnostics(w *Encoder, ds []Diagnostic) {
	w.Uvarint(uint64(len(ds)))
	for _, d := range ds {
		w.String(d.File)
		w.Varint(int64(d.Line))
		w.String(d.Severity)
		w.String(d.Code)
		w.String(d.Message)
	}
}

// DecodeDiagnostics reads what EncodeDiagnostics wrote.
func DecodeDiagnostics(r *Decoder) []Diagnostic {
	n := r.Uvarint()
	if n == 0 || n > uint64(len(r.Buf)) {
		if n > 0 {
			r.fail(errShort)
		}
		return nil
	}
	out := make([]Diagnostic, n)
	for i := range out {
		out[i] = Diagnostic{File: r.String(), Line: int(r.Varint()), Severity: r.String(), Code: r.String(), Message: r.String()}
	}
	return out
}

const (
	tagNil = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagList
	tagMap
	tagLinks
	tagStrings
)

func encodeValue(w *Encoder, v any, depth int) error {
	if depth > maxYAMLDepth+2 {
		return errors.New("value nested too deeply")
	}
	switch x := v.(type) {
	case nil:
		w.Buf = append(w.Buf, tagNil)
	case bool:
		if x {
			w.Buf = append(w.Buf, tagTrue)
		} else {
			w.Buf = append(w.Buf, tagFalse)
		}
	case int:
		w.Buf = append(w.Buf, tagInt)
		w.Varint(int64(x))
	case float64:
		w.Buf = append(w.Buf, tagFloat)
		w.Buf = binary.LittleEndian.AppendUint64(w.Buf, math.Float64bits(x))
	case string:
		w.Buf = append(w.Buf, tagString)
		w.String(x)
	case []any:
		w.Buf = append(w.Buf, tagList)
		w.Uvarint(uint64(len(x)))
		for _, it := range x {
			if err := encodeValue(w, it, depth+1); err != nil {
				return err
			}
		}
	case map[string]any:
		w.Buf = append(w.Buf, tagMap)
		w.Uvarint(uint64(len(x)))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // equal maps encode to equal bytes
		for _, k := range keys {
			w.String(k)
			if err := encodeValue(w, x[k], depth+1); err != nil {
				return err
			}
		}
	case []Link:
		w.Buf = append(w.Buf, tagLinks)
		w.Uvarint(uint64(len(x)))
		for _, l := range x {
			w.String(l.Relation)
			w.String(l.Target)
		}
	case []string:
		w.Buf = append(w.Buf, tagStrings)
		w.Strings(x)
	default:
		return fmt.Errorf("value of type %T cannot be stored", v)
	}
	return nil
}

func decodeValue(r *Decoder, depth int) any {
	if len(r.Buf) == 0 || depth > maxYAMLDepth+2 {
		r.fail(errShort)
		return nil
	}
	tag := r.Buf[0]
	r.Buf = r.Buf[1:]
	switch tag {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt:
		return int(r.Varint())
	case tagFloat:
		if len(r.Buf) < 8 {
			r.fail(errShort)
			return nil
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.Buf[:8])))
		r.Buf = r.Buf[8:]
		return f
	case tagString:
		return r.String()
	case tagList:
		n := r.Uvarint()
		if n > uint64(len(r.Buf)) {
			r.fail(errShort)
			return nil
		}
		out := make([]any, n)
		for i := range out {
			out[i] = decodeValue(r, depth+1)
		}
		return out
	case tagMap:
		n := r.Uvarint()
		if n > uint64(len(r.Buf)) {
			r.fail(errShort)
			return nil
		}
		out := make(map[string]any, n)
		for i := uint64(0); i < n; i++ {
			k := r.String()
			out[k] = decodeValue(r, depth+1)
		}
		return out
	case tagLinks:
		n := r.Uvarint()
		if n > uint64(len(r.Buf)) {
			r.fail(errShort)
			return nil
		}
		out := make([]Link, n)
		for i := range out {
			out[i] = Link{Relation: r.String(), Target: r.String()}
		}
		return out
	case tagStrings:
		return r.Strings()
	}
	r.fail(fmt.Errorf("unknown value tag %d", tag))
	return nil
}

// maxYAMLDepth bounds the nesting of a frontmatter value (parsed and
// stored alike).
const maxYAMLDepth = 1000
