package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/kontext/kontext/internal/testrepo"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/api"
)

func runBrief(t *testing.T, dir string, json bool, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runCommand(context.Background(), &factory{dir: dir, json: json, io: Streams(nil, &stdout, &stderr)}, "brief", args)
	return stdout.String(), stderr.String(), code
}

// TestBriefDemo runs the real command on the demo repository: text and
// JSON carry the same document, and a tiny budget exits 10.
func TestBriefDemo(t *testing.T) {
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	dir := testrepo.Demo(t)
	text, stderr, code := runBrief(t, dir, false, "src/billing/tax/vat.go", "--budget-lines", "60")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	t.Log("\n" + text)
	js, _, code := runBrief(t, dir, false, "src/billing/tax/vat.go", "--budget-lines", "60", "--json")
	if code != exitOK {
		t.Fatalf("--json exit %d", code)
	}
	var b api.Brief
	if err := json.Unmarshal([]byte(js), &b); err != nil {
		t.Fatal(err)
	}
	if briefText(&b) != text {
		t.Errorf("JSON sections differ from the text:\n%s\n---\n%s", briefText(&b), text)
	}
	if b.Budget.Lines > 60 || b.Budget.Dropped == 0 || !strings.Contains(text, "kontext show 2026-") {
		t.Errorf("budget %+v: want ≤ 60 lines with drops", b.Budget)
	}
	for _, x := range b.Excluded {
		if !strings.Contains(text, "- "+x.Item+" — "+x.Reason) {
			t.Errorf("excluded %v not in the text", x)
		}
	}

	_, _, code = runBrief(t, dir, false, "src/billing/tax/vat.go", "--budget-lines", "5")
	if code != exitOverBudget {
		t.Errorf("--budget-lines 5: exit %d, want %d", code, exitOverBudget)
	}
	_, stderr, code = runBrief(t, dir, false, "--diff", "no-such-rev")
	if code != exitUsage {
		t.Errorf("--diff no-such-rev: exit %d (%s), want %d", code, stderr, exitUsage)
	}
	text, stderr, code = runBrief(t, dir, false, "--diff", "HEAD~1")
	if code != exitOK || !strings.Contains(text, "changed since HEAD~1") {
		t.Errorf("--diff HEAD~1: exit %d (%s)\n%s", code, stderr, text)
	}
}

func briefText(b *api.Brief) string {
	var sb strings.Builder
	for _, s := range b.Sections {
		sb.WriteString(s.Text)
	}
	return sb.String()
}
