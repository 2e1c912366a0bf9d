package native

import (
	"context"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/drafts"
)

// TestWritesRefuseControlCharacters: a write refuses NUL, ESC, BEL, DEL and the C1 controls
// in any text field (tab, newline and CRLF are text), naming the field, before anything is
// planned: nothing is written, staged or stored.
func TestWritesRefuseControlCharacters(t *testing.T) {
	r := captureRepo(t)
	rev := r.entry("money")["revision"].(string)
	before := r.git("status", "--porcelain", "--untracked-files=all")
	for _, c := range []struct{ op, input, field string }{
		{"drafts.capture", `{"entry":{"kind":"learning","title":"Evil \u001b]0;pwned\u0007"}}`, "entry.title"},
		{"drafts.capture", `{"entry":{"kind":"learning","title":"x","body":"a\u0000b"}}`, "entry.body"},
		{"drafts.capture", `{"entry":{"kind":"learning","title":"x","tags":["ok","b\u007f"]}}`, "entry.tags"},
		{"drafts.capture", `{"entry":{"kind":"learning","title":"x","body":"csi \u009b2J"}}`, "entry.body"},
		{"drafts.capture", `{"entry":{"kind":"learning","title":"x","body":"lone\rcr"}}`, "entry.body"},
		{"drafts.stage", `{"operation_id":"s-1","entry":{"kind":"convention","title":"T\u001b[2J"}}`, "entry.title"},
		{"drafts.stage", `{"operation_id":"s\u0000","entry":{"kind":"convention","title":"T"}}`, "operation_id"},
		{"drafts.retire", `{"operation_id":"r-1","entry_id":"money","entry_revision":"` + rev + `","reason":"gone\u0007"}`, "reason"},
		{"inbox.challenge", `{"id":"money","because":"\u001bc reset"}`, "because"},
	} {
		m := r.call(c.op, c.input)
		em, _ := m["error"].(map[string]any)
		msg, _ := em["message"].(string)
		if errCode(m) != "invalid_input" || !strings.Contains(msg, `field "`+c.field+`"`) || !strings.Contains(msg, "control character") {
			t.Errorf("%s %s: %v", c.op, c.input, m)
		}
	}
	if after := r.git("status", "--porcelain", "--untracked-files=all"); after != before {
		t.Errorf("a refused write changed the worktree:\n%s", after)
	}
	if l := r.api("inbox.list", `{"state":"all"}`); len(l["candidates"].([]any)) != 0 {
		t.Errorf("a refused capture stored a candidate: %v", l)
	}
	// Tab, newline and CRLF are text.
	if m := r.call("drafts.capture", `{"entry":{"kind":"learning","title":"Tabs\tare fine","body":"line\r\nnext\n\tindented"}}`); m["ok"] != true {
		t.Errorf("text with tab/CRLF refused: %v", m)
	}
	// The typed Go door checks the same.
	e, err := Open(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drafts.Capture(context.Background(), e, &api.CaptureInput{Entry: &api.CaptureEntry{Kind: "learning", Title: "x\x1b]2;t\x07"}}); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("typed capture: %v", err)
	}
}
