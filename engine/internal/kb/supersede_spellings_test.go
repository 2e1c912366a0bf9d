package kb

import (
	"strings"
	"testing"
)

// Each supersession spelling of the older record resolves both ways: the
// older record is superseded by the newer one, and the newer one
// supersedes it. An unresolvable target is an unresolved_link warning.
func TestSupersedeSpellingsResolveBothWays(t *testing.T) {
	old := []string{
		"⌛️ Superseded [0020](0020-new.md)",
		"⌛ Superseded [0020](0020-new.md)",
		"Superseded [0020](0020-new.md)",
		"Superseded by [ADR-0020](0020-new.md)",
		"Superseded by 0020",
		"Superseded: 20",
		"Superceded 20",
	}
	for _, st := range old {
		t.Run(st, func(t *testing.T) {
			s := read(t, map[string]string{
				".kontext.toml":        adrConfig,
				"docs/adr/0019-old.md": "# 19. Old\n\n## Status\n\n" + st + "\n",
				"docs/adr/0020-new.md": "# 20. New\n\n## Status\n\nAccepted\n",
			})
			checkEdge(t, s, "0019-old", "0020-new")
		})
	}
	newer := []string{
		"Supersedes [0019](0019-old.md)",
		"Supersedes 19",
		"Supercedes [ADR-0019](0019-old.md)",
	}
	for _, st := range newer {
		t.Run(st, func(t *testing.T) {
			s := read(t, map[string]string{
				".kontext.toml":        adrConfig,
				"docs/adr/0019-old.md": "# 19. Old\n\n## Status\n\nAccepted\n",
				"docs/adr/0020-new.md": "# 20. New\n\n## Status\n\nAccepted\n\n" + st + "\n",
			})
			checkEdge(t, s, "0019-old", "0020-new")
		})
	}
	for _, st := range []string{"⌛️ Superseded [0099](0099-missing.md)", "Superseded: 99", "Superseded 0099-missing.md"} {
		t.Run("unresolved "+st, func(t *testing.T) {
			s := read(t, map[string]string{
				".kontext.toml":        adrConfig,
				"docs/adr/0019-old.md": "# 19. Old\n\n## Status\n\n" + st + "\n",
				"docs/adr/0020-new.md": "# 20. New\n\n## Status\n\nAccepted\n",
			})
			want := "warning unresolved_link docs/adr/0019-old.md"
			if got := diagCodes(s); strings.Join(got, "|") != want {
				t.Errorf("diagnostics %v, want %s", got, want)
			}
			e, _ := s.ByID("0019-old")
			if e.Status != "superseded" || len(e.SupersededBy) != 1 {
				t.Errorf("0019: %s %v (kept as written)", e.Status, e.SupersededBy)
			}
		})
	}
}

func checkEdge(t *testing.T, s *Snapshot, oldID, newID string) {
	t.Helper()
	o, _ := s.ByID(oldID)
	n, _ := s.ByID(newID)
	if o.Status != "superseded" || strings.Join(o.SupersededBy, ",") != newID {
		t.Errorf("%s: status %s superseded_by %v", oldID, o.Status, o.SupersededBy)
	}
	if strings.Join(n.Supersedes, ",") != oldID {
		t.Errorf("%s: supersedes %v", newID, n.Supersedes)
	}
	for _, l := range append(o.Links, n.Links...) {
		t.Errorf("supersession repeated as a typed link: %+v", l)
	}
	for _, d := range s.Diagnostics {
		if d.Severity != "info" {
			t.Errorf("diagnostic %+v", d)
		}
	}
}
