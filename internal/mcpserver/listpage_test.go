package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
	"github.com/kontext/kontext/native"
)

// TestListPages: through ctx_api, entries.list and entries.search answer 10
// entries a page with total and next_cursor; the pages followed to the end
// are the whole answer; an edit makes the cursor stale.
func TestListPages(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	cs := inMemory(t, demo)
	var first string
	for _, c := range []struct {
		op    string
		input map[string]any
	}{
		{"entries.list", map[string]any{}},
		{"entries.list", map[string]any{"view": "compact"}},
		{"entries.search", map[string]any{"query": "billing invoice export session"}},
	} {
		full := withLimit(c.input, 500)
		delete(full, "view")
		all, _ := json.Marshal(full)
		var whole struct {
			Result struct {
				Entries []struct {
					ID string `json:"id"`
				} `json:"entries"`
			} `json:"result"`
		}
		if err := json.Unmarshal(native.Request(context.Background(), demo, c.op, all), &whole); err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, e := range whole.Result.Entries {
			want = append(want, e.ID)
		}
		if len(want) <= DefaultPage {
			t.Fatalf("%s: %d entries do not need a second page", c.op, len(want))
		}
		input := withLimit(c.input, 0)
		for pages := 0; ; pages++ {
			_, env := call(t, cs, "ctx_api", map[string]any{"operation": c.op, "input": input})
			r, ok := env["result"].(map[string]any)
			if !ok {
				t.Fatalf("%s %v: %v", c.op, input, env)
			}
			if int(r["total"].(float64)) != len(want) {
				t.Fatalf("%s: total %v, want %d", c.op, r["total"], len(want))
			}
			page := r["entries"].([]any)
			if c.input["view"] == "compact" {
				if len(page) != 0 {
					t.Fatalf("%s compact: entries %v", c.op, page)
				}
				page = r["items"].([]any)
			}
			if len(page) > DefaultPage {
				t.Fatalf("%s: a page of %d", c.op, len(page))
			}
			for _, it := range page {
				got = append(got, it.(map[string]any)["id"].(string))
			}
			next, ok := r["next_cursor"].(string)
			if !ok {
				break
			}
			if first == "" {
				first = next
			}
			if pages > len(want) {
				t.Fatal("the cursor does not end")
			}
			input["cursor"] = next
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("%s pages:\n got %v\nwant %v", c.op, got, want)
		}
	}
	// A limit given is kept.
	_, env := call(t, cs, "ctx_api", map[string]any{"operation": "entries.list", "input": map[string]any{"limit": 3}})
	if n := len(env["result"].(map[string]any)["entries"].([]any)); n != 3 {
		t.Fatalf("limit 3 gave %d", n)
	}
	// A list cursor given to search is another question's.
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "entries.search", "input": map[string]any{"query": "billing", "cursor": first}})
	if errCode(env) != "invalid_input" {
		t.Fatalf("list cursor to search: %v", env)
	}
	file := filepath.Join(demo, ".ai", "decisions", "2026-01-14-vat-is-rounded-per-line.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(data, "\nOne more line.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "entries.list", "input": map[string]any{"cursor": first}})
	if errCode(env) != "stale_cursor" {
		t.Fatalf("cursor after an edit: %v", env)
	}
}

// withLimit copies an input with limit set (0: none).
func withLimit(in map[string]any, limit int) map[string]any {
	out := map[string]any{}
	for k, v := range in {
		out[k] = v
	}
	if limit > 0 {
		out["limit"] = limit
	}
	return out
}
