package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/contract/bundle_demo.json")

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// demoRepo builds the demo repository (build/demo-repo.sh) with the
// fixed clock of the goldens.
func demoRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	dir := filepath.Join(t.TempDir(), "ledgerly")
	cmd := exec.Command("bash", filepath.Join(repoRoot(), "build", "demo-repo.sh"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("demo-repo.sh: %v\n%s", err, out)
	}
	return dir
}

// Normalize replaces the volatile parts of an encoded bundle — the one
// place the golden's normalisation is defined: generated_at becomes
// "<generated_at>", repository.name "<name>", and the repository's root
// (absolute, a temp dir) "<root>" wherever it appears.
func Normalize(t *testing.T, data []byte, root string) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("bundle is not JSON: %v", err)
	}
	doc["generated_at"] = "<generated_at>"
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
	dir := demoRepo(t)
	b, err := Build(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	data, err := Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, data)
	if b.GeneratedAt != "2026-11-30T12:00:00Z" || b.Repository.Name != "ledgerly" {
		t.Errorf("generated_at %q, name %q", b.GeneratedAt, b.Repository.Name)
	}
	got := Normalize(t, data, dir)
	golden := filepath.Join(repoRoot(), "testdata", "contract", "bundle_demo.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/bundle -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("bundle differs from %s (go test ./internal/bundle -update rewrites it):\n%s", golden, firstDiff(string(want), string(got)))
	}
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

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n- " + x + "\n+ " + y
		}
	}
	return ""
}
