package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

var update = flag.Bool("update", false, "rewrite the CLI golden files under testdata/cli")

// operationIDs are the fresh operation ids a CLI write makes up.
var operationIDs = regexp.MustCompile(`cli-[a-z-]+-[0-9a-f]{16}`)

// TestCLIGolden pins the --json output of every human command on the demo
// repository, like testdata/contract pins the API's: a change of shape
// shows in review. Rewrite with go test ./cmd/kontext -run CLIGolden -update.
func TestCLIGolden(t *testing.T) {
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:00:00Z")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("NO_COLOR", "1")
	t.Setenv("COLUMNS", "")
	dir := testrepo.Demo(t)
	tmp := t.TempDir()
	// In order: the writes at the end see the reads' repository.
	cases := []struct {
		name string
		args []string
		exit int
	}{
		{"status", []string{"status"}, exitOK},
		{"list", []string{"list"}, exitOK},
		{"list_all_kind", []string{"list", "--all", "--kind", "decision"}, exitOK},
		{"show", []string{"show", "ADR-5"}, exitOK},
		{"search", []string{"search", "rounding"}, exitOK},
		{"governing", []string{"governing", "src/billing/tax/vat.go", "--min-specificity", "2"}, exitOK},
		{"paths", []string{"paths", "ADR-5"}, exitOK},
		{"paths_suggest", []string{"paths", "suggest", "--all"}, exitOK},
		{"drift", []string{"drift"}, exitOK},
		{"changed", []string{"changed", "origin/main", "HEAD"}, exitOK},
		{"ci", []string{"ci"}, exitOK},
		{"brief", []string{"brief", "src/billing/tax/vat.go", "--budget-lines", "60"}, exitOK},
		{"related", []string{"related", "VAT is rounded per invoice", "--path", "src/billing/tax/vat.go"}, exitOK},
		{"inbox", []string{"inbox"}, exitOK},
		{"setup_dry_run", []string{"setup", "--dry-run"}, exitOK},
		{"bundle", []string{"bundle", "-o", filepath.Join(tmp, "b.json")}, exitOK},
		{"error_not_found", []string{"show", "no-such-entry"}, exitFailed},
		{"error_usage", []string{"changed", "HEAD"}, exitUsage},
		// writes, staged only
		{"new", []string{"new", "learning", "Webhooks retry for three days", "--path", "src/payments/**", "--body", "The PSP retries for 72 hours."}, exitOK},
		{"confirm", []string{"confirm", "ADR-5", "--because", "re-read for the golden test"}, exitOK},
		{"retire", []string{"retire", "2026-08-30-migrations-are-forward-only", "--reason", "golden test"}, exitOK},
		{"extend", []string{"extend", "2026-08-28-log-with-slog", "Use slog.Group for request attributes."}, exitOK},
		{"supersede", []string{"supersede", "ADR-4", "Keep sessions in Redis", "--body", "Sessions move to Redis."}, exitOK},
		{"paths_add", []string{"paths", "add", "ADR-2", "cmd/**"}, exitOK},
		{"capture", []string{"capture", "--kind", "learning", "--title", "PSP webhooks retry", "--path", "src/payments/**", "--body", "Three days."}, exitOK},
		{"challenge", []string{"challenge", "ADR-1", "--because", "golden test"}, exitOK},
		{"inbox_after", []string{"inbox", "--state", "all"}, exitOK},
		{"repair", []string{"repair"}, exitOK},
		{"accept", []string{"accept", "2026-11-16-move-sessions-to-redis"}, exitOK},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		args := append([]string{"-C", dir, "--json"}, c.args...)
		code := run(context.Background(), args, Streams(strings.NewReader(""), &stdout, &stderr))
		if code != c.exit {
			t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", c.name, code, c.exit, stdout.String(), stderr.String())
		}
		out := stdout.Bytes()
		if c.exit != exitOK {
			out = stderr.Bytes() // the error envelope
			if stdout.Len() > 0 {
				t.Errorf("%s: a failing --json command printed on stdout: %s", c.name, stdout.String())
			}
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%s: not one JSON document: %v\n%s", c.name, err, out)
		}
		got := strings.ReplaceAll(string(out), dir, "<root>")
		got = strings.ReplaceAll(got, tmp, "<tmp>")
		got = operationIDs.ReplaceAllString(got, "<operation_id>")
		testrepo.Golden(t, filepath.Join("testdata", "cli", c.name+".json"), []byte(got), *update, "go test ./cmd/kontext -run CLIGolden -update")
	}
}
