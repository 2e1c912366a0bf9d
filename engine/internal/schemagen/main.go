// Command schemagen writes engine/schemas.json: the JSON Schema of every
// operation's input, reflected from the engine's Go input types (the one
// source of truth). It runs at go generate time so the reflection library
// never links into the engine itself.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"

	"github.com/invopop/jsonschema"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/drafts"
)

func main() {
	out := flag.String("o", "schemas.json", "output file")
	flag.Parse()
	data, err := Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

// Generate returns the schemas document: {"<operation>": <schema>, …}.
func Generate() ([]byte, error) {
	r := &jsonschema.Reflector{
		RequiredFromJSONSchemaTags: true,
		DoNotReference:             true,
		ExpandedStruct:             true,
		AllowAdditionalProperties:  false,
	}
	types := engine.InputTypes(drafts.Operations()...)
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	all := map[string]*jsonschema.Schema{}
	for _, n := range names {
		s := r.Reflect(types[n])
		s.Version = "https://json-schema.org/draft/2020-12/schema"
		s.ID = ""
		s.Title = n + " input"
		all[n] = s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(all); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
