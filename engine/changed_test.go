package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

func snapEngine(t *testing.T, rev string, files map[string]string) *engine.Engine {
	t.Helper()
	fs := memfs.New()
	for n, txt := range files {
		if err := util.WriteFile(fs, n, []byte(txt), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return engine.New(engine.Options{FS: fs, Surface: engine.Snapshot, Revision: rev})
}

func fm(status, checked, body string) string {
	s := "---\nstatus: " + status + "\n"
	if checked != "" {
		s += "checked: " + checked + "\n"
	}
	return s + "paths: [\"src/**\"]\n---\n# Title\n\n" + body + "\n"
}

func TestChanged(t *testing.T) {
	base := snapEngine(t, "", map[string]string{
		".ai/decisions/keep.md":         fm("accepted", "2026-01-01", "Same."),
		".ai/decisions/look.md":         fm("accepted", "2026-01-01", "Same."),
		".ai/decisions/edit.md":         fm("accepted", "", "Old body."),
		".ai/decisions/old.md":          fm("accepted", "", "Old way."),
		".ai/conventions/retire.md":     fm("active", "", "Retire me."),
		".ai/conventions/reject.md":     fm("active", "", "Reject me."),
		".ai/conventions/gone.md":       fm("active", "", "Gone."),
		".ai/learnings/moved.md":        fm("active", "", "Moved."),
		".ai/incidents/was-inactive.md": fm("deprecated", "", "Already retired."),
	})
	head := snapEngine(t, "0123456789abcdef0123456789abcdef01234567", map[string]string{
		".ai/decisions/keep.md":         fm("accepted", "2026-01-01", "Same."),
		".ai/decisions/look.md":         fm("accepted", "2026-11-30", "Same."),
		".ai/decisions/edit.md":         fm("accepted", "", "New body."),
		".ai/decisions/old.md":          fm("accepted", "", "Old way."),
		".ai/decisions/new.md":          "---\nstatus: accepted\nsupersedes: [old]\n---\n# New\n\nNew way.\n",
		".ai/conventions/retire.md":     fm("retired", "", "Retire me."),
		".ai/conventions/reject.md":     fm("rejected", "", "Reject me."),
		".ai/architecture/moved.md":     fm("active", "", "Moved."),
		".ai/incidents/was-inactive.md": fm("deprecated", "", "Already retired."),
	})
	var env struct {
		OK     bool              `json:"ok"`
		Result api.ChangedResult `json:"result"`
	}
	raw := engine.Changed(context.Background(), base, head)
	if err := json.Unmarshal(raw, &env); err != nil || !env.OK {
		t.Fatalf("bad envelope %s: %v", raw, err)
	}
	if env.Result.Base != nil || env.Result.Head == nil || *env.Result.Head != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("base/head = %v/%v", env.Result.Base, env.Result.Head)
	}
	want := []struct{ id, change string }{
		{"edit", "revised"}, {"gone", "deprecated"}, {"new", "added"}, {"old", "superseded"},
		{"reject", "deprecated"}, {"retire", "deprecated"},
	}
	got := env.Result.Changes
	if len(got) != len(want) {
		t.Fatalf("changes = %s", raw)
	}
	for i, w := range want {
		c := got[i]
		if c.ID != w.id || c.Change != w.change {
			t.Errorf("change %d = %s %s, want %s %s", i, c.ID, c.Change, w.id, w.change)
		}
		switch c.ID {
		case "gone":
			if !c.Removed || c.HeadRevision != nil || c.BaseRevision == nil || c.Revision != *c.BaseRevision {
				t.Errorf("removed entry: %+v", c)
			}
		case "old":
			if len(c.SupersededBy) != 1 || c.SupersededBy[0] != "new" {
				t.Errorf("superseded_by = %v", c.SupersededBy)
			}
		case "edit":
			if c.BaseRevision == nil || c.HeadRevision == nil || *c.BaseRevision == *c.HeadRevision || c.Revision != *c.HeadRevision {
				t.Errorf("revisions: %+v", c)
			}
		case "new":
			if c.BaseRevision != nil || c.HeadRevision == nil {
				t.Errorf("added entry: %+v", c)
			}
		}
	}

	// Same snapshot on both sides: nothing changed.
	var same struct {
		Result api.ChangedResult `json:"result"`
	}
	if err := json.Unmarshal(engine.Changed(context.Background(), head, head), &same); err != nil || len(same.Result.Changes) != 0 {
		t.Errorf("head vs head: %+v %v", same.Result, err)
	}
	if bad := engine.Changed(context.Background(), nil, head); decode(t, bad)["ok"] != false {
		t.Errorf("nil base: %s", bad)
	}
}
