// Package codec owns a small JSON encoder and decoder for the API's values
// that give, byte for byte and value for value, what encoding/json gives
// (HTML escaping off; strict decoding with unknown fields refused).
//
// Why a second codec: in the WASM engine, encoding/json's first use costs
// 30–50 ms (its decoder and encoder are large, and every function is
// compiled on its first call), which is most of a cold process's first
// answer. These cover the plain shapes the API uses and report false for
// anything else (a Marshaler, an interface input, a name they would have
// to fold, malformed input): the caller then uses encoding/json, so its
// errors and its answers for unusual input stay the reference.
package codec

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// field is one JSON member of a struct type.
type field struct {
	name      string
	key       []byte // `"name":`, escaped as the encoder writes it
	index     []int
	omitEmpty bool
	// scalar is the kind of a field of a plain bool, number or string
	// type (0 otherwise): encoded without looking its type up.
	scalar reflect.Kind
}

// info is what the codec knows of a type: whether it handles it (and, for
// structs, the members in encoding/json's order).
type info struct {
	ok     bool
	fields []field
}

// The cache is a map replaced on every addition (few types, each added
// once) behind an atomic pointer: a read takes no lock, and its first use
// compiles nothing big (sync.Map's generic trie is compiled on its first
// call in the WASM engine). The next map is filled from infos, not by
// ranging over the last one: in WASM, ranging over maps this often had V8
// optimise the runtime's map iterator during a first answer
// (docs/architecture.md, "V8's tiers").
var (
	mu    sync.Mutex // serialises additions
	cache atomic.Pointer[map[reflect.Type]*info]
	infos []typeInfo // every addition, in order (under mu)
)

type typeInfo struct {
	t  reflect.Type
	in *info
}

// infoOf describes t; only its own kind is checked (element types are
// checked when reached), so recursive types need no placeholder.
func infoOf(t reflect.Type) *info {
	if m := cache.Load(); m != nil {
		if in, ok := (*m)[t]; ok {
			return in
		}
	}
	in := &info{ok: plain(t)}
	if in.ok && t.Kind() == reflect.Struct {
		in.fields, in.ok = fieldsOf(t)
	}
	mu.Lock()
	defer mu.Unlock()
	infos = append(infos, typeInfo{t, in})
	m := make(map[reflect.Type]*info, len(infos))
	for _, ti := range infos {
		m[ti.t] = ti.in
	}
	cache.Store(&m)
	return in
}

// plain reports whether t has no custom (un)marshalling of its own and is
// of a kind both directions handle the way encoding/json does.
func plain(t reflect.Type) bool {
	if custom(t) {
		return false
	}
	// *T's methods: only a named type or a struct (promoted methods) can
	// have any. PointerTo is not called for the others: for a type whose
	// pointer type is not in the binary it searches every type by name.
	if k := t.Kind(); (t.PkgPath() != "" || k == reflect.Struct) && k != reflect.Interface && k != reflect.Pointer && custom(reflect.PointerTo(t)) {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Pointer, reflect.Interface, reflect.Struct:
		return true
	case reflect.Slice:
		return t.Elem().Kind() != reflect.Uint8 // []byte is base64
	case reflect.Map:
		return t.Key().Kind() == reflect.String
	}
	return false // arrays, uintptr, complex, chan, func
}

// custom reports whether t has custom (un)marshalling (json.Marshaler,
// encoding.TextUnmarshaler…). A type without methods is answered without
// Implements, whose first call costs milliseconds in the WASM engine
// (and reflect's Method would keep every method in the binary).
func custom(t reflect.Type) bool {
	if t.NumMethod() == 0 || t == rawPointer { // *json.RawMessage: its value is encoded (appendRaw)
		return false
	}
	for _, m := range [...]reflect.Type{marshaler, unmarshaler, textMarshaler, textUnmarshaler} {
		if t.Implements(m) {
			return true
		}
	}
	return false
}

var (
	marshaler       = reflect.TypeFor[json.Marshaler]()
	unmarshaler     = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawPointer      = reflect.TypeFor[*json.RawMessage]()
)

// jsonTag is the value of tag's json key ("" when absent). ok is false
// when the tag is not in the conventional format or the value has an
// escape: those are left to encoding/json. (StructTag.Get unquotes with
// strconv.Unquote, whose first call costs milliseconds in the WASM
// engine.)
func jsonTag(tag reflect.StructTag) (value string, ok bool) {
	for {
		for tag != "" && tag[0] == ' ' {
			tag = tag[1:]
		}
		if tag == "" {
			return "", true
		}
		i := 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return "", false
		}
		name := tag[:i]
		tag = tag[i+1:] // from the opening quote
		j, escaped := 1, false
		for j < len(tag) && tag[j] != '"' {
			if tag[j] == '\\' {
				j++
				escaped = true
			}
			j++
		}
		if j >= len(tag) {
			return "", false
		}
		if name == "json" {
			v := string(tag[1:j])
			// what strconv.Unquote takes as it is
			return v, !escaped && !strings.Contains(v, "\n") && utf8.ValidString(v)
		}
		tag = tag[j+1:]
	}
}

// fieldsOf lists t's members in encoding/json's order (by index path):
// exported fields, with untagged embedded structs flattened. What needs
// its dominance rules (two members of one name, an embedded pointer) or
// an option other than omitempty is left to encoding/json.
func fieldsOf(t reflect.Type) ([]field, bool) {
	var out []field
	seen := map[string]bool{}
	var walk func(t reflect.Type, index []int) bool
	walk = func(t reflect.Type, index []int) bool {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if sf.Anonymous {
				ft := sf.Type
				if ft.Kind() == reflect.Pointer {
					return false
				}
				if !sf.IsExported() && ft.Kind() != reflect.Struct {
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			tag, ok := jsonTag(sf.Tag)
			if !ok {
				return false
			}
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if !validName(name) {
				name = ""
			}
			omit := false
			for opts != "" {
				var o string
				o, opts, _ = strings.Cut(opts, ",")
				switch o {
				case "omitempty":
					omit = true
				case "string", "omitzero":
					return false
				}
			}
			at := append(append([]int(nil), index...), i)
			if name == "" && sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				if !walk(sf.Type, at) {
					return false
				}
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if seen[name] {
				return false
			}
			seen[name] = true
			f := field{name: name, key: append(appendString(nil, name), ':'), index: at, omitEmpty: omit}
			switch k := sf.Type.Kind(); k {
			case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
				reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				if plain(sf.Type) {
					f.scalar = k
				}
			}
			out = append(out, f)
		}
		return true
	}
	return out, walk(t, nil)
}

// validName is encoding/json's test of a tag's name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
