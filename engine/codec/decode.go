package codec

import (
	"reflect"
	"strconv"
	"unicode/utf8"
)

// maxNesting bounds the decoder's recursion; deeper documents go to
// encoding/json.
const maxNesting = 100

// Decode decodes data, one JSON document, into v (a pointer to a zero
// value) and reports true when it is sure to give exactly what
// encoding/json's Decoder with DisallowUnknownFields gives. On false v is
// unchanged: decode with encoding/json instead (it also words the error).
// Member names must match exactly (encoding/json also folds case), and a
// member given twice, an interface destination, an escaped surrogate or
// any error gives false.
func Decode(data []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || !rv.Elem().IsZero() || !utf8.Valid(data) {
		return false
	}
	fresh := reflect.New(rv.Elem().Type())
	d := decoder{data: data}
	if !d.value(fresh.Elem(), 0) {
		return false
	}
	d.space()
	if d.at != len(d.data) {
		return false
	}
	rv.Elem().Set(fresh.Elem())
	return true
}

type decoder struct {
	data []byte
	at   int
}

// space skips whitespace and returns the position after it.
func (d *decoder) space() int {
	for d.at < len(d.data) {
		switch d.data[d.at] {
		case ' ', '\t', '\n', '\r':
			d.at++
		default:
			return d.at
		}
	}
	return d.at
}

// value decodes the next value into v.
func (d *decoder) value(v reflect.Value, depth int) bool {
	if depth > maxNesting || !infoOf(v.Type()).ok {
		return false
	}
	d.space()
	if d.at >= len(d.data) {
		return false
	}
	c := d.data[d.at]
	if c == 'n' {
		if !d.literal("null") {
			return false
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice:
			v.SetZero()
		case reflect.Interface:
			return false
		}
		return true // encoding/json ignores null for the other kinds
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.value(v.Elem(), depth+1)
	case reflect.Bool:
		switch {
		case c == 't' && d.literal("true"):
			v.SetBool(true)
		case c == 'f' && d.literal("false"):
			v.SetBool(false)
		default:
			return false
		}
		return true
	case reflect.String:
		s, ok := d.str()
		if ok {
			v.SetString(s)
		}
		return ok
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		n, ok := d.number()
		return ok && setNumber(v, n)
	case reflect.Slice:
		return c == '[' && d.array(v, depth)
	case reflect.Map:
		return c == '{' && d.object(v, depth)
	case reflect.Struct:
		return c == '{' && d.object(v, depth)
	}
	return false
}

// setNumber stores the JSON number n in v as encoding/json does: an
// integer kind takes only an integer literal in its range.
func setNumber(v reflect.Value, n string) bool {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(n, 10, 64)
		if err != nil || v.OverflowInt(i) {
			return false
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, err := strconv.ParseUint(n, 10, 64)
		if err != nil || v.OverflowUint(u) {
			return false
		}
		v.SetUint(u)
	default:
		f, err := strconv.ParseFloat(n, v.Type().Bits())
		if err != nil || v.OverflowFloat(f) {
			return false
		}
		v.SetFloat(f)
	}
	return true
}

func (d *decoder) literal(s string) bool {
	if len(d.data)-d.at < len(s) || string(d.data[d.at:d.at+len(s)]) != s {
		return false
	}
	d.at += len(s)
	return true
}

// array decodes a JSON array into the slice v; an empty array gives an
// empty, non-nil slice, as encoding/json does.
func (d *decoder) array(v reflect.Value, depth int) bool {
	d.at++ // [
	out := reflect.MakeSlice(v.Type(), 0, 0)
	d.space()
	if d.at < len(d.data) && d.data[d.at] == ']' {
		d.at++
		v.Set(out)
		return true
	}
	for {
		elem := reflect.New(v.Type().Elem()).Elem()
		if !d.value(elem, depth+1) {
			return false
		}
		out = reflect.Append(out, elem)
		if end, ok := d.next(']'); !ok || end {
			if end {
				v.Set(out)
			}
			return end
		}
	}
}

