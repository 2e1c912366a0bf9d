package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"github.com/kontext/kontext/internal/testrepo"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/contract/bundle_demo.json")

// Normalize replaces the volatile parts of an encoded bundle — the one
// place the golden's normalisation is defined: generated_at becomes
// "<generated_at>", snapshot "<snapshot>", repository.name "<name>", and the repository's root
// (absolute, a temp dir) "<root>" wherever it appears.
func Normalize(t *testing.T, data []byte, root string) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("bundle is not JSON: %v", err)
	}
	doc["generated_at"] = "<generated_at>"
	if _, ok := doc["snapshot"]; ok {
		doc["snapshot"] = "<snapshot>" // base64 of the compiled snapshot: pinned by its own tests, not here
	}
	if repo, ok := doc["repository"].(map[string]any); ok {
		repo["name"] = "<name>"
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{root, filepath.ToSlash(root)} {
		out = bytes.ReplaceAll(out, []byte(r), []byte("<root>"))
	}
	return append(out, '\n')
}

// TestBundleDemoGolden builds the demo repository's bundle (working mode,
// default base) and compares it with testdata/contract/bundle_demo.json
// (-update rewrites it).
func TestBundleDemoGolden(t *testing.T) {
	dir := testrepo.Demo(t)
	b, err := Build(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	data, err := Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, data)
	if b.GeneratedAt != "2026-11-30T12:00:00Z" || b.Repository.Name != "demo" {
		t.Errorf("generated_at %q, name %q", b.GeneratedAt, b.Repository.Name)
	}
	got := Normalize(t, data, dir)
	testrepo.Golden(t, filepath.Join("testdata", "contract", "bundle_demo.json"), got, *update, "go test ./internal/bundle -update")
}

// checkShape checks the kontext.bundle/v1 contract on an encoded bundle.
func checkShape(t *testing.T, data []byte) {
	t.Helper()
	var doc struct {
		Schema      string          `json:"schema"`
		GeneratedAt string          `json:"generated_at"`
		Repository  map[string]any  `json:"repository"`
		Config      json.RawMessage `json:"config"`
		Files       map[string]string
		BaseFiles   map[string]string `json:"base_files"`
		Changed     []string          `json:"changed_paths"`
		History     map[string]map[string]any
		Drift       []map[string]any
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "kontext.bundle/v1" || doc.GeneratedAt == "" {
		t.Errorf("schema %q generated_at %q", doc.Schema, doc.GeneratedAt)
	}
	for _, k := range []string{"name", "head", "base", "base_source", "dirty"} {
		if _, ok := doc.Repository[k]; !ok {
			t.Errorf("repository.%s missing", k)
		}
	}
	if doc.Repository["head"] == nil || doc.Repository["base"] == nil {
		t.Errorf("demo bundle without head or base: %v", doc.Repository)
	}
	if len(doc.Files) == 0 || len(doc.BaseFiles) == 0 {
		t.Errorf("files %d, base_files %d", len(doc.Files), len(doc.BaseFiles))
	}
	if _, ok := doc.Files["src/billing/tax/vat.go"]; ok {
		t.Error("files carries a source file, not only knowledge")
	}
	drifted := false
	for _, d := range doc.Drift {
		if d["id"] == "2026-04-14-nightly-export-is-a-cronjob" {
			drifted = true
		}
	}
	if !drifted {
		t.Errorf("drift lacks 2026-04-14-nightly-export-is-a-cronjob: %v", doc.Drift)
	}
	// History for every entry: each entry file's id must have a record,
	// and each record carries every history field.
	if len(doc.History) < 10 {
		t.Errorf("history has %d entries", len(doc.History))
	}
	for id, h := range doc.History {
		for _, k := range []string{"verification", "last_verified", "since", "since_verified", "premises", "failing", "amended_since"} {
			if _, ok := h[k]; !ok {
				t.Errorf("history[%s].%s missing", id, k)
			}
		}
	}
	if _, ok := doc.History["2026-04-14-nightly-export-is-a-cronjob"]; !ok {
		t.Error("history lacks the drifted entry")
	}
}
