package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/kontext/kontext/engine/api"
)

// ResultSchemas returns the results document: {"<operation>": <schema>, …},
// the JSON Schema (draft 2020-12) of each operation's result as the engine
// encodes it, derived from the same Go types as index.d.ts. Each schema is
// self-contained (no $ref): the MCP server puts it in its tools'
// outputSchema. Fields encoding/json always writes are required; a pointer
// it always writes may be null; objects stay open to added fields (the
// compatibility policy adds result fields without a version bump). A row
// with several result shapes is anyOf them. The MCP tools' own answer
// shapes (toolResults) are keyed by the tool's name.
func ResultSchemas() ([]byte, error) {
	all := map[string]map[string]any{}
	for _, op := range table() {
		var shapes []map[string]any
		for _, r := range op.Results() {
			shapes = append(shapes, resultSchema(r, map[reflect.Type]bool{}))
		}
		s := shapes[0]
		if len(shapes) > 1 {
			s = map[string]any{"anyOf": shapes}
			objects := true
			for _, sh := range shapes {
				objects = objects && sh["type"] == "object"
			}
			if objects {
				s["type"] = "object"
			}
		}
		s["title"] = op.Name() + " result"
		all[op.Name()] = s
	}
	for name, t := range toolResults {
		s := resultSchema(t, map[reflect.Type]bool{})
		s["title"] = name + " result"
		all[name] = s
	}
	return indentJSON(all)
}

// toolResults are the MCP tools that answer in a shape of their own rather
// than their operation's result (index.d.ts declares them too).
var toolResults = map[string]reflect.Type{
	"ctx_governing": reflect.TypeFor[api.GoverningPage](),
}

var marshaler = reflect.TypeFor[json.Marshaler]()

// resultSchema is the schema of the JSON encoding of a value of type t;
// open lists the structs being expanded (a recursive type ends in a plain
// object: there is no $ref to point back with).
func resultSchema(t reflect.Type, open map[reflect.Type]bool) map[string]any {
	switch {
	case t == reflect.TypeFor[json.RawMessage]() || t.Kind() == reflect.Interface:
		return map[string]any{} // any JSON value
	case t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler):
		return map[string]any{} // its own encoding
	case t.Kind() == reflect.Pointer:
		return resultSchema(t.Elem(), open)
	case t.Kind() == reflect.Struct:
		if open[t] {
			return map[string]any{"type": "object"}
		}
		open[t] = true
		defer delete(open, t)
		props := map[string]any{}
		required := []string{}
		for _, f := range structFields(t, 0, false) {
			s := resultSchema(f.typ, open)
			if f.typ.Kind() == reflect.Pointer && !f.optional {
				s = nullable(s)
			}
			if f.description != "" {
				s["description"] = f.description
			}
			props[f.name] = s
			if !f.optional {
				required = append(required, f.name)
			}
		}
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return map[string]any{"type": "array", "items": resultSchema(t.Elem(), open)}
	case t.Kind() == reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": resultSchema(t.Elem(), open)}
	case t.Kind() == reflect.String:
		return map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		return map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return map[string]any{"type": "integer"}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return map[string]any{"type": "number"}
	}
	panic(fmt.Sprintf("apigen: no JSON Schema for %s", t))
}

// nullable lets s also be null (a pointer encoding/json writes when nil).
func nullable(s map[string]any) map[string]any {
	switch typ := s["type"].(type) {
	case string:
		s["type"] = []string{typ, "null"}
	case nil:
		if alts, ok := s["anyOf"].([]map[string]any); ok {
			s["anyOf"] = append(alts, map[string]any{"type": "null"})
		}
		// no type: any value, null included
	}
	return s
}

// schemaField is one JSON field of a struct as encoding/json writes it.
type schemaField struct {
	name        string
	depth       int
	typ         reflect.Type
	optional    bool
	description string
}

// structFields are t's JSON fields, embedded structs without a JSON name
// flattened as encoding/json does (a field of the outer struct hides an
// embedded field of the same JSON name); a field of an embedded pointer
// is optional (absent when the pointer is nil).
func structFields(t reflect.Type, depth int, viaPointer bool) []schemaField {
	var all []schemaField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et, ptr := f.Type, false
			if et.Kind() == reflect.Pointer {
				et, ptr = et.Elem(), true
			}
			if et.Kind() == reflect.Struct {
				all = append(all, structFields(et, depth+1, viaPointer || ptr)...)
				continue
			}
			if !f.IsExported() {
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		optional := viaPointer || strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		all = append(all, schemaField{name: name, depth: depth, typ: f.Type, optional: optional,
			description: f.Tag.Get("jsonschema_description")})
	}
	if depth > 0 {
		return all
	}
	best := map[string]int{}
	for _, f := range all {
		if d, ok := best[f.name]; !ok || f.depth < d {
			best[f.name] = f.depth
		}
	}
	var out []schemaField
	written := map[string]bool{}
	for _, f := range all {
		if f.depth == best[f.name] && !written[f.name] {
			written[f.name] = true
			out = append(out, f)
		}
	}
	return out
}
