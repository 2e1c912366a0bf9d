package engine_test

import (
	"context"
	"encoding/json"
	"testing"
)

// TestCompactViewShape: with view compact a result carries items and no
// entries key at all (an empty entries beside a full items reads as
// "nothing governs"); the full view always carries entries, [] when
// nothing matches, and no items. Both hold for a page with answers and
// one without, for every read with a view.
func TestCompactViewShape(t *testing.T) {
	e, _ := memEngine(t, map[string]string{
		".ai/conventions/money.md": "---\nstatus: active\npaths: [\"src/**\"]\n---\n# Money is integer cents\n\nRound money once.\n",
	})
	ctx := context.Background()
	for _, c := range []struct {
		op, input string
		n         int // entries (full) or items (compact) expected
	}{
		{"entries.governing", `{"paths":["src/a.go"]}`, 1},
		{"entries.governing", `{"paths":["docs/a.md"]}`, 0},
		{"entries.list", `{}`, 1},
		{"entries.list", `{"kinds":["incident"]}`, 0},
		{"entries.search", `{"query":"money"}`, 1},
		{"entries.search", `{"query":"zebra"}`, 0},
	} {
		for _, view := range []string{"", "full", "compact"} {
			var in map[string]any
			if err := json.Unmarshal([]byte(c.input), &in); err != nil {
				t.Fatal(err)
			}
			if view != "" {
				in["view"] = view
			}
			b, _ := json.Marshal(in)
			env := e.Request(ctx, c.op, b)
			var raw struct {
				OK     bool                       `json:"ok"`
				Result map[string]json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(env, &raw); err != nil || !raw.OK {
				t.Fatalf("%s %s: %s", c.op, b, env)
			}
			has, lacks := "entries", "items"
			if view == "compact" {
				has, lacks = "items", "entries"
			}
			if _, ok := raw.Result[lacks]; ok {
				t.Errorf("%s %s: the %q view sends %s: %s", c.op, b, view, lacks, env)
			}
			got, ok := raw.Result[has]
			if !ok {
				t.Fatalf("%s %s: the %q view sends no %s: %s", c.op, b, view, has, env)
			}
			var list []json.RawMessage
			if err := json.Unmarshal(got, &list); err != nil || list == nil || len(list) != c.n {
				t.Errorf("%s %s: %s is %s, want a list of %d", c.op, b, has, got, c.n)
			}
			if c.n == 0 && string(got) != "[]" {
				t.Errorf("%s %s: %s is %s, want []", c.op, b, has, got)
			}
		}
	}
}
