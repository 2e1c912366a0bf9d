package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/kontext/kontext/engine"
)

// TestSchemasAgreeWithDecoder checks the generated schemas against the
// engine's own input decoding: inputs the engine accepts validate, and
// inputs it rejects for shape (unknown field, wrong type, missing required
// field) do not.
func TestSchemasAgreeWithDecoder(t *testing.T) {
	data, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]*jsonschema.Schema
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != len(engine.InputTypes(native()...)) {
		t.Fatalf("%d schemas for %d operations", len(all), len(engine.InputTypes(native()...)))
	}
	e := engine.New(engine.Options{FS: memfs.New(), Surface: engine.Native, Operations: native()})
	cases := []struct {
		op, input string
		ok        bool
	}{
		{"status", `{}`, true},
		{"status", `{"dir":"."}`, true},
		{"status", `{"verbose":true}`, false},
		{"entries.list", `{"limit":5,"offset":2,"active_only":true,"kinds":["adr"],"tags":["x"]}`, true},
		{"entries.list", `{"limit":"5"}`, false},
		{"entries.get", `{"id":"x"}`, true},
		{"entries.get", `{}`, false},
		{"entries.search", `{"query":"cron","limit":3}`, true},
		{"entries.search", `{"query":7}`, false},
		{"entries.governing", `{"paths":["a"],"exclude_ids":["b"],"limit":1,"min_specificity":2}`, true},
		{"entries.governing", `{"paths":"a"}`, false},
		{"entries.governing", `{}`, false},
		{"entries.related", `{"text":"x","llm":false}`, true},
		{"entries.related", `{"text":"x","llm":3}`, false},
		{"api.describe", `{"operation":"status"}`, true},
		{"setup", `{}`, true},
	}
	for _, c := range cases {
		s, ok := all[c.op]
		if !ok {
			t.Fatalf("no schema for %s", c.op)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		var inst any
		if err := json.Unmarshal([]byte(c.input), &inst); err != nil {
			t.Fatal(err)
		}
		valid := rs.Validate(inst) == nil
		if valid != c.ok {
			t.Errorf("%s %s: schema says valid=%v, want %v", c.op, c.input, valid, c.ok)
		}
		_, derr := e.Do(context.Background(), c.op, []byte(c.input))
		if c.ok && derr != nil && isShapeError(derr) {
			t.Errorf("%s %s: schema-valid input rejected by the engine: %v", c.op, c.input, derr)
		}
		if !c.ok && derr == nil {
			t.Errorf("%s %s: schema-invalid input accepted by the engine", c.op, c.input)
		}
	}
}

func isShapeError(err error) bool {
	m := err.Error()
	return json.Valid([]byte(m)) || strings.Contains(m, "unknown field") || strings.Contains(m, "must be")
}
