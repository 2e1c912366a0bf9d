package kb

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/apierr"
)

func read(t *testing.T, files map[string]string) *Snapshot {
	t.Helper()
	fs := memfs.New()
	for n, txt := range files {
		if err := util.WriteFile(fs, n, []byte(txt), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewReader(fs).Read("")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const adrConfig = "[[kinds.decision.include]]\ndir = \"docs/adr\"\nstyle = \"adr\"\n"

func TestLookup(t *testing.T) {
	s := read(t, map[string]string{
		".kontext.toml":                        adrConfig,
		"docs/adr/0007-use-postgres.md":        "# 7. Use PostgreSQL\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n",
		"docs/adr/0012-use-queues.md":          "# 12. Use queues\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n",
		".ai/decisions/2026-01-10-use-cron.md": "---\nstatus: accepted\n---\n# Use cron\n",
		".ai/decisions/2026-01-11-use-make.md": "---\nstatus: accepted\n---\n# Use make\n",
	})
	for ref, want := range map[string]string{
		"0007-use-postgres": "0007-use-postgres", "7": "0007-use-postgres", "0007": "0007-use-postgres",
		"ADR-7": "0007-use-postgres", "adr-12": "0012-use-queues", "2026-01-10": "2026-01-10-use-cron",
		"docs/adr/0012-use-queues.md": "0012-use-queues", "./.ai/decisions/2026-01-11-use-make.md": "2026-01-11-use-make",
	} {
		e, err := s.Lookup(ref)
		if err != nil || e.ID != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", ref, e, err, want)
		}
	}
	_, err := s.Lookup("2026-01")
	if apierr.CodeOf(err) != apierr.InvalidInput || !strings.Contains(err.Error(), "2026-01-10-use-cron, 2026-01-11-use-make") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if _, err := s.Lookup("nope"); apierr.CodeOf(err) != apierr.NotFound {
		t.Errorf("unknown id: %v", err)
	}
}

func TestSupersedeInference(t *testing.T) {
	s := read(t, map[string]string{
		".kontext.toml":                 adrConfig,
		"docs/adr/0003-use-sqlite.md":   "# 3. Use SQLite\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n",
		"docs/adr/0005-use-postgres.md": "# 5. Use PostgreSQL\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\nSupersedes [3. Use SQLite](0003-use-sqlite.md)\n",
		"docs/adr/0006-use-redis.md":    "# 6. Use Redis\n\nDate: 2024-03-01\n\n## Status\n\nSuperseded by [7. Use Valkey](0007-use-valkey.md)\n",
		"docs/adr/0007-use-valkey.md":   "# 7. Use Valkey\n\nDate: 2024-04-01\n\n## Status\n\nAccepted\n",
	})
	old, _ := s.ByID("0003-use-sqlite")
	if old.Status != "superseded" || old.StatusRaw != "Accepted" || strings.Join(old.SupersededBy, ",") != "0005-use-postgres" {
		t.Fatalf("one-sided supersedes not inferred: %+v", old)
	}
	newer, _ := s.ByID("0007-use-valkey")
	if strings.Join(newer.Supersedes, ",") != "0006-use-redis" {
		t.Fatalf("one-sided superseded_by not inferred: %+v", newer)
	}
	n := 0
	for _, d := range s.Diagnostics {
		if d.Code == "inferred_link" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("want 2 inferred_link diagnostics, got %+v", s.Diagnostics)
	}
}

func TestCacheAndDuplicates(t *testing.T) {
	fs := memfs.New()
	util.WriteFile(fs, ".ai/decisions/a.md", []byte("---\nstatus: accepted\npaths: [\"src/**\"]\n---\n# A\n"), 0o644)
	util.WriteFile(fs, ".ai/learnings/a.md", []byte("# Same stem\n"), 0o644)
	r := NewReader(fs)
	s1, err := r.Read("")
	if err != nil {
		t.Fatal(err)
	}
	if len(s1.Entries()) != 1 || len(s1.Diagnostics) != 1 || s1.Diagnostics[0].Code != "duplicate_id" || s1.Diagnostics[0].File != ".ai/learnings/a.md" {
		t.Fatalf("duplicate: %+v %+v", s1.Entries(), s1.Diagnostics)
	}
	s2, _ := r.Read("")
	if s2 != s1 {
		t.Fatal("an unchanged read built a new snapshot")
	}
	if len(s1.Governing().Lookup([]string{"src/x.go"})) != 1 {
		t.Fatal("governing index")
	}
	// A second read after an edit of the cached entry does not see stale
	// supersede links from the first read.
	util.WriteFile(fs, ".ai/decisions/b.md", []byte("---\nstatus: accepted\nsupersedes: [a]\n---\n# B\n"), 0o644)
	s3, _ := r.Read("")
	s4, _ := r.Read("head")
	a3, _ := s3.ByID("a")
	a4, _ := s4.ByID("a")
	if a3.Status != "superseded" || a4.Status != "superseded" || len(a4.SupersededBy) != 1 {
		t.Fatalf("inference across reads: %+v / %+v", a3, a4)
	}
	if s3.ID == s4.ID || s3.ID == s1.ID {
		t.Fatal("snapshot ids do not change with content and head")
	}
}

func TestLedgerDiagnostics(t *testing.T) {
	s := read(t, map[string]string{
		".ai/confirmations.log": "{\"at\":\"2026-01-01T00:00:00Z\",\"kind\":\"read\",\"id\":\"a\",\"by\":\"x\"}\n{broken\n",
	})
	if len(s.LedgerLines) != 1 || len(s.Diagnostics) != 1 || s.Diagnostics[0].Code != "bad_ledger_line" || s.Diagnostics[0].Line != 2 {
		t.Fatalf("ledger: %+v %+v", s.LedgerLines, s.Diagnostics)
	}
}

// TestWarmCacheSeesEveryChange: a long-lived reader (no store: its
// parses kept in memory) answers after each change exactly as a fresh
// reader does — a file edited, deleted, added, renamed, one deleted and
// another added (same count), and a file that two sources list. On disk:
// memfs gives no modification times, so nothing there is ever cached.
func TestWarmCacheSeesEveryChange(t *testing.T) {
	fs := osfs.New(t.TempDir(), osfs.WithBoundOS())
	write := func(name, text string) {
		t.Helper()
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The decision source is one file inside the learnings' directory:
	// both list it, and it is read once, as the first source's.
	write(".kontext.toml", "[[kinds.decision.include]]\ndir = \"notes/s.md\"\n[[kinds.learning.include]]\ndir = \"notes\"\n")
	for i := 0; i < 6; i++ {
		write(fmt.Sprintf("notes/l%d.md", i), fmt.Sprintf("---\npaths: [\"src/m%d/**\"]\n---\n# L%d\n", i, i))
	}
	write("notes/s.md", "---\nstatus: accepted\n---\n# Shared\n")
	long := NewReader(fs)
	check := func(step string) {
		t.Helper()
		for k := 0; k < 2; k++ { // the change, then the unchanged read after it
			got, err := long.Read("")
			if err != nil {
				t.Fatal(err)
			}
			want, err := NewReader(fs).Read("")
			if err != nil {
				t.Fatal(err)
			}
			if g, w := answer(t, got), answer(t, want); g != w {
				t.Fatalf("%s (read %d): the long-lived reader answers\n%s\nnot\n%s", step, k, g, w)
			}
		}
	}
	check("first read")
	if s, _ := long.Read(""); s.Len() != 7 || len(s.Diagnostics) != 0 {
		t.Fatalf("entries: %d, want 7 (the shared file once)", s.Len())
	}
	write("notes/l1.md", "---\npaths: [\"src/m1/**\", \"src/m9/**\"]\n---\n# L1 edited\n")
	check("edited")
	if err := fs.Remove("notes/l2.md"); err != nil {
		t.Fatal(err)
	}
	check("deleted")
	write("notes/l7.md", "# L7\n")
	check("added")
	if err := fs.Rename("notes/l3.md", "notes/l3b.md"); err != nil {
		t.Fatal(err)
	}
	check("renamed")
	if err := fs.Remove("notes/l4.md"); err != nil {
		t.Fatal(err)
	}
	write("notes/l8.md", "# L8\n")
	check("one deleted, one added")
	write("notes/s.md", "---\nstatus: superseded\n---\n# Shared, superseded\n")
	check("shared file edited")
	if s, _ := long.Read(""); s.Len() != 7 {
		t.Fatalf("entries: %d, want 7", s.Len())
	}
}

// jobsOf is a listing of paths (nothing else set).
func jobsOf(paths ...string) []job {
	var out []job
	for _, p := range paths {
		out = append(out, job{listed: listed{path: p}})
	}
	return out
}

// TestJoinLists: the listings one after another, each path once, the
// first listing keeping it — also when two overlap or one is not in order.
func TestJoinLists(t *testing.T) {
	l := jobsOf
	for _, c := range []struct {
		lists [][]job
		want  string
	}{
		{[][]job{l("b/1", "b/2"), l("a/1"), nil, l("c/1")}, "b/1 b/2 a/1 c/1"},
		{[][]job{l("a/1", "a/3"), l("a/2", "a/3", "a/4")}, "a/1 a/3 a/2 a/4"},
		{[][]job{l("a/1"), l("a/1")}, "a/1"},
		{[][]job{l("a/2", "a/1", "a/2"), l("b/1")}, "a/2 a/1 b/1"},
	} {
		var got []string
		for _, j := range joinLists(c.lists, 8) {
			got = append(got, j.path)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("joinLists = %s, want %s", g, c.want)
		}
	}
}
