package codec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/codec"
	"github.com/kontext/kontext/engine/drafts"
	"github.com/kontext/kontext/engine/models"
	"github.com/kontext/kontext/engine/worktree"
)

// reference is what the engine wrote before: an encoding/json Encoder
// with HTML escaping off, without the newline.
func reference(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func table() []engine.Operation {
	return engine.Table(append(append(drafts.Operations(), worktree.Operations()...), models.Operations()...)...)
}

// reads are the operations every surface serves: their inputs and
// results must take the fast path, or the WASM engine's first answer
// pays for encoding/json again.
var reads = map[string]bool{"status": true, "entries.list": true, "entries.get": true,
	"entries.search": true, "entries.governing": true, "entries.related": true}

func TestAppendIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, op := range table() {
		types := append([]reflect.Type{op.Input()}, op.Results()...)
		for _, typ := range types {
			fast := 0
			for i := 0; i < 200; i++ {
				v := reflect.New(typ).Elem()
				fill(r, v, 0)
				want, err := reference(v.Interface())
				got, cerr := codec.Append([]byte("prefix"), v.Interface())
				if errors.Is(cerr, codec.ErrUnsupported) {
					continue
				}
				fast++
				if (err == nil) != (cerr == nil) {
					t.Fatalf("%s %s: encoding/json: %v; Append: %v", op.Name(), typ, err, cerr)
				}
				if err != nil {
					continue
				}
				if !bytes.Equal(got[len("prefix"):], want) {
					t.Fatalf("%s %s:\n got %s\nwant %s", op.Name(), typ, got[len("prefix"):], want)
				}
			}
			if reads[op.Name()] && typ != op.Input() && fast != 200 {
				t.Errorf("%s %s: the fast path took %d of 200 values", op.Name(), typ, fast)
			}
		}
	}
}

func TestAppendCases(t *testing.T) {
	type inner struct {
		A int `json:"a,omitempty"`
	}
	type embedded struct {
		Dir string `json:"dir,omitempty"`
	}
	type outer struct {
		embedded
		S     string            `json:"s"`
		P     *inner            `json:"p"`
		O     *inner            `json:"o,omitempty"`
		L     []string          `json:"l"`
		E     []string          `json:"e,omitempty"`
		M     map[string]any    `json:"m"`
		N     map[string]string `json:"n,omitempty"`
		F     float64           `json:"f"`
		F32   float32           `json:"f32"`
		U     uint16            `json:"u"`
		B     bool              `json:"b,omitempty"`
		Named string
		skip  int
		Dash  int `json:"-"`
		Comma int `json:"-,"`
	}
	strs := []string{"", "plain", "q\"b\\s", "\x00\x01\x1f\x7f", "\b\f\n\r\t", "<a href='x'>&amp;</a>", "\u2028\u2029", "é日本🙂",
		"bad\xff\xfeutf8", "\xed\xa0\x80", "trail\xc3"}
	floats := []float64{0, -0.0, 1, -1.5, 1e-6, 9.99e-7, 1e20, 1e21, 123456789012345678, 0.1, math.MaxFloat64, math.SmallestNonzeroFloat64, 3.4e38}
	var cases []any
	for _, s := range strs {
		cases = append(cases, s, map[string]any{s: s}, []any{s, nil, true})
	}
	for _, f := range floats {
		cases = append(cases, f)
		if !math.IsInf(float64(float32(f)), 0) {
			cases = append(cases, float32(f), outer{F: f, F32: float32(f)})
		}
	}
	cases = append(cases,
		outer{}, outer{embedded: embedded{Dir: "d"}, P: &inner{}, O: &inner{A: 1}, L: []string{}, E: []string{}, M: map[string]any{}, N: map[string]string{}},
		outer{M: map[string]any{"z": 1, "a": []any{map[string]any{"k": nil}}, "m": int64(-5), "u": uint64(math.MaxUint64)}},
		nil, []int(nil), map[string]int(nil), (*inner)(nil), []*inner{nil, {A: 2}},
	)
	for _, c := range cases {
		want, err := reference(c)
		if err != nil {
			t.Fatalf("%#v: %v", c, err)
		}
		got, err := codec.Append(nil, c)
		if err != nil {
			t.Errorf("%#v: %v", c, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%#v:\n got %s\nwant %s", c, got, want)
		}
	}
	// What is left to encoding/json.
	type tagged struct {
		N int `json:"n,string"`
	}
	type conflict struct {
		embedded
		Dir string `json:"dir"`
	}
	for _, c := range []any{[]byte("x"), [2]int{}, time.Time{}, tagged{}, conflict{}, map[int]string{1: "a"}, struct{ C chan int }{}} {
		if got, err := codec.Append(nil, c); !errors.Is(err, codec.ErrUnsupported) {
			t.Errorf("%#v: taken by the fast path (%s, %v)", c, got, err)
		}
	}
	// What encoding/json refuses too, with its words.
	for _, c := range []any{math.NaN(), math.Inf(-1), float32(math.Inf(1)), map[string]any{"x": []any{math.NaN()}}} {
		_, want := reference(c)
		_, err := codec.Append(nil, c)
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%#v: Append %v, encoding/json %v", c, err, want)
		}
	}
}

