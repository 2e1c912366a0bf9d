package detect

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/entry"
)

const record = "# %s. Use something\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n"

func find(t *testing.T, files map[string]string, o Options) []Source {
	t.Helper()
	fs := memfs.New()
	for n, txt := range files {
		if err := util.WriteFile(fs, n, []byte(txt), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Find(fs, o)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func str(ss []Source) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Kind + " " + s.Style + " " + s.Dir + " " + itoa(s.Entries))
		if s.Configured {
			b.WriteString(" configured")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestFindLayouts(t *testing.T) {
	got := find(t, map[string]string{
		".adr-dir":                               "architecture/log\n",
		"architecture/log/0001-record.md":        strings.Replace(record, "%s", "1", 1),
		"architecture/log/0002-use-go.md":        strings.Replace(record, "%s", "2", 1),
		"architecture/log/README.md":             "# Log\n",
		"docs/decisions/0001-madr.md":            "---\nstatus: accepted\n---\n# Use MADR\n",
		"docs/decisions/adr-template.md":         "# {short title}\n",
		"notes/x.md":                             "# 1. First\n\nStatus: accepted\n",
		"notes/y.md":                             "# 2. Second\n\n## Context\n\nA.\n\n## Decision\n\nB.\n",
		"notes/z.md":                             "# Notes\n",
		"guide/x.md":                             "# 1. Install\n",
		"guide/y.md":                             "# 2. Configure\n",
		".cursor/rules/go.mdc":                   "---\nglobs: '**/*.go'\n---\n# Go\n",
		".cursor/rules/sub/web.mdc":              "---\nglobs: web/**\n---\n# Web\n",
		".cursorrules":                           "Be brief.\n",
		".github/copilot-instructions.md":        "# Team\n",
		".github/instructions/a.instructions.md": "---\napplyTo: src/**\n---\n# A\n",
		"AGENTS.md":                              "# Root\n",
		"web/AGENTS.md":                          "# Web\n",
		"web/api/CLAUDE.md":                      "# API\n",
		"node_modules/pkg/AGENTS.md":             "# vendored\n",
		"vendor/x/docs/adr/0001-x.md":            "# 1. X\n",
		".ai/decisions/AGENTS.md":                "# in storage\n",
	}, Options{Skip: []string{".ai"}})
	want := "decision adr architecture/log 2\ndecision adr docs/decisions 1\ndecision adr notes 3\n" +
		"convention agents . 3\nconvention cursor .cursor/rules 2\nconvention cursor .cursorrules 1\nconvention copilot .github 2\n"
	if str(got) != want {
		t.Errorf("got\n%s\nwant\n%s", str(got), want)
	}
}

func TestLog4brainsAndKnown(t *testing.T) {
	files := map[string]string{
		".log4brains.yml":             "project:\n  name: x\n  adrFolder: ./docs/arch\n",
		"docs/arch/20240101-use-x.md": "# Use X\n\n- Status: accepted\n",
		"docs/arch/20240102-use-y.md": "# Use Y\n",
		"packages/a/AGENTS.md":        "# A\n",
		"packages/b/AGENTS.md":        "# B\n",
	}
	got := find(t, files, Options{})
	if s := str(got); s != "decision adr docs/arch 2\nconvention agents packages 2\n" {
		t.Errorf("got\n%s", s)
	}
	got = find(t, files, Options{Known: []entry.Source{{Dir: "docs/arch", Style: "adr"}, {Dir: "", Style: "agents"}}})
	if s := str(got); s != "decision adr docs/arch 2 configured\nconvention agents packages 2 configured\n" {
		t.Errorf("known: got\n%s", s)
	}
}

func TestAppendConfig(t *testing.T) {
	srcs := []Source{{Dir: "doc/adr", Kind: "decision", Style: "adr", Entries: 3}, {Dir: ".", Kind: "convention", Style: "agents", Entries: 1}}
	orig := []byte("# mine\nversion = 1\n\n[kinds.decision]\nreview_after = \"1y\"")
	out, changed, err := AppendConfig(".kontext.toml", orig, srcs)
	if err != nil || !changed || !strings.HasPrefix(string(out), string(orig)+"\n") {
		t.Fatalf("append: %v %v\n%s", err, changed, out)
	}
	cfg, err := config.Parse(".kontext.toml", out)
	if err != nil || len(cfg.Kinds["decision"].Include) != 1 || cfg.Kinds["decision"].ReviewAfter != "1y" || cfg.Kinds["convention"].Include[0].Dir != "" {
		t.Fatalf("parse: %v %+v", err, cfg)
	}
	for i := range srcs {
		srcs[i].Configured = true
	}
	again, changed, err := AppendConfig(".kontext.toml", out, srcs)
	if err != nil || changed || string(again) != string(out) {
		t.Fatalf("second run changed the config: %v %v", err, changed)
	}
	_, _, err = AppendConfig(".kontext.toml", []byte("[kinds.decision]\ninclude = [{dir = \"x\", style = \"adr\"}]\n"), []Source{{Dir: "doc/adr", Kind: "decision", Style: "adr"}})
	if err == nil || !strings.Contains(err.Error(), "add them by hand") {
		t.Fatalf("inline include array: %v", err)
	}
}

// Numbered names alone never make a log: a folder of numbered documents
// beside a real log is left out, and MADR records without a status field
// are found by their sections.
func TestFindEvidence(t *testing.T) {
	madr := "---\nnav_order: %s\nparent: Decisions\n---\n# Use %s\n\n## Context and Problem Statement\n\nWhy.\n\n## Considered Options\n\n* A\n\n## Decision Outcome\n\nA.\n"
	note := "---\ntitle: Note %s\nsidebar_position: %s\n---\n# Note\n\nSome steps.\n\n## Context\n\nBackground only.\n"
	files := map[string]string{
		"docs/decisions/0001-use-a.md":    fmt.Sprintf(madr, "1", "A"),
		"docs/decisions/0002-use-b.md":    fmt.Sprintf(madr, "2", "B"),
		"docs/decisions/README.md":        "# Log\n",
		"docs/appnotes/0001-install.md":   fmt.Sprintf(note, "1", "1"),
		"docs/appnotes/0002-upgrade.md":   fmt.Sprintf(note, "2", "2"),
		"docs/appnotes/0003-backup.md":    fmt.Sprintf(note, "3", "3"),
		"docs/tutorial/001-first-app.md":  "# 1. Your first app\n\nRun it.\n",
		"docs/tutorial/002-next-steps.md": "# 2. Next steps\n\nDeploy it.\n",
		"rfcs/0001-streams.md":            "# RFC 1: Streams\n\n## Summary\n\nDraft.\n",
		"rfcs/0002-queues.md":             "# RFC 2: Queues\n\n## Motivation\n\nDraft.\n",
		"changelog/0001-v1.md":            "# 1.0\n\n- first\n",
		"changelog/0002-v2.md":            "# 2.0\n\n- second\n",
		"ops/runbooks/001-restart.md":     "# Restart\n\n1. ssh\n",
		"ops/runbooks/002-failover.md":    "# Failover\n\n1. promote\n",
		// a conventional name with no evidence is not a log either
		"docs/adr/0001-setup.md": "# Setup\n\nClone it.\n",
		// an index that calls its records decisions is evidence for all
		"arch/records/README.md":    "# Architecture decision records\n\n* [One](001-one.md)\n",
		"arch/records/001-one.md":   "# One\n\nWe do one.\n",
		"arch/records/002-two.md":   "# Two\n\nWe do two.\n",
		"arch/records/003-three.md": "# Three\n",
		// at least half: two of four records carry a status
		"log/0001-a.md": "# A\n\n**Status**: Accepted\n",
		"log/0002-b.md": "# B\n\n* Status: proposed\n",
		"log/0003-c.md": "# C\n",
		"log/0004-d.md": "# D\n",
		// one of three is not enough
		"half/0001-a.md": "# A\n\nDate: 2024-01-01\n",
		"half/0002-b.md": "# B\n",
		"half/0003-c.md": "# C\n",
	}
	got := find(t, files, Options{})
	want := "decision adr arch/records 3\ndecision adr docs/decisions 2\ndecision adr log 4\n"
	if str(got) != want {
		t.Errorf("got\n%s\nwant\n%s", str(got), want)
	}
}

func TestIsRecord(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"# T\n\n## Status\n\nAccepted\n", true},
		{"# T\n\n## Status: Accepted\n", true},
		{"# T\n\n## Statuses of the build\n", false},
		{"# T\n\nStatus: accepted\n", true},
		{"# T\n\n- Status: accepted\n", true},
		{"# T\n\n* Status: accepted\n", true},
		{"# T\n\n**Status**: accepted\n", true},
		{"# T\n\n**Status:** accepted\n", true},
		{"---\nstatus: \"accepted\"\n---\n# T\n", true},
		{"---\ntitle: T\nsidebar_position: 3\n---\n# T\n", false},
		{"---\ntitle: T\n  status: nested\n---\n# T\n", false},
		{"# T\n\nDate: 2024-01-01\n", true},
		{"# T\n\n## Context\n\n## Decision\n", true},
		{"# T\n\n## Context\n\n## Steps\n", false},
		{"# T\n\n## Decision Drivers\n\n## Considered Options\n", true},
		{"# T\n\n```\n## Status\nStatus: x\n```\n", false},
		{"# T\n\nThe status: fine.\n", false},
		{"---\nstatus: open\n", false},
	} {
		if got := isRecord(c.text); got != c.want {
			t.Errorf("isRecord(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// A marker naming a directory that is not in the tree names no log; the
// record kept in adr-tools' usual directory is found instead.
func TestFindDanglingMarker(t *testing.T) {
	got := find(t, map[string]string{
		".adr-dir": "private/doc/architecture/decisions\n",
		"doc/architecture/decisions/0001-use-x.md": strings.Replace(record, "%s", "1", 1),
	}, Options{})
	if s := str(got); s != "decision adr doc/architecture/decisions 1\n" {
		t.Errorf("got\n%s", s)
	}
}

func TestFindClaudeFiles(t *testing.T) {
	files := map[string]string{
		"CLAUDE.md":                     "@AGENTS.md\n",
		"CLAUDE.local.md":               "# Mine\n",
		".claude/rules/go.md":           "---\npaths: \"**/*.go\"\n---\n# Go\n",
		".claude/rules/style/brief.md":  "Be brief.\n",
		".claude/commands/release.md":   "# Release\n",
		"web/.claude/CLAUDE.md":         "# Web\n",
		"web/.claude/rules/a.md":        "# A\n",
		"web/.claude/rules/b.md":        "# B\n",
		"docs/guide/0001-intro.md":      "# Intro\n",
		"node_modules/x/.claude/r.md":   "# vendored\n",
		"node_modules/x/CLAUDE.md":      "# vendored\n",
		"docs/.claude/rules/notes.txt":  "not a rule\n",
		"services/api/.claude/notes.md": "not a rule either\n",
	}
	// Claude Code's files alone: the claude style, the local file left out.
	if got, want := str(find(t, files, Options{})), "convention claude . 6\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// With an AGENTS.md the agents style reads both; CLAUDE.md = @AGENTS.md
	// is an alias, not a second entry.
	files["AGENTS.md"] = "# Root\n"
	if got, want := str(find(t, files, Options{})), "convention agents . 6\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// An agents source already reads them.
	got := find(t, files, Options{Known: []entry.Source{{Kind: "convention", Dir: "", Style: entry.StyleAgents}}})
	if len(got) != 1 || !got[0].Configured {
		t.Errorf("known agents source: %s", str(got))
	}
}
