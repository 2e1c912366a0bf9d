package native

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/internal/testrepo"
)

// lintConfig reads the agent rule files of a lint fixture.
const lintConfig = `version = 1

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
`

// lintFixture is a repository with planted duplicates, near-duplicates,
// contradictions and files a client never loads, next to sentences that
// look like them and are not (a tool named as a noun, a negated or
// floored statement, compatible versions, sibling scopes, a nested file
// that specialises a version for its subtree, a symlink).
func lintFixture() map[string]string {
	var big strings.Builder
	big.WriteString("# Big package\n\n")
	for i := 0; big.Len() < 33<<10; i++ {
		fmt.Fprintf(&big, "- Module m%04d keeps its cache in directory c%04d and flushes it every %d seconds.\n", i, i, i+1)
	}
	return map[string]string{
		".kontext.toml": lintConfig,
		"AGENTS.md": `# Project rules

Install dependencies with ` + "`pnpm install`" + `.

Keep functions short and give every exported function a doc comment that says what it returns.

Always squash commits before merging a pull request.

Every public endpoint validates its input at the edge and answers a typed error when the input is wrong.

Log with the structured logger; never print to standard output in library code.

See below.

Publish the package to the npm registry when a release is tagged.

Do not use yarn; use pnpm for every script.

## Services

Each service owns its database schema and applies its schema changes on start-up with the tool in its own directory.

A service never reads another service's tables directly; it calls that service's API.
`,
		"CLAUDE.md": `# Claude notes

Log with the structured logger; never print to standard output in library code.

Never squash commits before merging a pull request.

Production containers use Node 18.

See below.
`,
		".cursor/rules/style.mdc": `---
description: House style
alwaysApply: true
---

# Style

Every public endpoint validates its input at the edge and answers a typed error when the input is wrong.

Run ` + "`npm install`" + ` before you start the dev server.

- Name files after the one thing they export, in kebab case.
- Keep each module under four hundred lines of code.
`,
		".cursorrules": `Answer in the language of the question.
Name files after the one thing they export, in kebab case.
Keep each module under four hundred lines of code.
`,
		".cursor/rules/testing.mdc": `---
description: Tests
globs: "**/*.test.ts"
---

Unit tests use Jest and live next to the code they test.

Name each test after the behaviour it checks, not after the function it calls, so a failing test reads as a sentence.
`,
		".cursor/rules/web.mdc": `---
globs: web/**
---

Components are **function components**; state lives in hooks and never in module-level variables.
`,
		".cursor/rules/manual-only.mdc": `# Release checklist

Bump the version, write the changelog entry and tag the release commit.
`,
		".cursor/rules/described.mdc": `---
description: How to write database changes
---

Write every schema change so that it can run twice without harm.
`,
		".github/copilot-instructions.md": `# Copilot

The service targets Node 20 in every environment.

Keep functions short and give each exported function a doc comment saying what it returns.

Requests carry a correlation id header that every service copies into its log lines and passes on to the next call.

The CI image pins Node 20.11 for reproducible builds.

Node 18+ is enough for local scripts.
`,
		".github/instructions/api.instructions.md": `---
applyTo: "services/api/**"
---

Requests carry a correlation id header that every service copies into its log lines and passes on to the next call.

Handlers return problem+json bodies for every error and never leak stack traces to the caller of the API.
`,
		".github/instructions/tests.instructions.md": `---
applyTo: "**/*.test.ts"
---

Write unit tests with Vitest.

Name each test after the behaviour it checks, not after the function it calls, so a failing test reads like a sentence.
`,
		".github/instructions/docs.instructions.md": `---
applyTo: "docs/**"
excludeAgent: "code-review"
---

Docs examples run on Python 3.12.
`,
		"docs/AGENTS.md": `# Docs

Docs examples run on Python 3.11.
`,
		"services/api/AGENTS.md": `# API service

The API runs on Node 18 in production.

Each service owns its database schema and applies its schema changes on start-up with the tool in its own directory.

A service never reads another service's tables directly; it calls that service's API.

Handlers return problem+json bodies for all errors and never leak a stack trace to the caller of the API.

Tests for this package live in the tests directory next to the service code, one file per handler.

Scripts here use Python 3.11.
`,
		"web/AGENTS.md": `# Web

Components are function components; state lives in hooks and never in module-level variables.

Tests for this package live in the tests directory next to the web code, one file per component.

Scripts here use Python 3.12.
`,
		"web/CLAUDE.md": "@AGENTS.md\n",
		".claude/rules/api.md": `---
paths:
  - "services/api/**"
---

# API

Tests for this package live in the tests directory next to the service code, one file per handler.
`,
		"tools/AGENTS.override.md": "# Tools (override)\n\nTools print their version first.\n",
		"tools/AGENTS.md":          "# Tools\n\nThe plain tools file, replaced by the override beside it.\n",
		".github/instructions/review.instructions.md": `---
applyTo: "**/*.sql"
excludeAgent: "coding-agent"
---

Reviewers check that every migration has a rollback.
`,
		"big/AGENTS.md":       big.String(),
		"big/inner/AGENTS.md": "# Inner\n\nThe inner package is generated; edit the templates instead.\n",
	}
}

