package native

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/api"
)

// clientFixture is a repository with every file kind the clients read:
// AGENTS.md (root and nested), AGENTS.override.md, CLAUDE.md (one that
// imports AGENTS.md, one at services/.claude/, one an alias that only
// imports billing's AGENTS.md), .claude/rules with and without paths, GEMINI.md,
// .gemini/settings.json naming AGENTS.md, Cursor rules of each kind and
// .cursorrules, Copilot's repository-wide and path-specific instructions
// (one excluded from code review, one from the coding agent), and a
// kontext decision with paths. services/AGENTS.override.md is large, so
// the Codex chain of services/billing reaches 32 KiB.
func clientFixture() map[string]string {
	return map[string]string{
		".kontext.toml": `version = 1
[kinds.decision]
dir = ".ai/decisions"
[kinds.convention]
dir = ".ai/conventions"
[[kinds.convention.include]]
dir = "."
style = "agents"
[[kinds.convention.include]]
dir = ".cursor/rules"
style = "cursor"
[[kinds.convention.include]]
dir = ".cursorrules"
style = "cursor"
[[kinds.convention.include]]
dir = ".github"
style = "copilot"
`,
		".ai/decisions/2026-01-05-money-in-cents.md": "---\ntitle: Money in cents\nstatus: accepted\ndate: 2026-01-05\npaths: [\"services/billing/**\"]\n---\nStore money as integer cents.\n",
		"AGENTS.md":                                     "# Project\n\nRun `make check` before every commit.\n",
		"services/AGENTS.override.md":                   "# Services (override)\n\n" + strings.Repeat("Services answer with JSON errors and log with slog.\n", 600),
		"services/AGENTS.md":                            "# Services\n\nThe plain services file, shadowed by the override beside it.\n",
		"services/billing/AGENTS.md":                    "# Billing\n\n" + strings.Repeat("Round VAT per invoice line, never per invoice.\n", 100),
		"services/billing/tax/AGENTS.md":                "# Tax\n\nTax tables live in tax/tables.\n",
		"web/AGENTS.md":                                 "# Web\n\nComponents are function components.\n",
		"CLAUDE.md":                                     "# Claude\n\nPrefer small commits.\n\n@AGENTS.md\n",
		"services/.claude/CLAUDE.md":                    "# Services for Claude\n\nLog with slog.\n",
		"services/billing/CLAUDE.md":                    "@AGENTS.md\n",
		".claude/rules/go.md":                           "---\npaths:\n  - \"**/*.go\"\n---\n# Go for Claude\n\nRun go vet.\n",
		".claude/rules/style.md":                        "# Style\n\nShort functions.\n",
		"web/CLAUDE.md":                                 "# Web for Claude\n\nRun the web tests with npm test.\n",
		"GEMINI.md":                                     "# Gemini\n\nAnswer briefly.\n",
		"services/GEMINI.md":                            "# Services for Gemini\n\nServices speak JSON.\n",
		".gemini/settings.json":                         `{"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}` + "\n",
		".cursor/rules/always.mdc":                      "---\nalwaysApply: true\n---\n# Always\n\nWrite tests first.\n",
		".cursor/rules/web.mdc":                         "---\nglobs: web/**/*.ts\n---\n# Web TypeScript\n\nNo any.\n",
		".cursor/rules/migrations.mdc":                  "---\ndescription: How to write a database migration\n---\n# Migrations\n\nOne migration per change.\n",
		".cursor/rules/release.mdc":                     "# Release\n\nTag from main only.\n",
		".cursorrules":                                  "Legacy: keep lines under 100 columns.\n",
		".github/copilot-instructions.md":               "# Copilot\n\nThis repository uses Go and TypeScript.\n",
		".github/instructions/go.instructions.md":       "---\napplyTo: \"**/*.go\"\n---\n# Go\n\nWrap errors with context.\n",
		".github/instructions/services.instructions.md": "---\napplyTo: \"services/**\"\nexcludeAgent: \"code-review\"\n---\n# Services for the agent\n\nRun the service tests before a pull request.\n",
		".github/instructions/web.instructions.md":      "---\napplyTo: \"web/**\"\nexcludeAgent: \"coding-agent\"\n---\n# Web review\n\nCheck accessibility labels.\n",
		"README.md":                                     "# Fixture\n",
		"services/billing/tax/vat.go":                   "package tax\n",
		"services/billing/invoice.go":                   "package billing\n",
		"services/api/handler.go":                       "package api\n",
		"web/src/app.ts":                                "export {}\n",
		"web/src/util.go":                               "package src\n",
		"docs/guide.md":                                 "# Guide\n",
	}
}

