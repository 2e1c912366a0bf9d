package report

import (
	"encoding/json"
	"io"
	"strconv"
)

// jsonWriter writes JSON in the layout of json.MarshalIndent with prefix
// "" and indent "  ": each element on its own line, an empty array or
// object as [] or {}. The caller writes object keys in the order
// encoding/json would (struct field order, sorted map keys).
type jsonWriter struct {
	b     []byte
	empty []bool    // per open array or object: nothing written in it yet
	out   io.Writer // where spill sends b
	err   error     // the first error of out
}

// spillAt is how much JSON is held before spill writes it out: a log of
// thousands of results is never held whole (fresh pages cost more than
// the writing).
const spillAt = 32 << 10

// spill writes what is held to out once it is spillAt or more.
func (w *jsonWriter) spill() {
	if len(w.b) >= spillAt {
		w.flush()
	}
}

// flush writes everything held to out.
func (w *jsonWriter) flush() {
	if w.err == nil && len(w.b) > 0 {
		_, w.err = w.out.Write(w.b)
	}
	w.b = w.b[:0]
}

// open starts an array ('[') or an object ('{').
func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.empty = append(w.empty, true)
}

// close ends the innermost array (']') or object ('}').
func (w *jsonWriter) close(c byte) {
	n := len(w.empty) - 1
	empty := w.empty[n]
	w.empty = w.empty[:n]
	if !empty {
		w.newline()
	}
	w.b = append(w.b, c)
}

// elem starts the next element of the innermost array or object.
func (w *jsonWriter) elem() {
	n := len(w.empty) - 1
	if !w.empty[n] {
		w.b = append(w.b, ',')
	}
	w.empty[n] = false
	w.newline()
}

func (w *jsonWriter) newline() {
	w.b = append(w.b, '\n')
	for range w.empty {
		w.b = append(w.b, ' ', ' ')
	}
}

// key starts the next member of the innermost object.
func (w *jsonWriter) key(k string) {
	w.elem()
	w.str(k)
	w.b = append(w.b, ':', ' ')
}

// field writes the member k with the string v.
func (w *jsonWriter) field(k, v string) {
	w.key(k)
	w.str(v)
}

func (w *jsonWriter) raw(s string) { w.b = append(w.b, s...) }

func (w *jsonWriter) int(n int) { w.b = strconv.AppendInt(w.b, int64(n), 10) }

// str writes s as encoding/json does (HTML-safe): ASCII escaped here as
// encoding/json escapes it, a string with any non-ASCII byte through
// encoding/json itself (invalid UTF-8, U+2028 and U+2029 have escapes of
// their own).
func (w *jsonWriter) str(s string) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			q, _ := json.Marshal(s) // a string always marshals
			w.b = append(w.b, q...)
			return
		}
	}
	const hex = "0123456789abcdef"
	w.b = append(w.b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			continue
		}
		w.b = append(w.b, s[start:i]...)
		switch c {
		case '"', '\\':
			w.b = append(w.b, '\\', c)
		case '\b':
			w.b = append(w.b, '\\', 'b')
		case '\f':
			w.b = append(w.b, '\\', 'f')
		case '\n':
			w.b = append(w.b, '\\', 'n')
		case '\r':
			w.b = append(w.b, '\\', 'r')
		case '\t':
			w.b = append(w.b, '\\', 't')
		default:
			w.b = append(w.b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	w.b = append(w.b, s[start:]...)
	w.b = append(w.b, '"')
}

// text writes a SARIF message object: text, and markdown when not empty.
func (w *jsonWriter) text(text, markdown string) {
	w.open('{')
	w.field("text", text)
	if markdown != "" {
		w.field("markdown", markdown)
	}
	w.close('}')
}