// planted is one finding the fixture plants: its rule, the client when
// it is about one, and the files with a phrase of the line it must quote.
type planted struct {
	rule   string
	client string
	at     [][2]string // file, phrase of the line
}

var lintPlanted = []planted{
	// The same paragraph in several files.
	{"duplicate_rule", "cursor", [][2]string{{".cursor/rules/style.mdc", "Every public endpoint"}, {"AGENTS.md", "Every public endpoint"}}},
	{"duplicate_rule", "copilot", [][2]string{{".github/copilot-instructions.md", "Requests carry"}, {".github/instructions/api.instructions.md", "Requests carry"}}},
	{"duplicate_rule", "copilot", [][2]string{{"AGENTS.md", "Log with the structured"}, {"CLAUDE.md", "Log with the structured"}}},
	{"duplicate_rule", "codex", [][2]string{{"AGENTS.md", "Each service owns"}, {"services/api/AGENTS.md", "Each service owns"}}},
	{"duplicate_rule", "cursor", [][2]string{{".cursor/rules/web.mdc", "Components are"}, {"web/AGENTS.md", "Components are"}}},
	{"duplicate_rule", "cursor", [][2]string{{".cursor/rules/style.mdc", "Name files after"}, {".cursorrules", "Name files after"}}},
	{"duplicate_rule", "", [][2]string{{".claude/rules/api.md", "Tests for this package"}, {"services/api/AGENTS.md", "Tests for this package"}}},
	// Nearly the same paragraph.
	{"near_duplicate_rule", "", [][2]string{{".github/copilot-instructions.md", "Keep functions short"}, {"AGENTS.md", "Keep functions short"}}},
	{"near_duplicate_rule", "", [][2]string{{".cursor/rules/testing.mdc", "Name each test"}, {".github/instructions/tests.instructions.md", "Name each test"}}},
	{"near_duplicate_rule", "", [][2]string{{".github/instructions/api.instructions.md", "Handlers return"}, {"services/api/AGENTS.md", "Handlers return"}}},
	// Contradictions between overlapping scopes.
	{"conflicting_rules", "", [][2]string{{".cursor/rules/style.mdc", "npm install"}, {"AGENTS.md", "pnpm install"}}},
	{"conflicting_rules", "", [][2]string{{".cursor/rules/testing.mdc", "Jest"}, {".github/instructions/tests.instructions.md", "Vitest"}}},
	{"conflicting_rules", "", [][2]string{{".github/copilot-instructions.md", "Node 20 in every"}, {"CLAUDE.md", "Node 18"}}},
	{"conflicting_rules", "", [][2]string{{"AGENTS.md", "Always squash"}, {"CLAUDE.md", "Never squash"}}},
	{"conflicting_rules", "", [][2]string{{".github/instructions/docs.instructions.md", "Python 3.12"}, {"docs/AGENTS.md", "Python 3.11"}}},
	// Files a client never loads.
	{"never_loaded", "cursor", [][2]string{{".cursor/rules/manual-only.mdc", "Bump the version"}}},
	{"never_loaded", "copilot-review", [][2]string{{".github/instructions/docs.instructions.md", "Docs examples"}}},
	{"never_loaded", "codex", [][2]string{{"big/inner/AGENTS.md", "The inner package"}}},
	{"never_loaded", "codex", [][2]string{{"tools/AGENTS.md", "The plain tools file"}}},
	{"never_loaded", "copilot", [][2]string{{".github/instructions/review.instructions.md", "Reviewers check"}}},
}

