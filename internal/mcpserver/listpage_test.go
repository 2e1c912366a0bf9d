package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext/kontext/internal/mcptools"
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
		var want []string
		for _, e := range whole.Result.Entries {
			want = append(want, e.ID)
		}
		if len(want) <= mcptools.DefaultPage {
			t.Fatalf("%s: %d entries do not need a second page", c.op, len(want))
		}
		input := withLimit(c.input, 0)
		got, f := followPages(t, cs, "ctx_api", map[string]any{"operation": c.op, "input": input}, len(want), func(c string) { input["cursor"] = c })
		if first == "" {
			first = f
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

// followPages calls a paged tool with args, then with each next_cursor
// (setCursor puts it into args) until the last page. It checks every
// page's total and size and returns the ids of all pages in order and the
// first next_cursor.
func followPages(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, total int, setCursor func(string)) (ids []string, first string) {
	t.Helper()
	for pages := 0; ; pages++ {
		_, env := call(t, cs, tool, args)
		r, ok := env["result"].(map[string]any)
		if !ok {
			t.Fatalf("%s %v: %v", tool, args, env)
		}
		if int(r["total"].(float64)) != total {
			t.Fatalf("%s: total %v, want %d", tool, r["total"], total)
		}
		page, full := r["entries"].([]any)
		if items, ok := r["items"].([]any); ok { // the compact view: items and no entries key
			if _, has := r["entries"]; has {
				t.Fatalf("%s compact: entries %v next to items", tool, r["entries"])
			}
			page = items
		} else if !full {
			t.Fatalf("%s: neither entries nor items in %v", tool, r)
		}
		if len(page) > mcptools.DefaultPage {
			t.Fatalf("%s: a page of %d", tool, len(page))
		}
		for _, it := range page {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		next, ok := r["next_cursor"].(string)
		if !ok {
			return ids, first
		}
		if first == "" {
			first = next
		}
		if pages > total {
			t.Fatal("the cursor does not end")
		}
		setCursor(next)
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
