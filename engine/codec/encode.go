package codec

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds nesting; deeper values (a cycle) are left to
// encoding/json, which reports the cycle.
const maxDepth = 1000

// ErrUnsupported is the error of Append for a value of a type the codec
// leaves to encoding/json (a Marshaler other than json.RawMessage, an
// array, a map whose keys are not strings…).
var ErrUnsupported = errors.New("codec: a type this encoder leaves to encoding/json")

// unsupportedValue is encoding/json's error for a value JSON cannot hold,
// in its words.
type unsupportedValue string

func (e unsupportedValue) Error() string { return "json: unsupported value: " + string(e) }

// Append appends the JSON of v to dst: the bytes of an encoding/json
// Encoder with SetEscapeHTML(false), without its trailing newline. On an
// error dst's extension is garbage: ErrUnsupported for a type left to
// encoding/json, else an error encoding/json also fails with (NaN, an
// invalid json.RawMessage).
func Append(dst []byte, v any) ([]byte, error) {
	return encode(dst, reflect.ValueOf(v), 0)
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

// encode appends v. It and the functions it calls per kind are kept
// small: the engine's hottest functions are compiled again by the WASM
// runtime's optimising tier, at a cost that grows with their size.
func encode(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if !v.IsValid() {
		return append(b, "null"...), nil
	}
	t := v.Type()
	if t == rawMessage {
		return appendRaw(b, v.Bytes())
	}
	in := infoOf(t)
	if !in.ok || depth > maxDepth {
		return b, ErrUnsupported
	}
	switch v.Kind() {
	case reflect.String:
		return appendString(b, v.String()), nil
	case reflect.Struct:
		return encodeStruct(b, v, in, depth)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return encode(b, v.Elem(), depth+1)
	case reflect.Slice:
		return encodeSlice(b, v, depth)
	case reflect.Map:
		return encodeMap(b, v, depth)
	}
	return encodeScalar(b, v)
}

func encodeScalar(b []byte, v reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case reflect.Float32:
		return appendFloat(b, v.Float(), 32)
	case reflect.Float64:
		return appendFloat(b, v.Float(), 64)
	}
	return b, ErrUnsupported
}

func encodeStruct(b []byte, v reflect.Value, in *info, depth int) ([]byte, error) {
	b = append(b, '{')
	first := true
	for i := range in.fields {
		f := &in.fields[i]
		fv := v.FieldByIndex(f.index)
		if f.omitEmpty && empty(fv) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.key...)
		var err error
		switch f.scalar {
		case 0:
			b, err = encode(b, fv, depth+1)
		case reflect.String:
			b = appendString(b, fv.String())
		default:
			b, err = encodeScalar(b, fv)
		}
		if err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func encodeSlice(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if v.IsNil() {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = encode(b, v.Index(i), depth+1); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func encodeMap(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if v.IsNil() {
		return append(b, "null"...), nil
	}
	type member struct {
		key   string
		value reflect.Value
	}
	members := make([]member, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		members = append(members, member{it.Key().String(), it.Value()})
	}
	// byte order, as encoding/json sorts (sort.Slice: the engine links it
	// already, a generic sort would add its own code)
	sort.Slice(members, func(i, j int) bool { return members[i].key < members[j].key })
	b = append(b, '{')
	for i := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, members[i].key), ':')
		var err error
		if b, err = encode(b, members[i].value, depth+1); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendRaw appends a json.RawMessage as encoding/json does: null for
// nil, else the document compacted (whitespace between tokens dropped);
// one that is not a single JSON value is an error, as there.
func appendRaw(b []byte, raw []byte) ([]byte, error) {
	if raw == nil {
		return append(b, "null"...), nil
	}
	if !json.Valid(raw) { // encoding/json's scanner: the decoder links it anyway
		return b, errRawMessage
	}
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case in:
			b = append(b, c)
			if c == '\\' && i+1 < len(raw) {
				i++
				b = append(b, raw[i])
			} else if c == '"' {
				in = false
			}
		case c == '"':
			in = true
			b = append(b, c)
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			b = append(b, c)
		}
	}
	return b, nil
}

var errRawMessage = errors.New("json: error calling MarshalJSON for type json.RawMessage: not one valid JSON value")

// empty is encoding/json's omitempty test.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// appendFloat formats f as encoding/json does (ES6 number formatting);
// NaN and infinities fail with encoding/json's error.
func appendFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, unsupportedValue(strconv.FormatFloat(f, 'g', -1, bits))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping off.
// A string without escapes (most are) is copied here: AppendString,
// large, is called only for the others, so V8 does not recompile it for
// being called per string ("V8's tiers" in docs/architecture.md).
func appendString(b []byte, s string) []byte {
	if plainRun(s, false) == len(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return AppendString(b, s, false)
}

// plainRun is how many leading bytes of s AppendString copies as they are
// (ASCII that needs no escape). The byte loop lives here, in a small
// function, and AppendString's own loop turns once per escape: in WASM, V8
// optimises a function by the work its loops do times its size
// (docs/architecture.md, "V8's tiers"); hence also not inlined.
//
//go:noinline
func plainRun(s string, html bool) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || html && (c == '<' || c == '>' || c == '&') {
			return i
		}
	}
	return len(s)
}

// AppendString appends s quoted exactly as encoding/json writes it: \" \\
// \b \f \n \r \t, other control characters as \u00XX, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped, and with html also <, > and & as
// \u00XX (json.Marshal's default; an Encoder with SetEscapeHTML(false)
// leaves them).
func AppendString(b []byte, s string, html bool) []byte {
	i := plainRun(s, html)
	if i == len(s) { // nearly every string: no escape, and no call to appendEscaped, a large function
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	return appendEscaped(b, s, i, html)
}

// appendEscaped is AppendString for a string whose first byte to escape
// (or to read as UTF-8) is s[i]. The bytes that are plain or have a
// two-byte escape (a Markdown text is mostly these) go through
// appendShort, a small function; this loop turns once per other byte or
// non-ASCII rune (in WASM each turn charges V8's tiering budget at this
// function's size: docs/architecture.md, "V8's tiers").
func appendEscaped(b []byte, s string, i int, html bool) []byte {
	b = append(b, '"')
	b = append(b, s[:i]...)
	for i < len(s) {
		if b, i = appendShort(b, s, i, html); i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf { // another control character, or <, > or & with html
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// shortEscape is the letter of an ASCII byte's two-byte escape (\" \\ \b
// \f \n \r \t), 0 for the others.
var shortEscape = [utf8.RuneSelf]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// appendShort appends s[i:] up to the first byte that is neither plain nor
// has a two-byte escape (or to its end), escaped, and returns that byte's
// index. Its loops call nothing, and it is not inlined (see appendEscaped).
//
//go:noinline
func appendShort(b []byte, s string, i int, html bool) ([]byte, int) {
	j, extra := i, 0
	for ; j < len(s); j++ {
		c := s[j]
		if c >= utf8.RuneSelf {
			break
		}
		if c >= 0x20 && c != '"' && c != '\\' && !(html && (c == '<' || c == '>' || c == '&')) {
			continue
		}
		if shortEscape[c] == 0 {
			break
		}
		extra++
	}
	b = slices.Grow(b, j-i+extra)
	n := len(b)
	b = b[:n+j-i+extra]
	for k := i; k < j; k++ {
		if e := shortEscape[s[k]]; e != 0 {
			b[n], b[n+1] = '\\', e
			n += 2
			continue
		}
		b[n] = s[k]
		n++
	}
	return b, j
}