// TestRawMessage: json.RawMessage is compacted, and refused when it is not
// one JSON value, as encoding/json does.
func TestRawMessage(t *testing.T) {
	type holder struct {
		R json.RawMessage  `json:"r"`
		O json.RawMessage  `json:"o,omitempty"`
		P *json.RawMessage `json:"p"`
	}
	p := json.RawMessage(`[1, 2]`)
	good := []string{`{}`, ` { "a" : [ 1 , 2.5e3 , true , null , "x \" \u00e9 \ud83d\ude00 <&>" ] } `, "\n\t\"s p\"\r\n", `-0`, `[[[]]]`, `{"a":{"b":{}}}`}
	bad := []string{``, ` `, `{`, `[1,]`, `{"a"}`, `01`, `"\x"`, `"\u12"`, `tru`, `1 2`, `{"a":1,}`, "\"\x01\""}
	for _, raw := range good {
		for _, v := range []any{json.RawMessage(raw), holder{R: json.RawMessage(raw), O: json.RawMessage(raw), P: &p}} {
			want, err := reference(v)
			got, cerr := codec.Append(nil, v)
			if err != nil || cerr != nil || !bytes.Equal(got, want) {
				t.Errorf("%q:\n got %s (%v)\nwant %s (%v)", raw, got, cerr, want, err)
			}
		}
	}
	for _, raw := range bad {
		if _, err := reference(json.RawMessage(raw)); err == nil {
			t.Fatalf("%q: encoding/json took it", raw)
		}
		if got, err := codec.Append(nil, json.RawMessage(raw)); err == nil || errors.Is(err, codec.ErrUnsupported) {
			t.Errorf("%q: Append gave %s, %v", raw, got, err)
		}
	}
	var nilRaw json.RawMessage
	for _, v := range []any{nilRaw, holder{}} {
		want, _ := reference(v)
		if got, err := codec.Append(nil, v); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%#v: %s %v, want %s", v, got, err, want)
		}
	}
}

func TestDecodeIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, op := range table() {
		typ := op.Input()
		fast, mutants := 0, 0
		for i := 0; i < 200; i++ {
			v := reflect.New(typ).Elem()
			fill(r, v, 0)
			doc, err := json.Marshal(v.Interface())
			if err != nil {
				continue // NaN: no document
			}
			if check(t, op.Name(), typ, doc) {
				fast++
			}
			for j := 0; j < 5; j++ {
				if check(t, op.Name(), typ, mutate(r, doc)) {
					mutants++
				}
			}
		}
		// entries.related's input has llm, a json.RawMessage: left to encoding/json when given.
		if reads[op.Name()] && op.Name() != "entries.related" && fast != 200 {
			t.Errorf("%s: the fast path took %d of 200 documents", op.Name(), fast)
		}
	}
}

