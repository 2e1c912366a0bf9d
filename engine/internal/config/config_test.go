package config

import (
	"encoding/json"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/apierr"
)

func TestDefaults(t *testing.T) {
	c := Defaults()
	srcs := c.Sources()
	if len(srcs) != 5 || srcs[0].Dir != ".ai/decisions" || srcs[4].Dir != ".ai/architecture" || srcs[1].Style != "frontmatter" {
		t.Fatalf("default sources %+v", srcs)
	}
	if c.Ledger() != ".ai/confirmations.log" || c.MaxCommits != 5000 || c.BudgetLines != 300 {
		t.Fatalf("defaults %+v", c)
	}
}

func TestParse(t *testing.T) {
	text := `version = 1
storage = "knowledge/"

[kinds.adr]
dir = "./docs/adr/"
style = "adr"
review_after = "6m"

[[kinds.convention.include]]
dir = ".cursor/rules"
style = "cursor"

[[kinds.convention.include]]
dir = "."
style = "agents"

[index]
max_commits = 100

[brief]
budget_lines = 50
`
	c, err := Parse(".kontext.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	d := c.Kinds["decision"]
	if d.Dir != "docs/adr" || d.Style != "adr" || d.ReviewAfter != "6m" {
		t.Fatalf("decision kind %+v", d)
	}
	if c.Kinds["learning"].Dir != "knowledge/learnings" {
		t.Fatalf("storage does not move default dirs: %s", c.Kinds["learning"].Dir)
	}
	var inc []string
	for _, s := range c.Sources() {
		if s.ReadOnly {
			inc = append(inc, s.Kind+":"+s.Dir+":"+s.Style)
		}
	}
	if strings.Join(inc, ",") != "convention:.cursor/rules:cursor,convention::agents" {
		t.Fatalf("includes %v", inc)
	}
	if c.MaxCommits != 100 || c.BudgetLines != 50 || c.Path != ".kontext.toml" {
		t.Fatalf("tables %+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]struct{ text, want string }{
		"unknown top key":     {"version = 1\nstorag = \".ai\"\n", `.kontext.toml:2: unknown key "storag"`},
		"unknown nested key":  {"[kinds.decision]\ndir = \"a\"\nstyel = \"adr\"\n", `.kontext.toml:3: unknown key "kinds.decision.styel"`},
		"unknown kind":        {"[kinds.rule]\ndir = \"a\"\n", `.kontext.toml:1: unknown kind "rule"`},
		"bad style":           {"\n[kinds.decision]\nstyle = \"nygard\"\n", `.kontext.toml:3: kinds.decision.style: unknown style "nygard"`},
		"bad review_after":    {"[kinds.learning]\nreview_after = \"soon\"\n", `.kontext.toml:2: kinds.learning.review_after`},
		"escaping dir":        {"[kinds.decision]\ndir = \"../elsewhere\"\n", `leaves the repository`},
		"absolute dir":        {"[kinds.decision]\ndir = \"/etc\"\n", `is absolute`},
		"shared dir":          {"[kinds.decision]\ndir = \"docs\"\n[kinds.learning]\ndir = \"docs/\"\n", `two sources share the directory "docs"`},
		"include shares dir":  {"[[kinds.convention.include]]\ndir = \".ai/decisions\"\n", `two sources share the directory ".ai/decisions"`},
		"bad version":         {"version = 2\n", `unsupported version 2`},
		"bad max_commits":     {"[index]\nmax_commits = 0\n", `.kontext.toml:2: index.max_commits: must be between 1 and 10000000`},
		"huge max_commits":    {"[index]\nmax_commits = 9223372036854775807\n", `.kontext.toml:2: index.max_commits: must be between 1 and 10000000`},
		"huge budget_lines":   {"[brief]\nbudget_lines = 9223372036854775807\n", `.kontext.toml:2: brief.budget_lines: must be between 1 and 1000000`},
		"toml syntax":         {"version = \n", `.kontext.toml:1:`},
		"wrong type":          {"storage = 3\n", `.kontext.toml:1:`},
		"include without dir": {"[[kinds.convention.include]]\nstyle = \"cursor\"\n", `include[0].dir`},
		// Hardening II: the document's words, never Go's field names.
		"version a string":  {"version = \"x\"\n", `.kontext.toml:1: version must be an integer, not a TOML string`},
		"version a float":   {"version = 1.5\n", `.kontext.toml:1: version must be an integer, not a TOML float`},
		"nested wrong type": {"[index]\nmax_commits = \"lots\"\n", `.kontext.toml:2: index.max_commits must be an integer, not a TOML string`},
		"kind wrong type":   {"[kinds.learning]\nreview_after = 12\n", `.kontext.toml:2: kinds.learning.review_after must be a string, not a TOML integer`},
		"storage NUL":       {"storage = \".ai\\u0000x\"\n", `.kontext.toml:1: storage: ".ai\x00x" contains a NUL byte`},
		"storage .git":      {"storage = \".git\"\n", `.kontext.toml:1: storage: ".git" is inside .git`},
		"storage in .git":   {"storage = \"./.git/kb\"\n", `is inside .git`},
		"kind dir in .git":  {"[kinds.decision]\ndir = \".GIT/adr\"\n", `is inside .git`},
		"storage root":      {"storage = \".\"\n", `is the repository root`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(".kontext.toml", []byte(c.text))
			if err == nil {
				t.Fatal("accepted")
			}
			if apierr.CodeOf(err) != apierr.InvalidInput || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%s: %v", apierr.CodeOf(err), err)
			}
			for _, leak := range []string{"fileConfig", "fileKind", "struct field", "struct {", "cannot decode"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("the message names Go's types (%q): %v", leak, err)
				}
			}
		})
	}
}

