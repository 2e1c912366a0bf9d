package drafts_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/drafts"
)

var errStage = errors.New("index.lock held")

// reopen is a fresh engine (nothing cached) over w's filesystem, as the
// next process would see it.
func reopen(w *fakeWriter) (*engine.Engine, *fakeWriter) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	return engine.New(engine.Options{FS: w.fs, Writer: w, Root: "/repo", Surface: engine.Native,
		Now: func() time.Time { return now }, Operations: drafts.Operations()}), w
}

// adrConfig reads decisions from doc/adr in the ADR style and the rest
// from .ai in the frontmatter style.
const adrConfig = "version = 1\nstorage = \".ai\"\n[kinds.decision]\ndir = \"doc/adr\"\nstyle = \"adr\"\n"

func revisionOf(t *testing.T, w *fakeWriter, id string) string {
	t.Helper()
	e, _ := reopen(w)
	got := call(t, e, "entries.get", `{"id":"`+id+`"}`)
	rev, _ := got["revision"].(string)
	if rev == "" {
		t.Fatalf("no revision for %s: %v", id, got)
	}
	return rev
}

func TestSetStatusEditsOnlyTheStatusWord(t *testing.T) {
	cases := []struct {
		name, config, file, before, status, after string
	}{
		{"frontmatter", "", ".ai/decisions/2026-01-01-use-go.md",
			"---\nstatus: proposed   # until the review\ndate: 2026-01-01\n---\n# Use Go\n\nStatus: proposed is only a word here.\n",
			"accepted",
			"---\nstatus: accepted   # until the review\ndate: 2026-01-01\n---\n# Use Go\n\nStatus: proposed is only a word here.\n"},
		{"frontmatter without status", "", ".ai/decisions/2026-01-01-use-go.md",
			"---\ndate: 2026-01-01\npaths: [\"**/*.go\"]\n---\n# Use Go\n\nBody.\n",
			"rejected",
			"---\nstatus: rejected\ndate: 2026-01-01\npaths: [\"**/*.go\"]\n---\n# Use Go\n\nBody.\n"},
		{"nygard", adrConfig, "doc/adr/0002-use-go.md",
			"# 2. Use Go\n\nDate: 2026-01-01\n\n## Status\n\nProposed\n\n## Context\n\nWe proposed Go.\n",
			"accepted",
			"# 2. Use Go\n\nDate: 2026-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nWe proposed Go.\n"},
		{"nygard emphasis and date", adrConfig, "doc/adr/0002-use-go.md",
			"# 2. Use Go\r\n\r\n## Status\r\n\r\nDate: 2026-01-01\r\n\r\n**PROPOSED** (by the platform team)\r\n\r\n## Decision\r\n\r\nGo.\r\n",
			"rejected",
			"# 2. Use Go\r\n\r\n## Status\r\n\r\nDate: 2026-01-01\r\n\r\n**REJECTED** (by the platform team)\r\n\r\n## Decision\r\n\r\nGo.\r\n"},
		{"status heading", adrConfig, "doc/adr/0002-use-go.md",
			"# 2. Use Go\n\n## Status: Proposed\n\n## Context\n\nText.\n",
			"accepted",
			"# 2. Use Go\n\n## Status: Accepted\n\n## Context\n\nText.\n"},
		{"madr 2 bullet", adrConfig, "doc/adr/0002-use-go.md",
			"# Use Go\n\n* Status: proposed\n* Deciders: Ann, Bo\n* Date: 2026-01-01\n\n## Context and Problem Statement\n\nWhich language?\n",
			"accepted",
			"# Use Go\n\n* Status: accepted\n* Deciders: Ann, Bo\n* Date: 2026-01-01\n\n## Context and Problem Statement\n\nWhich language?\n"},
		{"madr 3 frontmatter", adrConfig, "doc/adr/0002-use-go.md",
			"---\nstatus: \"proposed\"\ndate: 2026-01-01\ndeciders: Ann\n---\n# Use Go\n\n## Context and Problem Statement\n\nWhich language?\n",
			"rejected",
			"---\nstatus: \"rejected\"\ndate: 2026-01-01\ndeciders: Ann\n---\n# Use Go\n\n## Context and Problem Statement\n\nWhich language?\n"},
		{"adr without status", adrConfig, "doc/adr/0002-use-go.md",
			"# 2. Use Go\n\nDate: 2026-01-01\n\n## Context\n\nText.\n",
			"accepted",
			"# 2. Use Go\n\nDate: 2026-01-01\n\n<!-- kontext\nstatus: accepted\n-->\n\n## Context\n\nText.\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, w := open(t)
			call(t, e, "setup", `{}`)
			if c.config != "" {
				util.WriteFile(w.fs, ".kontext.toml", []byte(c.config), 0o644)
			}
			util.WriteFile(w.fs, c.file, []byte(c.before), 0o644)
			id := strings.TrimSuffix(c.file[strings.LastIndex(c.file, "/")+1:], ".md")
			rev := revisionOf(t, w, id)
			e, _ = reopen(w)
			in := `{"operation_id":"st-1","entry_id":"` + id + `","entry_revision":"` + rev + `","status":"` + c.status + `"}`
			res := call(t, e, "drafts.set_status", in)
			got, _ := util.ReadFile(w.fs, c.file)
			if string(got) != c.after {
				t.Fatalf("file after set_status:\n%q\nwant:\n%q", got, c.after)
			}
			en, _ := res["entry"].(map[string]any)
			if en["status"] != c.status || res["path"] != c.file || res["replayed"] != false || res["staged"] != true {
				t.Fatalf("result: %v", res)
			}
			if len(w.staged) != 1 || w.staged[0] != c.file {
				t.Fatalf("staged %v", w.staged)
			}
			again := call(t, e, "drafts.set_status", in)
			if again["replayed"] != true || len(w.staged) != 1 {
				t.Fatalf("retry: replayed %v, staged %v", again["replayed"], w.staged)
			}
		})
	}
}

