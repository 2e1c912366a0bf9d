package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/internal/testrepo"
	"github.com/kontext/kontext/native"
)

// channels returns the two things a client may hand a model: the text
// block and the structuredContent JSON.
func channels(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, []byte, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, name, res)
	sc, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text, sc, res
}

// adrkitPerEntry is adrkit's paged MCP answer per entry (spec 08, measured
// 2026-12-04): the whole ctx_governing message may not be larger per entry.
const adrkitPerEntry = 312

// TestGoverningSize holds the context-window budget: a one-file answer is
// at most 2 KB with up to 3 governing entries and 4 KB at 8 in each
// channel (a client shows the model one of them), the whole message
// (structuredContent + text) no larger per entry than adrkit's, and no
// field is sent twice. The text block alone still says which entries
// govern, why (rule, specificity), their status and how to read more.
func TestGoverningSize(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	cs := inMemory(t, demo)
	for _, c := range []struct {
		path    string
		entries int
		max     int
	}{
		{"web/components/InvoiceTable.tsx", 3, 2048},
		{"deploy/x.yaml", 2, 2048},
		{"src/billing/tax/vat.go", 8, 4096},
		{"src/export/nightly.go", 8, 4096},
	} {
		text, sc, _ := channels(t, cs, "ctx_governing", map[string]any{"paths": []string{c.path}})
		var env struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc, &env); err != nil {
			t.Fatal(err)
		}
		var total int
		var items []map[string]any
		_ = json.Unmarshal(env.Result["total"], &total)
		_ = json.Unmarshal(env.Result["items"], &items)
		if total != c.entries || len(items) != c.entries {
			t.Fatalf("%s: total %d, %d items, want %d", c.path, total, len(items), c.entries)
		}
		if _, ok := env.Result["snapshot"]; ok {
			t.Errorf("%s: the answer carries the snapshot (the cursor has it)", c.path)
		}
		if len(sc) > c.max || len(text) > c.max {
			t.Errorf("%s (%d entries): structuredContent %d bytes, text %d bytes, want ≤ %d each", c.path, c.entries, len(sc), len(text), c.max)
		}
		if per := (len(sc) + len(text)) / c.entries; per > adrkitPerEntry {
			t.Errorf("%s (%d entries): %d bytes per entry (structuredContent %d + text %d), want ≤ %d", c.path, c.entries, per, len(sc), len(text), adrkitPerEntry)
		}
		full := native.Request(context.Background(), demo, "entries.governing", []byte(`{"paths":["`+c.path+`"]}`))
		t.Logf("%s: %d entries: structured %d B, text %d B, %d B per entry (the whole answer was %d B)", c.path, c.entries, len(sc), len(text), (len(sc)+len(text))/c.entries, len(full))
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if want := c.entries + 2; len(lines) != want || !strings.Contains(lines[len(lines)-1], "entries.get") {
			t.Errorf("%s: the text block has %d lines, want a head, one per entry and how to read more:\n%s", c.path, len(lines), text)
		}
		for i, it := range items {
			for _, k := range []string{"id", "kind", "title", "status", "rule", "specificity"} {
				if _, ok := it[k]; !ok {
					t.Errorf("%s: item without %s: %v", c.path, k, it)
				}
			}
			for _, k := range []string{"summary", "file", "body", "body_bytes", "markdown", "publication", "verification", "matches"} {
				if _, ok := it[k]; ok {
					t.Errorf("%s: the item carries %s", c.path, k)
				}
			}
			// The entry's line: which entry, its status, why it governs.
			line := lines[1+i]
			for _, want := range []string{it["id"].(string), "(" + it["status"].(string) + ")", it["title"].(string),
				fmt.Sprintf("rule %s, specificity %v", it["rule"], it["specificity"])} {
				if !strings.Contains(line, want) {
					t.Errorf("%s: the text line of %v misses %q: %s", c.path, it["id"], want, line)
				}
			}
		}
	}
	// detail sends whole entries (bodies), in both channels.
	text, sc, _ := channels(t, cs, "ctx_governing", map[string]any{"paths": []string{"web/components/InvoiceTable.tsx"}, "detail": true})
	if !strings.Contains(string(sc), `"markdown"`) || strings.Contains(string(sc), `"items"`) {
		t.Fatalf("detail: %s", sc)
	}
	if !strings.Contains(text, "## ") || json.Valid([]byte(text)) {
		t.Fatalf("detail text: %s", text)
	}
}