// TestVerifyTableWarns: a committed [verify] table (pass_env chooses what
// a command is given) is a local-only key like [llm]: a warning, and
// reads keep working.
func TestVerifyTableWarns(t *testing.T) {
	c, err := Parse(".kontext.toml", []byte("version = 1\n\n[verify]\npass_env = [\"AWS_SECRET_ACCESS_KEY\"]\n"))
	if err != nil {
		t.Fatalf("a committed [verify] broke the read: %v", err)
	}
	if len(c.Diagnostics) != 1 || c.Diagnostics[0].Code != CodeLocalOnlyKey || c.Diagnostics[0].Line != 3 || c.Diagnostics[0].Severity != "warning" ||
		!strings.Contains(c.Diagnostics[0].Message, "pass_env") {
		t.Fatalf("diagnostics %+v", c.Diagnostics)
	}
}

// TestLocalOnlyKeysIgnored: a committed [llm] table, a model command or a trust key is a
// warning diagnostic naming file:line and is ignored; the rest of the config still applies.
func TestLocalOnlyKeysIgnored(t *testing.T) {
	text := "version = 1\nstorage = \"kb\"\ncommand = [\"sh\", \"-c\", \"x\"]\n\n[llm]\nadapter = \"command\"\ncommand = [\"ollama\"]\n\n[trust]\nkey = \"k\"\n"
	c, err := Parse(".kontext.toml", []byte(text))
	if err != nil {
		t.Fatalf("reads must keep working: %v", err)
	}
	if c.Storage != "kb" {
		t.Fatalf("the rest of the config was not applied: %+v", c)
	}
	var got []string
	for _, d := range c.Diagnostics {
		if d.Severity != "warning" || d.Code != CodeLocalOnlyKey || d.File != ".kontext.toml" {
			t.Errorf("diagnostic %+v", d)
		}
		got = append(got, d.Message[:strings.Index(d.Message, " ")]+":"+string(rune('0'+d.Line)))
	}
	if strings.Join(got, " ") != `"llm":5 "command":3 "trust":9` {
		t.Fatalf("diagnostics %v", got)
	}
}

// A parsed configuration survives JSON (a stored snapshot keeps it so)
// unchanged, diagnostics included.
func TestConfigJSON(t *testing.T) {
	for _, text := range []string{
		"version = 1\nstorage = \"knowledge\"\n",
		"[kinds.decision]\ndir = \"docs/adr\"\nstyle = \"adr\"\nreview_after = \"1y\"\n[[kinds.decision.include]]\ndir = \"docs/old\"\n[[kinds.convention.include]]\ndir = \"rules\"\nstyle = \"cursor\"\n",
		"[index]\nmax_commits = 100\n[brief]\nbudget_lines = 50\n",
		"[llm]\nadapter = \"openai\"\nmodel = \"x\"\ncommand = [\"a\", 1]\n[trust]\nkeys = { a = 2026-01-01 }\n",
		"[verify]\npass_env = [\"X\"]\n",
	} {
		want, err := Parse(".kontext.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var got Config
		if err := json.Unmarshal(b, &got); err != nil || !reflect.DeepEqual(&got, want) {
			t.Errorf("%q: JSON gives %+v (%v), want %+v", text, got, err, want)
		}
	}
}

// The overlay's and the ledger's paths are path.Join's, clean storage
// directory or not.
func TestStorageFileIsJoin(t *testing.T) {
	for _, s := range []string{"", ".", ".ai", "docs/kb", "./x", "a//b", "a/../b", "/abs", "a/b/"} {
		c := &Config{Storage: s}
		if got, want := c.Overlay(), path.Join(s, "paths.toml"); got != want {
			t.Errorf("Storage %q: Overlay %q, want %q", s, got, want)
		}
		if got, want := c.Ledger(), path.Join(s, "confirmations.log"); got != want {
			t.Errorf("Storage %q: Ledger %q, want %q", s, got, want)
		}
	}
}