func TestSetStatusRefusals(t *testing.T) {
	e, w := open(t)
	call(t, e, "setup", `{}`)
	files := map[string]string{
		".ai/decisions/2026-01-01-proposed.md": "---\nstatus: proposed\n---\n# Proposed one\n",
		".ai/decisions/2026-01-02-accepted.md": "---\nstatus: accepted\n---\n# Accepted one\n",
		".ai/decisions/2026-01-03-rejected.md": "---\nstatus: rejected\n---\n# Rejected one\n",
		".ai/decisions/2026-01-04-custom.md":   "---\nstatus: in review\n---\n# Custom one\n",
		".ai/conventions/2026-01-05-a-rule.md": "---\nstatus: active\n---\n# A rule\n",
	}
	for p, d := range files {
		util.WriteFile(w.fs, p, []byte(d), 0o644)
	}
	rev := func(id string) string { return revisionOf(t, w, id) }
	for _, c := range []struct{ id, rev, status, code string }{
		{"2026-01-01-proposed", rev("2026-01-01-proposed"), "proposed", "invalid_input"},
		{"2026-01-01-proposed", rev("2026-01-01-proposed"), "superseded", "invalid_input"},
		{"2026-01-01-proposed", rev("2026-01-01-proposed"), "deprecated", "invalid_input"},
		{"2026-01-01-proposed", rev("2026-01-01-proposed"), "", "invalid_input"},
		{"2026-01-01-proposed", "HEAD", "accepted", "invalid_input"},
		{"2026-01-01-proposed", strings.Repeat("0", 40), "accepted", "stale_entry"},
		{"2026-01-02-accepted", rev("2026-01-02-accepted"), "accepted", "operation_conflict"},
		{"2026-01-02-accepted", rev("2026-01-02-accepted"), "rejected", "operation_conflict"},
		{"2026-01-03-rejected", rev("2026-01-03-rejected"), "accepted", "operation_conflict"},
		{"2026-01-04-custom", rev("2026-01-04-custom"), "accepted", "operation_conflict"},
		{"2026-01-05-a-rule", rev("2026-01-05-a-rule"), "accepted", "invalid_input"},
		{"no-such-entry", rev("2026-01-01-proposed"), "accepted", "not_found"},
	} {
		e, _ := reopen(w)
		in := `{"operation_id":"r-` + c.id + c.status + `","entry_id":"` + c.id + `","entry_revision":"` + c.rev + `","status":"` + c.status + `"}`
		if got := codeOf(t, e, "drafts.set_status", in); got != c.code {
			t.Errorf("%s → %q: %q, want %q", c.id, c.status, got, c.code)
		}
	}
	if len(w.staged) != 0 || len(receipts(w)) != 0 {
		t.Fatalf("refused requests staged %v, stored %v", w.staged, receipts(w))
	}
	for p, d := range files {
		if got, _ := util.ReadFile(w.fs, p); string(got) != d {
			t.Fatalf("%s changed: %q", p, got)
		}
	}
}