// TestGoverningPages walks the pages with the cursor and gets exactly the
// whole answer in order; after an edit the cursor answers stale_cursor.
func TestGoverningPages(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	cs := inMemory(t, demo)
	const path = "src/billing/tax/vat.go"
	var whole struct {
		Result struct {
			Entries []struct {
				ID string `json:"id"`
			} `json:"entries"`
		} `json:"result"`
	}
	if err := json.Unmarshal(native.Request(context.Background(), demo, "entries.governing", []byte(`{"paths":["`+path+`"]}`)), &whole); err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, e := range whole.Result.Entries {
		want = append(want, e.ID)
	}
	args := map[string]any{"paths": []string{path}, "limit": 3}
	got, first := followPages(t, cs, "ctx_governing", args, len(want), func(c string) { args["cursor"] = c })
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("pages:\n got %v\nwant %v", got, want)
	}
	// Another question's cursor is invalid input, not a wrong page.
	_, env := call(t, cs, "ctx_governing", map[string]any{"paths": []string{"src/billing/invoice.go"}, "cursor": first})
	if errCode(env) != "invalid_input" {
		t.Fatalf("cursor of another question: %v", env)
	}
	_, env = call(t, cs, "ctx_governing", map[string]any{"paths": []string{path}, "cursor": "bm9wZQ"})
	if errCode(env) != "invalid_input" {
		t.Fatalf("forged cursor: %v", env)
	}
	// The knowledge changes: the old cursor is stale.
	file := filepath.Join(demo, ".ai", "decisions", "2026-01-14-vat-is-rounded-per-line.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(data, "\nOne more line.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, env = call(t, cs, "ctx_governing", map[string]any{"paths": []string{path}, "limit": 3, "cursor": first})
	if errCode(env) != "stale_cursor" {
		t.Fatalf("cursor after an edit: %v", env)
	}
}

// TestGoverningText: the text block alone pages (the head counts, the
// last line names the structured answer's cursor), names the asked paths
// an entry governs when several were asked, and says when nothing governs.
func TestGoverningText(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	cs := inMemory(t, demo)
	text, sc, _ := channels(t, cs, "ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go"}, "limit": 3})
	var env struct {
		Result api.GoverningPage `json:"result"`
	}
	if err := json.Unmarshal(sc, &env); err != nil {
		t.Fatal(err)
	}
	if env.Result.NextCursor == "" || len(env.Result.Items) != 3 {
		t.Fatalf("a page of 3 of 8: %s", sc)
	}
	if !strings.HasPrefix(text, "8 entries govern; 3 here, most specific first:\n") ||
		!strings.HasSuffix(text, fmt.Sprintf("More: call again with cursor %q.\n", env.Result.NextCursor)) {
		t.Errorf("paged text:\n%s", text)
	}

	text, sc, _ = channels(t, cs, "ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go", "web/components/InvoiceTable.tsx"}})
	env.Result = api.GoverningPage{}
	if err := json.Unmarshal(sc, &env); err != nil {
		t.Fatal(err)
	}
	both := 0
	for _, it := range env.Result.Items {
		if len(it.Paths) == 0 {
			t.Errorf("two paths asked: %s has no paths", it.ID)
		}
		if len(it.Paths) == 2 {
			both++
			if want := ", for " + strings.Join(it.Paths, ", "); !strings.Contains(text, want) {
				t.Errorf("the text misses %q:\n%s", want, text)
			}
		}
	}
	if both == 0 {
		t.Fatalf("no entry governs both paths: %s", sc)
	}

	text, sc, _ = channels(t, cs, "ctx_governing", map[string]any{"paths": []string{"nowhere.txt"}, "min_specificity": 9})
	if text != "No entry governs the asked path.\n" || !strings.Contains(string(sc), `"items":[]`) {
		t.Errorf("nothing governs: %q %s", text, sc)
	}
}