func TestDecodeCases(t *testing.T) {
	type in struct {
		Paths []string          `json:"paths"`
		Limit *int              `json:"limit,omitempty"`
		N     int8              `json:"n"`
		U     uint              `json:"u"`
		F     float32           `json:"f"`
		B     bool              `json:"b"`
		S     string            `json:"s"`
		M     map[string]string `json:"m"`
		P     *struct {
			X []int `json:"x"`
		} `json:"p"`
	}
	docs := []string{
		`{}`, ` {"paths":["a","b"]} `, `{"paths":[]}`, `{"paths":null}`, `{"limit":null}`, `{"limit":0}`, `{"n":127}`, `{"n":128}`, `{"n":-128}`,
		`{"n":1.0}`, `{"n":1e2}`, `{"u":-1}`, `{"u":18446744073709551615}`, `{"f":3.5e38}`, `{"f":1e-50}`, `{"b":null}`, `{"s":null}`,
		`{"s":"a\"\\\/\b\f\n\r\tz\u00e9\u2028"}`, `{"s":"\ud83d\ude00"}`, `{"s":"\ud800"}`, `{"s":"` + "\x01" + `"}`, `{"s":"\x"}`,
		`{"m":{"a":"1","a":"2"}}`, `{"m":{}}`, `{"p":{"x":[1,2]}}`, `{"p":null}`, `{"PATHS":["a"]}`, `{"paths":["a"],"paths":["b"]}`,
		`{"other":1}`, `{"paths":"a"}`, `{"paths":[1]}`, `{"n":"1"}`, `{"n":01}`, `{"n":-}`, `{"n":1.}`, `{"n":.5}`, `{"f":1e}`,
		`{"paths":["a"]} x`, `{"paths":["a"],}`, `{,}`, `{"s":"a"`, `{"s" "a"}`, `[]`, `null`, `"x"`, `{"s":"` + "\xff" + `"}`,
		`{"b":tru}`, `{"b":truex}`, `{"n":1 }`, "{\"n\":\t1\r\n}",
	}
	for _, d := range docs {
		check(t, "case", reflect.TypeFor[in](), []byte(d))
	}
	// Taken by the fast path: the plain documents.
	for _, d := range []string{`{}`, `{"paths":["a","b"],"limit":3}`, `{"m":{"a":"1","a":"2"}}`, `{"s":"\u00e9"}`} {
		var v in
		if !codec.Decode([]byte(d), &v) {
			t.Errorf("%s: not taken by the fast path", d)
		}
	}
	// A value that is not zero is left to encoding/json (which merges).
	v := in{S: "keep"}
	if codec.Decode([]byte(`{}`), &v) {
		t.Error("decoded into a value that is not zero")
	}
}

// check decodes doc both ways into typ; when the fast path takes it,
// encoding/json must succeed with the same value.
func check(t *testing.T, op string, typ reflect.Type, doc []byte) bool {
	t.Helper()
	fast := reflect.New(typ)
	if !codec.Decode(doc, fast.Interface()) {
		if !fast.Elem().IsZero() {
			t.Fatalf("%s: a refused document changed the value: %s", op, doc)
		}
		return false
	}
	slow := reflect.New(typ)
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	err := dec.Decode(slow.Interface())
	if err == nil {
		if _, terr := dec.Token(); terr == nil {
			err = errTrailing
		}
	}
	if err != nil {
		t.Fatalf("%s: fast path took %s, encoding/json: %v", op, doc, err)
	}
	if !reflect.DeepEqual(fast.Interface(), slow.Interface()) {
		t.Fatalf("%s: %s decoded\n fast %#v\n  std %#v", op, doc, fast.Elem().Interface(), slow.Elem().Interface())
	}
	return true
}

var errTrailing = jsonError("data after the document")

type jsonError string

func (e jsonError) Error() string { return string(e) }

// mutate makes a near-miss of a valid document: a byte dropped, doubled or
// replaced, a member renamed, repeated or added.
func mutate(r *rand.Rand, doc []byte) []byte {
	d := append([]byte(nil), doc...)
	if len(d) < 3 {
		return d
	}
	i := 1 + r.IntN(len(d)-2)
	switch r.IntN(6) {
	case 0:
		return append(d[:i:i], d[i+1:]...)
	case 1:
		return append(d[:i+1:i+1], d[i:]...)
	case 2:
		const bytes = `"{}[],:0-1.eEtrufalsn\ \u00zZ`
		d[i] = bytes[r.IntN(len(bytes))]
		return d
	case 3:
		return bytes.Replace(d, []byte(`":`), []byte(`X":`), 1)
	case 4:
		if j := bytes.IndexByte(d, ','); j > 0 {
			k := bytes.IndexByte(d[1:], ',')
			if k > 0 {
				return append(append(append([]byte(nil), d[:len(d)-1]...), ','), d[1:k+1]...)
			}
		}
		return append(d[:len(d)-1], `,"zz":1}`...)
	default:
		return []byte(strings.ToUpper(string(d)))
	}
}