func TestSetStatusResumesAfterAFailedStage(t *testing.T) {
	e, w := open(t)
	call(t, e, "setup", `{}`)
	p := ".ai/decisions/2026-01-01-use-go.md"
	before := "---\nstatus: proposed\n---\n# Use Go\n"
	util.WriteFile(w.fs, p, []byte(before), 0o644)
	in := `{"operation_id":"st-r","entry_id":"2026-01-01-use-go","entry_revision":"` + revisionOf(t, w, "2026-01-01-use-go") + `","status":"accepted"}`
	w.failStage = errStage
	e, _ = reopen(w)
	if code := codeOf(t, e, "drafts.set_status", in); code == "" {
		t.Fatal("set_status succeeded although staging failed")
	}
	if got, _ := util.ReadFile(w.fs, p); string(got) != before {
		t.Fatalf("the file was not put back: %q", got)
	}
	if code := codeOf(t, e, "operations.get", `{"operation_id":"st-r"}`); code != "operation_incomplete" {
		t.Fatalf("operations.get: %q, want operation_incomplete", code)
	}
	w.failStage = nil
	res := call(t, e, "drafts.set_status", in)
	if got, _ := util.ReadFile(w.fs, p); string(got) != "---\nstatus: accepted\n---\n# Use Go\n" || res["replayed"] != false {
		t.Fatalf("resume: %q, %v", got, res)
	}
}

// Retire and supersede replace the status phrase on the line the status
// was read from: a MADR bullet, or the status line below a Date line of
// the status section (never the Date line).
func TestRetireEditsTheStatusLine(t *testing.T) {
	for _, c := range []struct{ name, before, want string }{
		{"madr bullet",
			"# Use Redis\n\n* Status: accepted\n* Date: 2026-01-03\n\n## Context and Problem Statement\n\nX?\n",
			"# Use Redis\n\n* Status: Deprecated\n* Date: 2026-01-03\n\n## Context and Problem Statement\n\nX?\n\n## Retired 2026-03-04\n\nGone.\n"},
		{"date in the status section",
			"# 4. Use Kafka\n\n## Status\n\nDate: 2026-01-01\n\nAccepted\n\n## Context\n\nX\n",
			"# 4. Use Kafka\n\n## Status\n\nDate: 2026-01-01\n\nDeprecated\n\n## Context\n\nX\n\n## Retired 2026-03-04\n\nGone.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, w := open(t)
			call(t, e, "setup", `{}`)
			util.WriteFile(w.fs, ".kontext.toml", []byte(adrConfig), 0o644)
			p := "doc/adr/0004-use-it.md"
			util.WriteFile(w.fs, p, []byte(c.before), 0o644)
			rev := revisionOf(t, w, "0004-use-it")
			e, _ = reopen(w)
			call(t, e, "drafts.retire", `{"operation_id":"ret","entry_id":"0004-use-it","entry_revision":"`+rev+`","reason":"Gone."}`)
			if got, _ := util.ReadFile(w.fs, p); string(got) != c.want {
				t.Fatalf("after retire:\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}