// object decodes a JSON object into the struct or map v.
func (d *decoder) object(v reflect.Value, depth int) bool {
	d.at++ // {
	isMap := v.Kind() == reflect.Map
	var fields []field
	var seen []bool
	if isMap {
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
	} else {
		fields = infoOf(v.Type()).fields
		seen = make([]bool, len(fields))
	}
	d.space()
	if d.at < len(d.data) && d.data[d.at] == '}' {
		d.at++
		return true
	}
	for {
		d.space()
		if d.at >= len(d.data) || d.data[d.at] != '"' {
			return false
		}
		key, ok := d.str()
		if !ok {
			return false
		}
		d.space()
		if d.at >= len(d.data) || d.data[d.at] != ':' {
			return false
		}
		d.at++
		if isMap {
			elem := reflect.New(v.Type().Elem()).Elem()
			if !d.value(elem, depth+1) {
				return false
			}
			v.SetMapIndex(reflect.ValueOf(key).Convert(v.Type().Key()), elem)
		} else {
			i := fieldNamed(fields, key)
			if i < 0 || seen[i] {
				return false // unknown, folded or repeated: encoding/json decides
			}
			seen[i] = true
			if !d.value(v.FieldByIndex(fields[i].index), depth+1) {
				return false
			}
		}
		if end, ok := d.next('}'); !ok || end {
			return end
		}
	}
}

// next reads what follows a member or an element: a comma (end false) or
// the closing byte close (end true); ok is false for anything else.
func (d *decoder) next(close byte) (end, ok bool) {
	if d.space() >= len(d.data) {
		return false, false
	}
	switch d.data[d.at] {
	case ',':
		d.at++
		return false, true
	case close:
		d.at++
		return true, true
	}
	return false, false
}

func fieldNamed(fields []field, name string) int {
	for i := range fields {
		if fields[i].name == name {
			return i
		}
	}
	return -1
}

// number scans a JSON number and returns its text.
func (d *decoder) number() (string, bool) {
	start := d.at
	digits := func() int {
		n := 0
		for d.at < len(d.data) && d.data[d.at] >= '0' && d.data[d.at] <= '9' {
			d.at++
			n++
		}
		return n
	}
	if d.at < len(d.data) && d.data[d.at] == '-' {
		d.at++
	}
	if d.at < len(d.data) && d.data[d.at] == '0' {
		d.at++
	} else if digits() == 0 {
		return "", false
	}
	if d.at < len(d.data) && d.data[d.at] == '.' {
		d.at++
		if digits() == 0 {
			return "", false
		}
	}
	if d.at < len(d.data) && (d.data[d.at] == 'e' || d.data[d.at] == 'E') {
		d.at++
		if d.at < len(d.data) && (d.data[d.at] == '+' || d.data[d.at] == '-') {
			d.at++
		}
		if digits() == 0 {
			return "", false
		}
	}
	return string(d.data[start:d.at]), true
}

// str scans a JSON string (d.at on its quote) and returns its value.
func (d *decoder) str() (string, bool) {
	if d.at >= len(d.data) || d.data[d.at] != '"' {
		return "", false
	}
	d.at++
	var buf []byte // the value so far when it had an escape
	start := d.at
	for d.at < len(d.data) {
		c := d.data[d.at]
		switch {
		case c == '"':
			s := d.data[start:d.at]
			d.at++
			if buf == nil {
				return string(s), true
			}
			return string(append(buf, s...)), true
		case c < 0x20:
			return "", false
		case c != '\\':
			d.at++
			continue
		}
		buf = append(buf, d.data[start:d.at]...)
		if d.at+1 >= len(d.data) {
			return "", false
		}
		e := d.data[d.at+1]
		d.at += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := rune(0)
			for k := 0; k < 4; k++ {
				if d.at >= len(d.data) {
					return "", false
				}
				h := d.data[d.at]
				d.at++
				switch {
				case h >= '0' && h <= '9':
					r = r<<4 | rune(h-'0')
				case h >= 'a' && h <= 'f':
					r = r<<4 | rune(h-'a'+10)
				case h >= 'A' && h <= 'F':
					r = r<<4 | rune(h-'A'+10)
				default:
					return "", false
				}
			}
			if r >= 0xd800 && r < 0xe000 {
				return "", false // a surrogate: encoding/json pairs or replaces it
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", false
		}
		start = d.at
	}
	return "", false
}
