package bundle

import (
	"bufio"
	"encoding/json"
	"io"
	"sort"

	"github.com/kontext/kontext/engine/api"
)

// Encode writes b to w as Marshal encodes it, byte for byte (indented,
// HTML-escaped, a final newline), without building the document in
// memory: the knowledge files' texts and the snapshot — almost all of a
// large bundle — are streamed, and only the small fields go through
// encoding/json. At 10,000 entries the document is ~12 MB; encoding it
// whole and then indenting it copied it four times.
func Encode(w io.Writer, b *Bundle) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := encodeBody(bw, b); err != nil {
		return err
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// EncodeInline writes b as Encode does but without the final newline:
// the document as inlined in a page's <script> (HTML-sensitive characters
// are escaped, so it cannot close the element).
func EncodeInline(w io.Writer, b *Bundle) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := encodeBody(bw, b); err != nil {
		return err
	}
	return bw.Flush()
}

// encodeBody writes the fields of api.Bundle in their declaration order,
// as json.MarshalIndent(b, "", "  ") lays them out (a test compares the
// two, and the field list, so a new field cannot be missed silently).
func encodeBody(w *bufio.Writer, b *Bundle) error {
	w.WriteString("{\n")
	first := true
	field := func(name string) {
		if !first {
			w.WriteString(",\n")
		}
		first = false
		w.WriteString(`  "`)
		w.WriteString(name)
		w.WriteString(`": `)
	}
	value := func(name string, v any) error {
		data, err := json.MarshalIndent(v, "  ", "  ")
		if err != nil {
			return err
		}
		field(name)
		w.Write(data)
		return nil
	}
	for _, f := range []struct {
		name string
		v    any
	}{{"schema", b.Schema}, {"format_version", b.FormatVersion}, {"generated_at", b.GeneratedAt}, {"repository", b.Repository}, {"config", b.Config}} {
		if err := value(f.name, f.v); err != nil {
			return err
		}
	}
	field("files")
	writeTexts(w, b.Files)
	field("base_files")
	writeTexts(w, b.BaseFiles)
	if err := value("changed_paths", b.ChangedPaths); err != nil {
		return err
	}
	field("history")
	if err := writeHistory(w, b.History); err != nil {
		return err
	}
	if err := value("drift", b.Drift); err != nil {
		return err
	}
	if err := value("warnings", b.Warnings); err != nil {
		return err
	}
	if b.Snapshot != "" {
		// Base64 needs no escaping.
		field("snapshot")
		w.WriteByte('"')
		w.WriteString(b.Snapshot)
		w.WriteByte('"')
	}
	w.WriteString("\n}")
	return nil
}

// writeTexts writes a path → text map at the second level of indentation,
// keys sorted, as encoding/json does (null for nil, {} for empty).
func writeTexts(w *bufio.Writer, m map[string]string) {
	if m == nil {
		w.WriteString("null")
		return
	}
	if len(m) == 0 {
		w.WriteString("{}")
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w.WriteString("{\n")
	var buf []byte
	for i, k := range keys {
		if i > 0 {
			w.WriteString(",\n")
		}
		w.WriteString("    ")
		buf = appendString(buf[:0], k)
		buf = append(buf, ": "...)
		buf = appendString(buf, m[k])
		w.Write(buf)
	}
	w.WriteString("\n  }")
}

// writeHistory writes the id → history map at the second level of
// indentation, keys sorted, as encoding/json does. Most entries of a
// large knowledge base have no history yet (never verified, nothing
// since): their value is one constant, encoded once by encoding/json.
func writeHistory(w *bufio.Writer, m map[string]*History) error {
	if m == nil {
		w.WriteString("null")
		return nil
	}
	if len(m) == 0 {
		w.WriteString("{}")
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	blank, err := json.MarshalIndent(&History{Premises: []api.Premise{}}, "    ", "  ")
	if err != nil {
		return err
	}
	w.WriteString("{\n")
	var buf []byte
	for i, k := range keys {
		if i > 0 {
			w.WriteString(",\n")
		}
		buf = append(appendString(append(buf[:0], "    "...), k), ": "...)
		w.Write(buf)
		h := m[k]
		if isBlank(h) {
			w.Write(blank)
			continue
		}
		data, err := json.MarshalIndent(h, "    ", "  ")
		if err != nil {
			return err
		}
		w.Write(data)
	}
	w.WriteString("\n  }")
	return nil
}

// isBlank reports whether h is the history of an entry with none: every
// field empty, premises an empty list (TestEncodeKnowsEveryField pins
// the fields this looks at).
func isBlank(h *History) bool {
	return h != nil && h.Verification == nil && h.LastVerified == nil && h.Since == nil && h.SinceVerified == nil &&
		h.Premises != nil && len(h.Premises) == 0 && !h.Failing && !h.AmendedSince
}

// appendString appends s as a JSON string exactly as encoding/json's
// Marshal writes it (HTML escaping on). A test compares it with
// json.Marshal.
func appendString(dst []byte, s string) []byte {
	data, _ := json.Marshal(s) // a string always encodes
	return append(dst, data...)
}
