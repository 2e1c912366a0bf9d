package jsonin

import (
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/apierr"
)

type input struct {
	Paths []string `json:"paths"`
	Limit *int     `json:"limit"`
	Name  string   `json:"name"`
}

func TestDecodeRejects(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"malformed":     {`{"paths": [`, "malformed JSON"},
		"array":         {`[1,2]`, "must be a JSON object, got an array"},
		"string":        {`"x"`, "must be a JSON object, got a string"},
		"empty":         {``, "input is empty"},
		"unknown field": {`{"pathz": []}`, `unknown field "pathz"`},
		"wrong type":    {`{"paths": "src/a.go"}`, `field "paths" must be an array`},
		"wrong number":  {`{"limit": "5"}`, `field "limit" must be an integer, got a JSON string`},
		"fraction":      {`{"limit": 1.5}`, `field "limit" must be an integer, got a JSON number 1.5`},
		"trailing":      {`{} {}`, "data after the JSON object"},
		"bad utf8":      {"{\"name\": \"\xff\"}", "not valid UTF-8"},
		"deep":          {`{"name":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "nested deeper than 64"},
		"too large":     {`{"name":"` + strings.Repeat("a", MaxSize) + `"}`, "limit is 2097152 bytes"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var v input
			err := Decode([]byte(c.in), &v)
			if err == nil {
				t.Fatalf("Decode(%q) succeeded", c.in)
			}
			if apierr.CodeOf(err) != apierr.InvalidInput {
				t.Fatalf("code = %s, want invalid_input", apierr.CodeOf(err))
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("message %q does not contain %q", err.Error(), c.want)
			}
		})
	}
}

func TestDecodeAccepts(t *testing.T) {
	var v input
	if err := Decode([]byte(` {"paths":["a","b"],"limit":3,"name":"[{\"x"} `), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Paths) != 2 || *v.Limit != 3 || v.Name != `[{"x` {
		t.Fatalf("decoded %+v", v)
	}
}

func TestField(t *testing.T) {
	var d string
	if err := Field([]byte(`{"dir":"sub","x":1}`), "dir", &d); err != nil || d != "sub" {
		t.Fatalf("Field = %q, %v", d, err)
	}
	if err := Field([]byte(`{"dir":3}`), "dir", &d); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Fatalf("Field with a number: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"paths":["a"]}`, `[`, `{"limit":1e400}`, "\xff", `{"a":{"b":[[[]]]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v input
		err := Decode(data, &v)
		if err != nil && apierr.CodeOf(err) != apierr.InvalidInput {
			t.Fatalf("code %s for %q", apierr.CodeOf(err), data)
		}
	})
}
