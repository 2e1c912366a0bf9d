package codec

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestJSONTagIsLookup: jsonTag reads what StructTag.Lookup reads, or
// declines.
func TestJSONTagIsLookup(t *testing.T) {
	cases := []reflect.StructTag{
		``, `json:"a"`, `json:"a,omitempty"`, `json:"-"`, `json:"-,"`, `json:""`, `yaml:"x" json:"b"`,
		`json:"c" jsonschema:"required" jsonschema_description:"Up to 50 {ref; quote?}: a \"q\" here"`,
		`jsonschema_description:"a \"json:\\\"x\\\"\" b" json:"d"`, `json:"e\"f"`, `json:"g`, `json`, `json:g`, ` json:"h" `,
		`  yaml:"1"   json:"i"`, `json:"j" json:"k"`, `x:"\\" json:"l"`, `:"x" json:"m"`, `json :"n"`, "json:\"\x7f\"",
	}
	r := rand.New(rand.NewPCG(5, 6))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	for i := 0; i < 20000; i++ {
		var tag string
		for n := r.IntN(4); n > 0; n-- {
			value := ""
			for k := r.IntN(6); k > 0; k-- {
				value += pick("a", ",", "-", "omitempty", " ", `\"`, `\\`, `\n`, "\n", "\xff", "é", `"`, ":")
			}
			tag += pick("", " ", "  ") + pick("json", "yaml", "x", "", "js on") + pick(":", "", " :") + pick(`"`, "") + value + pick(`"`, "")
		}
		cases = append(cases, reflect.StructTag(tag))
	}
	declined := 0
	for _, tag := range cases {
		got, ok := jsonTag(tag)
		if !ok {
			declined++
			continue
		}
		if want, _ := tag.Lookup("json"); got != want {
			t.Fatalf("jsonTag(%q) = %q, Lookup %q", tag, got, want)
		}
	}
	if declined == len(cases) {
		t.Fatal("every tag declined")
	}
}
