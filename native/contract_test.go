package native

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"github.com/kontext/kontext/internal/testrepo"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the contract golden files under testdata/contract")

// fileRepo makes a git repo holding files, all committed.
func fileRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	testrepo.Env(t)
	dir := t.TempDir()
	testrepo.Git(t, dir, "init", "-q", "-b", "main")
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(files) > 0 {
		testrepo.Git(t, dir, "add", "-A")
		testrepo.Git(t, dir, "commit", "-q", "-m", "fixture")
	}
	return dir
}

type contractCase struct {
	name  string
	op    string
	input string
}

// checkGolden compares an envelope with testdata/contract/<name>.json after
// replacing the temp root with <root>.
func checkGolden(t *testing.T, name, root string, env []byte) {
	t.Helper()
	if !json.Valid(env) {
		t.Fatalf("%s: not one JSON document: %s", name, env)
	}
	if bytes.Count(bytes.TrimSpace(env), []byte("\n")) != 0 {
		t.Fatalf("%s: envelope spans several lines", name)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, env, "", "  "); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(pretty.String(), root, "<root>") + "\n"
	testrepo.Golden(t, filepath.Join("testdata", "contract", name+".json"), []byte(got), *update, "go test ./native -run Contract -update")
}

func TestContractDemo(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // verify.pin reads no real trust file
	dir := testrepo.Demo(t)
	cases := []contractCase{
		{"status", "status", `{}`},
		{"describe_all", "api.describe", `{}`},
		{"describe_one", "api.describe", `{"operation":"entries.governing"}`},
		{"describe_unknown", "api.describe", `{"operation":"entries.frobnicate"}`},
		{"lint", "rules.lint", `{}`},
		{"lint_bad_client", "rules.lint", `{"client":"vim"}`},
		{"list_page", "entries.list", `{"limit":3}`},
		{"list_compact", "entries.list", `{"limit":3,"view":"compact","kinds":["decision"]}`},
		{"list_offset_and_cursor", "entries.list", `{"offset":3,"cursor":"x"}`},
		{"list_all", "entries.list", `{"limit":500}`},
		{"list_adr_kind_active", "entries.list", `{"kinds":["adr"],"active_only":true}`},
		{"list_bad_kind", "entries.list", `{"kinds":["rule"]}`},
		{"list_bad_limit", "entries.list", `{"limit":501}`},
		{"list_offset_overflow", "entries.list", `{"offset":9223372036854775807}`},
		{"list_offset_too_large", "entries.list", `{"offset":1000000001}`},
		{"governing_limit_overflow", "entries.governing", `{"paths":["a.go"],"limit":9223372036854775807,"min_specificity":9223372036854775807}`},
		{"brief_budget_overflow", "context.brief", `{"paths":["a.go"],"budget_lines":9223372036854775807}`},
		{"get_adr_number", "entries.get", `{"id":"ADR-3"}`},
		{"get_path", "entries.get", `{"id":"docs/adr/0001-record-architecture-decisions.md"}`},
		{"get_ambiguous", "entries.get", `{"id":"2026"}`},
		{"get_not_found", "entries.get", `{"id":"no-such-entry"}`},
		{"get_missing_id", "entries.get", `{}`},
		{"search", "entries.search", `{"query":"rounding VAT invoices","limit":3}`},
		{"search_compact", "entries.search", `{"query":"rounding VAT invoices","limit":2,"view":"compact"}`},
		{"search_empty", "entries.search", `{"query":"  "}`},
		{"governing", "entries.governing", `{"paths":["src/billing/tax/vat.go"]}`},
		{"governing_many", "entries.governing", `{"paths":["./src/billing/invoice.go","db/migrations/0001_init.sql","web/components/InvoiceTable.tsx"],"limit":4}`},
		{"governing_compact", "entries.governing", `{"paths":["src/billing/tax/vat.go"],"view":"compact","limit":3}`},
		{"governing_compact_page2", "entries.governing", `{"paths":["src/billing/tax/vat.go"],"view":"compact","limit":3,"cursor":"ZzEgODRkOTZlN2RjY2NhN2UwMmIyYjE0NzQ0NjFhOTY1ZWMgNjA0NGJkMmU5NzFlZjI1YyAz"}`},
		{"governing_stale_cursor", "entries.governing", `{"paths":["src/billing/tax/vat.go"],"limit":3,"cursor":"ZzEgMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAgNjA0NGJkMmU5NzFlZjI1YyAz"}`},
		{"governing_bad_cursor", "entries.governing", `{"paths":["src/billing/tax/vat.go"],"cursor":"not-a-cursor"}`},
		{"governing_bad_view", "entries.governing", `{"paths":["src/billing/tax/vat.go"],"view":"short"}`},
		{"governing_min_specificity", "entries.governing", `{"paths":["src/billing/tax/vat.go"],"min_specificity":2}`},
		{"governing_escape", "entries.governing", `{"paths":["../etc/passwd"]}`},
		{"governing_missing_paths", "entries.governing", `{}`},
		{"governing_absolute", "entries.governing", `{"paths":["<root>/src/billing/tax/vat.go"]}`},
		{"governing_outside", "entries.governing", `{"paths":["/etc/passwd"]}`},
		{"suggest_paths", "entries.suggest_paths", `{"all":true,"max_per_entry":2}`},
		{"suggest_paths_missing", "entries.suggest_paths", `{}`},
		{"related_text", "entries.related", `{"text":"invoice totals must be rounded once per line in integer cents"}`},
		{"related_paths", "entries.related", `{"paths":["src/export/nightly.go"]}`},
		{"related_llm", "entries.related", `{"text":"x","llm":true}`},
		{"related_nothing", "entries.related", `{}`},
		{"planned_operation", "guidance.propose", `{}`},
		{"unknown_operation", "entries.frobnicate", `{}`},
		{"unknown_short_operation", "brief", `{"paths":["src/billing/tax/vat.go"]}`},
		{"malformed_json", "entries.list", `{"limit":`},
		{"non_object", "entries.list", `[1,2,3]`},
		{"unknown_field", "entries.list", `{"limt":3}`},
		{"wrong_type", "entries.governing", `{"paths":"src/a.go"}`},
		{"deep_nesting", "entries.list", `{"kinds":` + strings.Repeat("[", 80) + strings.Repeat("]", 80) + `}`},
		{"invalid_utf8", "entries.search", "{\"query\":\"\xff\xfe\"}"},
		{"dir_missing", "status", `{"dir":"no/such/dir"}`},
		{"drift_explicit_base", "entries.drift", `{"base":"HEAD~11"}`},
		{"drift_default_base", "entries.drift", `{}`},
		{"drift_with_architecture", "entries.drift", `{"base":"HEAD~11","head":"HEAD","kinds":["convention","architecture"]}`},
		{"drift_dash_revision", "entries.drift", `{"base":"-x"}`},
		{"drift_unknown_revision", "entries.drift", `{"base":"no-such-branch"}`},
		{"changed", "entries.changed", `{"base":"HEAD~11","head":"HEAD"}`},
		{"changed_missing_head", "entries.changed", `{"base":"HEAD~1"}`},
		{"export", "entries.export", `{"revision":"a924cb6149ef8f49ebabb7a5dfe0f58dd2bc3efd","review_ref":"refs/heads/main","paths":["src/billing/tax/vat.go"]}`},
		{"export_short_sha", "entries.export", `{"revision":"a924cb6149ef","review_ref":"refs/heads/main"}`},
		{"export_stale", "entries.export", `{"revision":"0000000000000000000000000000000000000000","review_ref":"refs/heads/main"}`},
		{"repository_state", "repository.state", `{"since":"HEAD~1"}`},
		{"repository_state_dash", "repository.state", `{"since":"-x"}`},
		{"brief", "context.brief", `{"paths":["src/billing/tax/vat.go"],"budget_lines":60}`},
		{"brief_over_budget", "context.brief", `{"paths":["src/billing/tax/vat.go"],"budget_lines":5}`},
		{"brief_paths_and_diff", "context.brief", `{"paths":["a.go"],"diff":"HEAD~1"}`},
		{"brief_compact", "context.brief", `{"paths":["src/billing/tax/vat.go","db/migrations/0001_init.sql"],"budget_lines":40,"view":"compact"}`},
		{"verify_pin", "verify.pin", `{"id":"2026-01-14-vat-is-rounded-per-line"}`},
		{"export_missing_ref", "entries.export", `{"revision":"a924cb6149ef8f49ebabb7a5dfe0f58dd2bc3efd","review_ref":"refs/remotes/origin/main"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := Request(context.Background(), dir, c.op, []byte(strings.ReplaceAll(c.input, "<root>", dir)))
			checkGolden(t, c.name, dir, env)
		})
	}
}

// TestContractAdoption pins the adoption shapes: status naming setup
// --detect, setup's dry run and the detecting setup.
func TestContractAdoption(t *testing.T) {
	dir := fileRepo(t, map[string]string{
		".adr-dir":                   "doc/adr\n",
		"doc/adr/0001-use-go.md":     "# 1. Use Go\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n",
		"doc/adr/0002-use-sqlite.md": "# 2. Use SQLite\n\nDate: 2024-01-02\n\n## Status\n\nAccepted\n",
		"AGENTS.md":                  "# Rules\n",
	})
	ctx := context.Background()
	checkGolden(t, "status_detectable", dir, Request(ctx, dir, "status", nil))
	checkGolden(t, "setup_dry_run", dir, Request(ctx, dir, "setup", []byte(`{"dry_run":true}`)))
	checkGolden(t, "setup_detect", dir, Request(ctx, dir, "setup", nil))
}

func TestContractNoCommits(t *testing.T) {
	dir := fileRepo(t, nil)
	checkGolden(t, "drift_no_commits", dir, Request(context.Background(), dir, "entries.drift", nil))
}

func TestContractFallbackNone(t *testing.T) {
	dir := fileRepo(t, map[string]string{".ai/conventions/a.md": "---\npaths: [\"src/**\"]\n---\n# A\n"})
	checkGolden(t, "drift_fallback_none", dir, Request(context.Background(), dir, "entries.drift", nil))
}

func TestContractSetup(t *testing.T) {
	dir := fileRepo(t, nil)
	first := Request(context.Background(), dir, "setup", []byte(`{}`))
	checkGolden(t, "setup_first", dir, first)
	second := Request(context.Background(), dir, "setup", []byte(`{}`))
	checkGolden(t, "setup_again", dir, second)
	if _, err := os.Stat(filepath.Join(dir, ".kontext.toml")); err != nil {
		t.Fatal("setup wrote no config")
	}
	for _, d := range []string{".ai/decisions", ".ai/conventions", ".ai/learnings", ".ai/incidents", ".ai/architecture"} {
		if fi, err := os.Stat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			t.Fatalf("setup did not create %s", d)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Fatal("setup installed a hook")
	}
}

func TestContractBadConfig(t *testing.T) {
	dir := fileRepo(t, map[string]string{
		".kontext.toml": "version = 1\nstorage = \".ai\"\n\n[kinds.decision]\ndir = \"docs/adr\"\nstyel = \"adr\"\n",
	})
	checkGolden(t, "config_unknown_key", dir, Request(context.Background(), dir, "entries.list", nil))
	dir = fileRepo(t, map[string]string{
		".kontext.toml": "[kinds.decision]\ndir = \"docs/adr\"\n\n[[kinds.convention.include]]\ndir = \"docs/adr\"\nstyle = \"adr\"\n",
	})
	checkGolden(t, "config_shared_dir", dir, Request(context.Background(), dir, "status", nil))
	dir = fileRepo(t, map[string]string{
		".kontext.toml":        "version = 1\n\n[llm]\nadapter = \"command\"\ncommand = [\"sh\", \"-c\", \"touch pwned\"]\n",
		".ai/conventions/a.md": "---\nstatus: active\n---\n# A\n",
	})
	checkGolden(t, "config_local_only", dir, Request(context.Background(), dir, "entries.list", nil))
}

func TestContractDiagnostics(t *testing.T) {
	bomb := "---\na: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n---\n# Bomb\n"
	dir := fileRepo(t, map[string]string{
		".ai/decisions/2026-01-01-good.md":       "---\nstatus: accepted\ndate: 2026-01-01\npaths: [\"*.sql\", \"src/[\"]\n---\n# Good one\n\nBody.\n",
		".ai/decisions/2026-01-02-bomb.md":       bomb,
		".ai/decisions/2026-01-03-large.md":      "---\nstatus: accepted\n---\n# Large\n\n" + strings.Repeat("x", 1<<20),
		".ai/decisions/2026-01-04-latin1.md":     "---\nstatus: accepted\n---\n# Caf\xe9\n",
		".ai/learnings/2026-01-01-good.md":       "---\ntitle: Same id as a decision\n---\nBody.\n",
		".ai/conventions/2026-01-05-unclosed.md": "---\ntitle: never closed\n",
	})
	checkGolden(t, "list_diagnostics", dir, Request(context.Background(), dir, "entries.list", nil))
}

func TestPublicationStates(t *testing.T) {
	dir := fileRepo(t, map[string]string{
		".ai/conventions/committed.md": "---\ntitle: Committed\n---\nBody.\n",
		".ai/conventions/modified.md":  "---\ntitle: Modified\n---\nBody.\n",
		".ai/conventions/staged.md":    "---\ntitle: Staged\n---\nBody.\n",
	})
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".ai/conventions/modified.md", "---\ntitle: Modified\n---\nBody, edited.\n")
	write(".ai/conventions/staged.md", "---\ntitle: Staged\n---\nBody, staged.\n")
	testrepo.Git(t, dir, "add", ".ai/conventions/staged.md")
	write(".ai/conventions/untracked.md", "---\ntitle: Untracked\n---\nBody.\n")
	env := Request(context.Background(), dir, "entries.list", nil)
	var res struct {
		Result struct {
			Entries []struct {
				ID          string `json:"id"`
				Revision    string `json:"revision"`
				Publication struct {
					State    string  `json:"state"`
					Revision *string `json:"revision"`
					BlobHash *string `json:"blob_hash"`
				} `json:"publication"`
			} `json:"entries"`
		} `json:"result"`
	}
	if err := json.Unmarshal(env, &res); err != nil {
		t.Fatal(err)
	}
	head := testrepo.Git(t, dir, "rev-parse", "HEAD")
	want := map[string]string{"committed": "committed", "modified": "modified", "staged": "staged", "untracked": "untracked"}
	if len(res.Result.Entries) != 4 {
		t.Fatalf("got %d entries: %s", len(res.Result.Entries), env)
	}
	for _, e := range res.Result.Entries {
		p := e.Publication
		if p.State != want[e.ID] {
			t.Errorf("%s: state %s, want %s", e.ID, p.State, want[e.ID])
		}
		if p.Revision == nil || *p.Revision != head {
			t.Errorf("%s: publication.revision %v, want HEAD %s", e.ID, p.Revision, head)
		}
		blob := testrepo.Git(t, dir, "hash-object", ".ai/conventions/"+e.ID+".md")
		if e.Revision != blob {
			t.Errorf("%s: revision %s, want the blob id %s", e.ID, e.Revision, blob)
		}
		switch p.State {
		case "modified", "untracked":
			if p.BlobHash != nil {
				t.Errorf("%s: blob_hash %s while the file has unstaged changes", e.ID, *p.BlobHash)
			}
		default:
			if p.BlobHash == nil || *p.BlobHash != blob {
				t.Errorf("%s: blob_hash %v, want %s", e.ID, p.BlobHash, blob)
			}
		}
	}
}

func TestSnapshotChanges(t *testing.T) {
	dir := fileRepo(t, map[string]string{".ai/conventions/a.md": "---\ntitle: A\n---\nBody.\n"})
	snap := func() string {
		var res struct {
			Result struct {
				Snapshot string `json:"snapshot"`
			} `json:"result"`
		}
		if err := json.Unmarshal(Request(context.Background(), dir, "entries.list", nil), &res); err != nil {
			t.Fatal(err)
		}
		return res.Result.Snapshot
	}
	s1 := snap()
	if s1 != snap() {
		t.Fatal("snapshot changed without a change")
	}
	// Same number of entries, different content.
	os.WriteFile(filepath.Join(dir, ".ai/conventions/a.md"), []byte("---\ntitle: A\n---\nBody two.\n"), 0o644)
	s2 := snap()
	if s2 == s1 {
		t.Fatal("snapshot did not change with an entry's content")
	}
	os.WriteFile(filepath.Join(dir, ".ai/confirmations.log"), []byte(`{"at":"2026-01-01T00:00:00Z","kind":"read","id":"a"}`+"\n"), 0o644)
	s3 := snap()
	if s3 == s2 {
		t.Fatal("snapshot did not change with the ledger")
	}
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-q", "-m", "more")
	if snap() == s3 {
		t.Fatal("snapshot did not change with HEAD")
	}
	os.WriteFile(filepath.Join(dir, ".kontext.toml"), []byte("version = 1\n"), 0o644)
	if snap() == s3 {
		t.Fatal("snapshot did not change with the config")
	}
}

// TestContractSetPaths pins drafts.set_paths: its result, a replay and its
// errors (empty request, bad glob, removing what the overlay does not
// hold or what the file declares, an unstaged edit of the overlay).
func TestContractSetPaths(t *testing.T) {
	dir := fileRepo(t, map[string]string{
		".adr-dir":                   "doc/adr\n",
		"doc/adr/0001-use-go.md":     "# 1. Use Go\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n",
		"doc/adr/0002-use-sqlite.md": "# 2. Use SQLite\n\nDate: 2024-01-02\n\n## Status\n\nAccepted\n\n## Decision\n\nThe store lives in src/store.\n",
		".kontext.toml":              "version = 1\nstorage = \".ai\"\n\n[[kinds.decision.include]]\ndir = \"doc/adr\"\nstyle = \"adr\"\n",
	})
	ctx := context.Background()
	add := `{"operation_id":"sp-1","entry_id":"2","add":["src/store/**","*.sql"]}`
	checkGolden(t, "set_paths", dir, Request(ctx, dir, "drafts.set_paths", []byte(add)))
	checkGolden(t, "set_paths_replayed", dir, Request(ctx, dir, "drafts.set_paths", []byte(add)))
	for _, c := range []contractCase{
		{"set_paths_empty", "drafts.set_paths", `{"operation_id":"sp-2","entry_id":"2"}`},
		{"set_paths_bad_glob", "drafts.set_paths", `{"operation_id":"sp-3","entry_id":"2","add":["src/[a"]}`},
		{"set_paths_remove_missing", "drafts.set_paths", `{"operation_id":"sp-4","entry_id":"2","remove":["lib/**"]}`},
	} {
		checkGolden(t, c.name, dir, Request(ctx, dir, c.op, []byte(c.input)))
	}
	overlay := filepath.Join(dir, ".ai", "paths.toml")
	data, err := os.ReadFile(overlay)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlay, append(data, "# an edit\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "set_paths_unstaged", dir, Request(ctx, dir, "drafts.set_paths", []byte(`{"operation_id":"sp-5","entry_id":"1","add":["cmd/**"]}`)))
}