// lintRepo writes the fixture into a committed git repository, with
// docs/CLAUDE.md a symlink to docs/AGENTS.md and web/CLAUDE.md an import
// of web/AGENTS.md (one file each, never its own duplicate).
func lintRepo(t *testing.T) (string, map[string]string) {
	t.Helper()
	files := lintFixture()
	dir := fileRepo(t, nil)
	testrepo.Write(t, dir, files)
	if err := os.Symlink("AGENTS.md", filepath.Join(dir, "docs", "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-q", "-m", "fixture")
	return dir, files
}

// lineOf is the 1-based line of file text holding phrase (0 when none).
func lineOf(text, phrase string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, phrase) {
			return i + 1
		}
	}
	return 0
}

// TestLintPlanted measures rules.lint on the planted fixture: recall (the
// planted findings found, at the planted lines) at least 90%, false
// findings (matching nothing planted) at most 5%.
func TestLintPlanted(t *testing.T) {
	dir, files := lintRepo(t)
	env := Request(context.Background(), dir, "rules.lint", []byte(`{}`))
	checkGolden(t, "lint_planted", dir, env)
	// The second read answers from the compiled snapshot: the same answer.
	if again := Request(context.Background(), dir, "rules.lint", []byte(`{}`)); string(again) != string(env) {
		t.Fatalf("rules.lint from the compiled snapshot differs:\n%s\n%s", env, again)
	}
	var out struct {
		OK     bool            `json:"ok"`
		Result api.LintResult  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(env, &out); err != nil || !out.OK {
		t.Fatalf("rules.lint: %v %s", err, env)
	}
	matches := func(f api.LintFinding, p planted) bool {
		if f.RuleID != p.rule || (p.client != "" && (f.Client == nil || *f.Client != p.client)) || len(f.Locations) != len(p.at) {
			return false
		}
		for _, at := range p.at {
			want := api.LintLocation{File: at[0], Line: lineOf(files[at[0]], at[1])}
			i := slices.Index(f.Locations, want)
			if want.Line == 0 || i < 0 || !strings.Contains(f.Quotes[i], at[1]) {
				return false
			}
		}
		return true
	}
	found := 0
	for _, p := range lintPlanted {
		if slices.ContainsFunc(out.Result.Findings, func(f api.LintFinding) bool { return matches(f, p) }) {
			found++
		} else {
			t.Errorf("planted %s %s %v: not found", p.rule, p.client, p.at)
		}
	}
	false_ := 0
	for _, f := range out.Result.Findings {
		ok := slices.ContainsFunc(lintPlanted, func(p planted) bool {
			// A duplicate is planted once; every client that reads it twice
			// reports it.
			if p.rule == "duplicate_rule" {
				p.client = ""
			}
			return matches(f, p)
		})
		if !ok {
			false_++
			t.Logf("false finding: %s %v %q", f.RuleID, f.Locations, f.Message)
		}
	}
	recall := float64(found) / float64(len(lintPlanted))
	falseRate := float64(false_) / float64(max(1, len(out.Result.Findings)))
	t.Logf("rules.lint on the planted fixture: %d of %d planted found (recall %.0f%%), %d of %d findings false (%.0f%%, precision %.0f%%)",
		found, len(lintPlanted), 100*recall, false_, len(out.Result.Findings), 100*falseRate, 100*(1-falseRate))
	if recall < 0.9 || falseRate > 0.05 {
		t.Fatalf("recall %.2f (want >= 0.90), false findings %.2f (want <= 0.05)", recall, falseRate)
	}
}
