package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kontext/kontext/internal/mcptools"
)

// outputSchemas are the tools' output schemas, compiled (draft 2020-12).
var outputSchemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	out := map[string]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, tl := range mcptools.List() {
		b, err := json.Marshal(tl.OutputSchema())
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		url := "mem:///" + tl.Name() + ".json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		if out[tl.Name()], err = c.Compile(url); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// checkOutput validates a tool's structuredContent against its outputSchema.
// call and channels run it on every answer of the MCP tests.
func checkOutput(t *testing.T, name string, res *mcp.CallToolResult) {
	t.Helper()
	if res.StructuredContent == nil {
		t.Fatalf("%s: no structuredContent", name)
	}
	all, err := outputSchemas()
	if err != nil {
		t.Fatal(err)
	}
	sch, ok := all[name]
	if !ok {
		t.Fatalf("%s: no such tool", name)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s: structuredContent does not validate against the outputSchema: %v\n%s", name, err, b)
	}
}

// TestOutputSchemasTyped: every tool's outputSchema.properties.result
// carries a validation keyword (the result's schema, generated from
// engine/api), is self-contained (no $ref) and compiles; the listed tools
// carry the same schema.
func TestOutputSchemasTyped(t *testing.T) {
	if _, err := outputSchemas(); err != nil {
		t.Fatal(err)
	}
	listed := map[string]any{}
	lt, err := inMemory(t, t.TempDir()).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		listed[tl.Name] = tl.OutputSchema
	}
	// The schemas do reject: a governing result whose total is a string,
	// or with an entry missing its id.
	all, _ := outputSchemas()
	for _, bad := range []string{
		`{"schema_version":1,"ok":true,"result":{"total":"3","snapshot":"s","items":[]}}`,
		`{"schema_version":1,"ok":true,"result":{"total":1,"snapshot":"s","items":[{"kind":"decision","title":"t","file":"f"}]}}`,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if all["ctx_governing"].Validate(inst) == nil {
			t.Errorf("ctx_governing: %s validates", bad)
		}
	}
	for _, tl := range mcptools.List() {
		s := tl.OutputSchema()
		r, ok := s["properties"].(map[string]any)["result"].(map[string]any)
		if !ok {
			t.Fatalf("%s: no outputSchema.properties.result", tl.Name())
		}
		_, hasType := r["type"]
		_, hasProps := r["properties"]
		if !hasType && !hasProps {
			t.Errorf("%s: outputSchema.properties.result has no validation keyword: %v", tl.Name(), r)
		}
		if tl.ResultOp() != "" {
			// One shape, or anyOf several: each lists its fields.
			shapes := []any{r}
			if alts, ok := r["anyOf"].([]any); ok {
				shapes = alts
			}
			for _, sh := range shapes {
				m, _ := sh.(map[string]any)
				if m["properties"] == nil || m["required"] == nil {
					t.Errorf("%s: a %s result shape lists no properties or required fields", tl.Name(), tl.ResultOp())
				}
			}
		}
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), `"$ref"`) {
			t.Errorf("%s: the outputSchema has a $ref", tl.Name())
		}
		var local any
		_ = json.Unmarshal(b, &local)
		rb, _ := json.Marshal(listed[tl.Name()])
		var remote any
		_ = json.Unmarshal(rb, &remote)
		if lb, _ := json.Marshal(local); string(lb) != string(mustJSON(remote)) {
			t.Errorf("%s: the listed outputSchema differs from the tool's", tl.Name())
		}
	}
}