// clientLine renders one client's answer as the golden writes it: the
// loaded entries in load order (a cut file with the bytes that still
// load), then the listed entries it does not load, sorted.
func clientLine(r *api.GoverningResult) string {
	var loaded, other []string
	for _, e := range r.Entries {
		switch e.Load {
		case "not-loaded", "agent-requested", "manual":
			other = append(other, e.File+" "+e.Load)
		case "cut":
			loaded = append(loaded, fmt.Sprintf("%s cut(%d)", e.File, *e.BytesLoaded))
		default:
			loaded = append(loaded, e.File+" "+e.Load)
		}
	}
	sort.Strings(other)
	return strings.Join(loaded, ", ") + " | " + strings.Join(other, ", ")
}

// TestClientLoads: for 10 paths × 6 clients on the fixture, what each
// client loads matches testdata/clients/fixture.txt, a table written by
// hand from the clients' documented rules (each row names the rule that
// decides it; the file is not regenerated by the test).
func TestClientLoads(t *testing.T) {
	dir := fileRepo(t, clientFixture())
	f, err := os.Open(filepath.Join("..", "testdata", "clients", "fixture.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	rows, clients := 0, map[string]bool{}
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// path @ cwd client: loaded | other   ← rule
		body, _, _ := strings.Cut(line, "  ← ")
		head, want, ok := strings.Cut(body, ": ")
		if !ok {
			t.Fatalf("bad fixture line %q", line)
		}
		var p, cwd, client string
		if _, err := fmt.Sscanf(head, "%s @%s %s", &p, &cwd, &client); err != nil {
			t.Fatalf("bad fixture line %q: %v", line, err)
		}
		cwd = strings.TrimPrefix(cwd, "/")
		in, _ := json.Marshal(api.GoverningInput{Paths: []string{p}, Client: client, Cwd: cwd})
		env := Request(context.Background(), dir, "entries.governing", in)
		var res struct {
			OK     bool                `json:"ok"`
			Result api.GoverningResult `json:"result"`
		}
		if err := json.Unmarshal(env, &res); err != nil || !res.OK {
			t.Fatalf("%s: %s", head, env)
		}
		if got := clientLine(&res.Result); got != strings.TrimSpace(want) {
			t.Errorf("%s\n got: %s\nwant: %s", head, got, strings.TrimSpace(want))
		}
		rows++
		clients[client] = true
	}
	if rows != 60 || len(clients) != 6 {
		t.Fatalf("the fixture table has %d rows for %d clients, want 10 paths × 6 clients", rows, len(clients))
	}
}

// TestContractClients pins the shapes of governing with a client and of
// context.cost, and their input errors.
func TestContractClients(t *testing.T) {
	dir := fileRepo(t, clientFixture())
	cases := []contractCase{
		{"governing_client_codex_cut", "entries.governing", `{"paths":["services/billing/tax/vat.go"],"client":"codex","cwd":"services/billing/tax","view":"compact","limit":5}`},
		{"governing_client_copilot_review", "entries.governing", `{"paths":["services/api/handler.go"],"client":"copilot-review","view":"compact"}`},
		{"governing_client_unknown", "entries.governing", `{"paths":["a.go"],"client":"vim"}`},
		{"governing_cwd_without_client", "entries.governing", `{"paths":["a.go"],"cwd":"web"}`},
		{"governing_client_cwd_outside", "entries.governing", `{"paths":["a.go"],"client":"claude","cwd":"../elsewhere"}`},
		{"cost_all_clients", "context.cost", `{"paths":["services/billing/invoice.go"],"cwd":"services/billing"}`},
		{"cost_paths_and_diff", "context.cost", `{"paths":["a.go"],"diff":"HEAD"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkGolden(t, c.name, dir, Request(context.Background(), dir, c.op, []byte(c.input)))
		})
	}
}