// TestBriefAndCapture: ctx_brief is context.brief (its text block the
// document), and ctx_capture gives ctx_prepare_commit its candidate_id.
func TestBriefAndCapture(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	cs := inMemory(t, demo)
	ctx := context.Background()
	text, env := call(t, cs, "ctx_brief", map[string]any{"paths": []string{"src/billing/tax/vat.go"}})
	want := native.Request(ctx, demo, "context.brief", []byte(`{"paths":["src/billing/tax/vat.go"]}`))
	var wb struct {
		Result struct {
			Sections []struct {
				Text string `json:"text"`
			} `json:"sections"`
		} `json:"result"`
	}
	if err := json.Unmarshal(want, &wb); err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for _, s := range wb.Result.Sections {
		doc.WriteString(s.Text)
	}
	if text != doc.String() || !strings.Contains(text, "## DECISIONS") || !strings.Contains(text, "## EXCLUDED") {
		t.Fatalf("ctx_brief text:\n%s\nwant\n%s", text, doc.String())
	}
	if env["result"].(map[string]any)["schema"] != "kontext.brief/v1" {
		t.Fatalf("ctx_brief: %v", env)
	}
	// The paths are counted, not listed (a diff can name thousands).
	if repo := env["result"].(map[string]any)["repository"].(map[string]any); len(repo["paths"].([]any)) != 0 || repo["path_count"] != float64(1) {
		t.Fatalf("ctx_brief repository: %v", repo)
	}
	_, env = call(t, cs, "ctx_brief", map[string]any{"paths": []string{"src/billing/tax/vat.go"}, "budget_lines": 5})
	if r := env["result"].(map[string]any); r["over_budget"] != true {
		t.Fatalf("budget 5: %v", r)
	}
	_, env = call(t, cs, "ctx_brief", map[string]any{"paths": []string{"a"}, "diff": "main"})
	if errCode(env) != "invalid_input" {
		t.Fatalf("paths and diff: %v", env)
	}

	_, env = call(t, cs, "ctx_capture", map[string]any{"entry": map[string]any{
		"kind": "learning", "title": "Exports need the advisory lock", "body": "The nightly export takes lock 42.", "paths": []string{"src/export/**"}}})
	if env["ok"] != true {
		t.Fatalf("ctx_capture: %v", env)
	}
	cand := env["result"].(map[string]any)["candidate"].(map[string]any)["id"].(string)
	_, env = call(t, cs, "ctx_prepare_commit", map[string]any{"candidate_id": cand, "operation_id": "op-capture-stage"})
	if env["ok"] != true || env["result"].(map[string]any)["staged"] != true {
		t.Fatalf("ctx_prepare_commit after ctx_capture: %v", env)
	}
	_, env = call(t, cs, "ctx_capture", map[string]any{"entry": map[string]any{"title": "no kind"}})
	if errCode(env) != "invalid_input" {
		t.Fatalf("ctx_capture without kind: %v", env)
	}

	// Annotations: the reads say so; the writes do not.
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		ro := tl.Name == "ctx_governing" || tl.Name == "ctx_brief"
		if tl.Annotations.ReadOnlyHint != ro {
			t.Errorf("%s: readOnlyHint %v", tl.Name, tl.Annotations.ReadOnlyHint)
		}
	}
}

// TestGoverningClient: ctx_governing with client and cwd answers what that
// agent loads, in its order, each item with its load; the text block says
// whose answer it is, what it assumes, and each entry's load.
func TestGoverningClient(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	cs := inMemory(t, demo)
	text, env := call(t, cs, "ctx_governing", map[string]any{"paths": []string{"src/billing/tax/vat.go"}, "client": "cursor", "cwd": "src"})
	res, _ := env["result"].(map[string]any)
	client, _ := res["client"].(map[string]any)
	if client["client"] != "cursor" || client["cwd"] != "src" {
		t.Fatalf("client: %v", res["client"])
	}
	items, _ := res["items"].([]any)
	loads := map[string]bool{}
	for _, it := range items {
		loads[it.(map[string]any)["load"].(string)] = true
	}
	if !loads["always"] || !loads["not-loaded"] {
		t.Fatalf("loads %v in %v", loads, items)
	}
	for _, want := range []string{"cursor started in src:", "Assumed: User Rules", "load always: alwaysApply: true", "load not-loaded: cursor does not read a kontext decision entry"} {
		if !strings.Contains(text, want) {
			t.Errorf("text block lacks %q:\n%s", want, text)
		}
	}
}