// fill sets v to a random value of its type: nil, empty and filled
// slices, maps and pointers; tricky strings and numbers.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	if !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(randString(r))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := r.Int64() >> r.IntN(64)
		if r.IntN(2) == 0 {
			n = -n
		}
		if !v.OverflowInt(n) {
			v.SetInt(n)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n := r.Uint64() >> r.IntN(64); !v.OverflowUint(n) {
			v.SetUint(n)
		}
	case reflect.Float32, reflect.Float64:
		f := []float64{0, 1, -2.5, 1e-7, 1e21, 0.3, 12345.678, r.Float64() * 1e6}[r.IntN(8)]
		v.SetFloat(f)
	case reflect.Pointer:
		if r.IntN(3) > 0 && depth < 6 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(r, v.Elem(), depth+1)
		}
	case reflect.Slice:
		switch n := r.IntN(4); {
		case n == 0 || depth >= 6:
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := 0; i < n-1; i++ {
				fill(r, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		switch n := r.IntN(4); {
		case n == 0 || depth >= 6:
		default:
			m := reflect.MakeMap(v.Type())
			for i := 0; i < n-1; i++ {
				k := reflect.New(v.Type().Key()).Elem()
				k.SetString(randString(r))
				e := reflect.New(v.Type().Elem()).Elem()
				fill(r, e, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Interface:
		if v.NumMethod() != 0 || depth >= 6 {
			return
		}
		switch r.IntN(7) {
		case 0:
		case 1:
			v.Set(reflect.ValueOf(randString(r)))
		case 2:
			v.Set(reflect.ValueOf(r.Float64() * 100))
		case 3:
			v.Set(reflect.ValueOf(r.IntN(2) == 0))
		case 4:
			v.Set(reflect.ValueOf(r.IntN(1000)))
		case 5:
			var s []any
			fill(r, reflect.ValueOf(&s).Elem(), depth+1)
			v.Set(reflect.ValueOf(s))
		default:
			var m map[string]any
			fill(r, reflect.ValueOf(&m).Elem(), depth+1)
			v.Set(reflect.ValueOf(m))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(r, v.Field(i), depth+1)
		}
	}
}

func randString(r *rand.Rand) string {
	parts := []string{"", "a", "src/**/*.go", "\"", "\\", "\n", "\t", "\x00", "\x1f", "<>&", "\u2028", "é", "🙂", "\xff", " ", "ADR-7", "/"}
	var b strings.Builder
	for n := r.IntN(5); n > 0; n-- {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// The warm cost per answer against encoding/json's (a 100-path governing
// answer is this size): the edge worker encodes one per request.
func BenchmarkAppend(b *testing.B) {
	v := benchValue()
	b.Run("codec", func(b *testing.B) {
		var buf []byte
		for i := 0; i < b.N; i++ {
			var err error
			if buf, err = codec.Append(buf[:0], v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := reference(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchValue() any {
	r := rand.New(rand.NewPCG(7, 8))
	for _, op := range table() {
		if op.Name() == "entries.governing" {
			v := reflect.New(op.Results()[0]).Elem()
			fill(r, v, 0)
			return v.Interface()
		}
	}
	return nil
}

// TestAppendStringIsEncodingJSON compares AppendString with encoding/json,
// HTML escaping on and off, on random strings mixing plain text, every
// two-byte escape, other control characters, <>&, U+2028/U+2029, other
// non-ASCII runes and invalid UTF-8, in runs of each and alone.
func TestAppendStringIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "plain text ", "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f",
		"<", ">", "&", "\u2028", "\u2029", "é", "日本", "🙂", "\xff", "\xe2\x80", "---\nstatus: \"x\"\n"}
	for i := 0; i < 20000; i++ {
		var sb strings.Builder
		for n := r.IntN(12); n >= 0; n-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := sb.String()
		want, _ := reference(s)
		if got := codec.AppendString([]byte("x"), s, false); string(got[1:]) != string(want) {
			t.Fatalf("AppendString(%q, false) = %s, want %s", s, got[1:], want)
		}
		wantHTML, _ := json.Marshal(s)
		if got := codec.AppendString(nil, s, true); string(got) != string(wantHTML) {
			t.Fatalf("AppendString(%q, true) = %s, want %s", s, got, wantHTML)
		}
	}
}
