package kb

import (
	"testing"
)

func TestOverlay(t *testing.T) {
	files := map[string]string{
		".kontext.toml":                        adrConfig,
		"docs/adr/0007-use-postgres.md":        "# 7. Use PostgreSQL\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n",
		"docs/adr/0008-use-queues.md":          "# 8. Use queues\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n",
		".ai/decisions/2026-01-10-use-cron.md": "---\nstatus: accepted\npaths: [\"ops/**\"]\n---\n# Use cron\n",
	}
	before := read(t, files)
	files[".ai/paths.toml"] = "version = 1\n\n[paths]\n\"0007-use-postgres\" = [\"src/db/**\"]\n\"docs/adr/0008-use-queues.md\" = [\"src/queue/**\", \"src/db/**\"]\n\"2026-01-10-use-cron\" = [\"ops/**\", \"cron/**\"]\n\"0099-gone\" = [\"x/**\"]\n"
	s := read(t, files)
	if s.ID == before.ID {
		t.Error("the overlay does not change the snapshot id")
	}
	for id, want := range map[string]struct{ paths, source string }{
		"0007-use-postgres":   {"src/db/**", PathsFromOverlay},
		"0008-use-queues":     {"src/queue/**,src/db/**", PathsFromOverlay},
		"2026-01-10-use-cron": {"ops/**,cron/**", PathsFromBoth},
	} {
		e, _ := s.ByID(id)
		if !eq(e.Paths, splitComma(want.paths)...) || e.PathsSource != want.source {
			t.Errorf("%s: paths %q source %q, want %s %s", id, e.Paths, e.PathsSource, want.paths, want.source)
		}
	}
	if e, _ := s.ByID("2026-01-10-use-cron"); !eq(e.OwnPaths(), "ops/**") {
		t.Errorf("own paths %q", e.OwnPaths())
	}
	var unknown bool
	for _, d := range s.Diagnostics {
		unknown = unknown || (d.Code == CodeOverlayUnknownEntry && d.File == ".ai/paths.toml" && d.Line == 7 && d.Severity == "warning")
	}
	if !unknown {
		t.Errorf("no overlay_unknown_entry warning: %+v", s.Diagnostics)
	}
	got := s.Governing().Lookup([]string{"src/db/schema.sql"})
	if len(got) != 2 {
		t.Errorf("governing src/db/schema.sql: %d entries, want 2", len(got))
	}

	files[".ai/paths.toml"] = "[paths]\n\"0007-use-postgres\" = \"src/db/**\"\n"
	s = read(t, files)
	var bad bool
	for _, d := range s.Diagnostics {
		bad = bad || (d.Code == CodeBadOverlay && d.Severity == "error")
	}
	if e, _ := s.ByID("0007-use-postgres"); !bad || len(e.Paths) != 0 || e.PathsSource != PathsFromFile {
		t.Errorf("a malformed overlay: diags %+v", s.Diagnostics)
	}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
