package native

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/kontext/kontext/internal/testrepo"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo is a temp git repository built commit by commit.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	testrepo.Env(t)
	r := &repo{t, t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string { return testrepo.Git(r.t, r.dir, args...) }

func (r *repo) write(files map[string]string) { testrepo.Write(r.t, r.dir, files) }

func (r *repo) appendFile(name, text string) {
	f, err := os.OpenFile(filepath.Join(r.dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(text)
}

// commit stages everything and commits at date; it returns the new sha.
func (r *repo) commit(date, msg string) string {
	r.git("add", "-A")
	cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", msg)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("commit: %v\n%s", err, out)
	}
	return r.git("rev-parse", "HEAD")
}

func confirmLine(id, kind, at, commit string, extra string) string {
	c := "null"
	if commit != "" {
		c = `"` + commit + `"`
	}
	return `{"at":"` + at + `","kind":"` + kind + `","id":"` + id + `","commit":` + c + `,"by":"Tess"` + extra + "}\n"
}

func (r *repo) api(op, input string) map[string]any {
	r.t.Helper()
	env := Request(context.Background(), r.dir, op, []byte(input))
	var m map[string]any
	if err := json.Unmarshal(env, &m); err != nil {
		r.t.Fatalf("%s: %s", op, env)
	}
	if m["ok"] != true {
		r.t.Fatalf("%s %s: %s", op, input, env)
	}
	return m["result"].(map[string]any)
}

func (r *repo) entry(id string) map[string]any {
	return r.api("entries.get", `{"id":"`+id+`"}`)
}

func (r *repo) driftIDs(input string) []string {
	res := r.api("entries.drift", input)
	var ids []string
	for _, e := range res["entries"].([]any) {
		ids = append(ids, e.(map[string]any)["id"].(string))
	}
	return ids
}

func conv(paths string) string {
	return "---\npaths: " + paths + "\n---\n# A convention\n\nBody.\n"
}

func sinceCommits(t *testing.T, e map[string]any, field string) int {
	t.Helper()
	s, ok := e[field].(map[string]any)
	if !ok {
		t.Fatalf("%s is %v", field, e[field])
	}
	return int(s["commits"].(float64))
}

func TestVerificationAndDrift(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		".ai/conventions/a.md": conv(`["src/a/**"]`),
		".ai/conventions/b.md": conv(`["src/b/**"]`),
		".ai/conventions/n.md": conv(`["src/a/**"]`), // never confirmed
		"src/a/x.go":           "package a\n",
		"src/b/y.go":           "package b\n",
	})
	c1 := r.commit("2026-01-01T10:00:00Z", "initial")
	r.appendFile(".ai/confirmations.log", confirmLine("a", "read", "2026-01-02T10:00:00Z", c1, ""))
	r.appendFile(".ai/confirmations.log", confirmLine("b", "agent", "2026-01-02T10:00:00Z", c1, ""))
	c2 := r.commit("2026-01-02T10:00:00Z", "confirm a and b")
	r.write(map[string]string{"src/a/x.go": "package a // changed\n"})
	c3 := r.commit("2026-01-03T10:00:00Z", "change a")
	_ = c3

	a := r.entry("a")
	if sinceCommits(t, a, "since") != 1 || a["since"].(map[string]any)["paths"].([]any)[0] != "src/a/x.go" {
		t.Fatalf("since of a: %v", a["since"])
	}
	v := a["verification"].(map[string]any)
	if v["kind"] != "read" || v["landed"] != c2 || v["verified"] != true || v["source"] != "ledger" {
		t.Fatalf("verification of a: %v", v)
	}
	if a["checked"] != "2026-01-02T10:00:00Z" {
		t.Fatalf("checked of a: %v", a["checked"])
	}
	b := r.entry("b")
	if sinceCommits(t, b, "since") != 0 || b["last_verified"] != nil || b["since_verified"] != nil {
		t.Fatalf("b (an agent stamp is a look, not verification): since %v last_verified %v", b["since"], b["last_verified"])
	}
	if n := r.entry("n"); n["since"] != nil || n["verification"] != nil {
		t.Fatalf("never-confirmed entry: since %v", n["since"])
	}
	if got := strings.Join(r.driftIDs(`{"base":"`+c1+`"}`), ","); got != "a,n" {
		t.Fatalf("drift from c1: %s", got)
	}
	d := r.api("entries.drift", `{"base":"`+c1+`"}`)
	if d["base_source"] != "explicit" || d["head"] != "working" || d["base"] != c1 {
		t.Fatalf("drift header: %v", d)
	}
	de := d["entries"].([]any)[0].(map[string]any)
	if de["path"] != ".ai/conventions/a.md" || de["changed"].([]any)[0] != "src/a/x.go" || len(de["commits"].([]any)) != 1 {
		t.Fatalf("drift entry: %v", de)
	}

	// A passed verify, then a failed one: failing, but the failed run is no look.
	r.appendFile(".ai/confirmations.log", confirmLine("a", "verify", "2026-01-04T10:00:00Z", c3, `,"passed":true,"exit_code":0`))
	r.appendFile(".ai/confirmations.log", confirmLine("a", "verify", "2026-01-05T10:00:00Z", c3, `,"passed":false,"exit_code":1`))
	c4 := r.commit("2026-01-05T10:00:00Z", "verify a twice")
	a = r.entry("a")
	if a["failing"] != true || sinceCommits(t, a, "since") != 0 {
		t.Fatalf("after verify lines: failing %v since %v", a["failing"], a["since"])
	}
	lv := a["last_verified"].(map[string]any)
	if lv["kind"] != "verify" || lv["passed"] != true || lv["landed"] != c4 {
		t.Fatalf("last_verified: %v", lv)
	}
	if v := a["verification"].(map[string]any); v["passed"] != false {
		t.Fatalf("verification shows the newest line (the failed verify): %v", v)
	}
	if a["checked"] != "2026-01-02T10:00:00Z" {
		t.Fatalf("a verify line is not a confirmation: checked %v", a["checked"])
	}
	if st := r.api("status", `{}`); len(st["failing"].([]any)) != 1 {
		t.Fatalf("status.failing %v", st["failing"])
	}

	// Uncommitted changes drift until an uncommitted look covers them.
	r.write(map[string]string{"src/b/y.go": "package b // dirty\n"})
	if got := strings.Join(r.driftIDs(`{"base":"`+c4+`"}`), ","); got != "b" {
		t.Fatalf("drift with an uncommitted change: %q", got)
	}
	r.appendFile(".ai/confirmations.log", confirmLine("b", "read", "2026-01-06T10:00:00Z", c4, ""))
	if got := r.driftIDs(`{"base":"` + c4 + `"}`); len(got) != 0 {
		t.Fatalf("an uncommitted look does not cover: %v", got)
	}
	b = r.entry("b")
	if v := b["verification"].(map[string]any); v["landed"] != nil {
		t.Fatalf("an uncommitted ledger line has landed %v", v["landed"])
	}
	// An explicit head reads committed content only.
	// a's passed verify landed after its change: only n drifted.
	if got := strings.Join(r.driftIDs(`{"base":"`+c1+`","head":"HEAD"}`), ","); got != "n" {
		t.Fatalf("drift c1..HEAD: %s", got)
	}
}

func TestSinceCountsABranchMergedAfterTheLook(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{".ai/conventions/a.md": conv(`["src/**"]`), "src/x.go": "x\n"})
	c1 := r.commit("2026-01-01T10:00:00Z", "initial")
	r.git("checkout", "-q", "-b", "feature")
	r.write(map[string]string{"src/feature.go": "f\n"})
	r.commit("2026-01-02T10:00:00Z", "feature work, older than the look")
	r.git("checkout", "-q", "main")
	r.appendFile(".ai/confirmations.log", confirmLine("a", "read", "2026-01-03T10:00:00Z", c1, ""))
	r.commit("2026-01-03T10:00:00Z", "confirm a")
	cmd := exec.Command("git", "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-01-04T10:00:00Z", "GIT_AUTHOR_DATE=2026-01-04T10:00:00Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("merge: %v %s", err, out)
	}
	a := r.entry("a")
	if sinceCommits(t, a, "since") != 1 || a["since"].(map[string]any)["paths"].([]any)[0] != "src/feature.go" {
		t.Fatalf("since after a merged branch: %v", a["since"])
	}
}

func TestFrontmatterCheckedLook(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{".ai/conventions/a.md": "---\npaths: [\"src/**\"]\nchecked: 2026-01-01\n---\n# A\n", "src/x.go": "x\n"})
	c1 := r.commit("2026-01-01T10:00:00Z", "initial")
	r.write(map[string]string{"src/x.go": "y\n"})
	r.commit("2026-01-02T10:00:00Z", "change")
	a := r.entry("a")
	v := a["verification"].(map[string]any)
	if v["kind"] != "cache" || v["source"] != "frontmatter" || v["verified"] != false || v["landed"] != c1 {
		t.Fatalf("checked-only verification: %v", v)
	}
	if sinceCommits(t, a, "since") != 1 || a["last_verified"] != nil {
		t.Fatalf("since from the checked look: %v", a["since"])
	}
}

func TestDriftFallbackNone(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{".ai/conventions/a.md": conv(`["src/**"]`), "src/x.go": "x\n"})
	r.commit("2026-01-01T10:00:00Z", "initial")
	d := r.api("entries.drift", `{}`)
	if d["base_source"] != "fallback-none" || d["warning"] == nil || len(d["entries"].([]any)) != 0 {
		t.Fatalf("drift without a remote: %v", d)
	}
	env := Request(context.Background(), r.dir, "entries.drift", []byte(`{"base":"--all"}`))
	if !strings.Contains(string(env), `"code":"invalid_input"`) {
		t.Fatalf("a revision starting with -: %s", env)
	}
	env = Request(context.Background(), r.dir, "entries.drift", []byte(`{"base":"no-such-branch"}`))
	if !strings.Contains(string(env), `"code":"invalid_input"`) {
		t.Fatalf("an unknown revision: %s", env)
	}
}

func TestNoCommits(t *testing.T) {
	r := newRepo(t)
	env := Request(context.Background(), r.dir, "entries.drift", nil)
	if !strings.Contains(string(env), `"code":"no_commits"`) {
		t.Fatalf("drift without commits: %s", env)
	}
}

func TestChanged(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		".ai/conventions/keep.md":    "---\npaths: [\"a/**\"]\n---\n# Keep\n",
		".ai/conventions/checked.md": "---\npaths: [\"a/**\"]\n---\n# Checked\n",
		".ai/conventions/edit.md":    "---\npaths: [\"a/**\"]\n---\n# Edit\n\nOld.\n",
		".ai/conventions/gone.md":    "---\npaths: [\"a/**\"]\n---\n# Gone\n",
		".ai/decisions/old.md":       "---\nstatus: accepted\n---\n# Old\n",
		".ai/learnings/moved.md":     "---\npaths: [\"a/**\"]\n---\n# Moved\n",
		// Base has a configuration of its own: each side is read with
		// its own (without one, base would be read with head's).
		".kontext.toml": "version = 1\n",
	})
	base := r.commit("2026-01-01T10:00:00Z", "base")
	os.Remove(filepath.Join(r.dir, ".ai/conventions/gone.md"))
	os.MkdirAll(filepath.Join(r.dir, "docs/learnings"), 0o755)
	os.Rename(filepath.Join(r.dir, ".ai/learnings/moved.md"), filepath.Join(r.dir, "docs/learnings/moved.md"))
	r.write(map[string]string{
		".kontext.toml":              "[kinds.learning]\ndir = \"docs/learnings\"\n",
		".ai/conventions/checked.md": "---\npaths: [\"a/**\"]\nchecked: 2026-02-01\n---\n# Checked\n",
		".ai/conventions/edit.md":    "---\npaths: [\"a/**\"]\n---\n# Edit\n\nNew.\n",
		".ai/decisions/old.md":       "---\nstatus: superseded\nsuperseded_by: [new]\n---\n# Old\n",
		".ai/decisions/new.md":       "---\nstatus: accepted\nsupersedes: [old]\n---\n# New\n",
	})
	head := r.commit("2026-01-02T10:00:00Z", "head")
	res := r.api("entries.changed", `{"base":"`+base+`","head":"HEAD"}`)
	if res["base"] != base || res["head"] != head {
		t.Fatalf("resolved shas: %v", res)
	}
	var got []string
	for _, c := range res["changes"].([]any) {
		m := c.(map[string]any)
		s := m["id"].(string) + ":" + m["change"].(string)
		if m["removed"] == true {
			s += ":removed"
		}
		got = append(got, s)
	}
	want := "edit:revised,gone:deprecated:removed,new:added,old:superseded"
	if strings.Join(got, ",") != want {
		t.Fatalf("changes %v, want %s", got, want)
	}
	if w := res["warnings"].([]any); len(w) != 0 {
		t.Fatalf("both sides have a configuration, yet warnings %v", w)
	}
}

// adr is a Nygard record numbered n.
func adr(n int, title string) string {
	return fmt.Sprintf("# %d. %s\n\nDate: 2026-01-0%d\n\n## Status\n\nAccepted\n\n## Context\n\nc\n\n## Decision\n\n%s.\n\n## Consequences\n\ne\n", n, title, n, title)
}

const adrConfig = "version = 1\n\n[[kinds.decision.include]]\ndir = \"docs/adr\"\nstyle = \"adr\"\n"

// changedIDs returns "id:change" of an entries.changed result, and its warnings.
func changedIDs(res map[string]any) (ids string, warnings []string) {
	var got []string
	for _, c := range res["changes"].([]any) {
		m := c.(map[string]any)
		got = append(got, m["id"].(string)+":"+m["change"].(string))
	}
	for _, w := range res["warnings"].([]any) {
		warnings = append(warnings, w.(string))
	}
	return strings.Join(got, ","), warnings
}

// TestChangedBeforeAdoption: a revision without a configuration is read
// with head's, else the working tree's (spec 04), and the result names
// each revision read so. The history: two ADRs (no configuration), a
// third, the adoption commit (the configuration), a fourth.
func TestChangedBeforeAdoption(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{"docs/adr/0001-record.md": adr(1, "Record decisions"), "docs/adr/0002-use-go.md": adr(2, "Use Go"), "src/a.go": "package a\n"})
	base := r.commit("2026-01-01T10:00:00Z", "base")
	r.write(map[string]string{"docs/adr/0003-use-sqlite.md": adr(3, "Use sqlite")})
	third := r.commit("2026-01-02T10:00:00Z", "third")
	r.write(map[string]string{".kontext.toml": adrConfig})
	adopt := r.commit("2026-01-03T10:00:00Z", "adopt")
	r.write(map[string]string{"docs/adr/0004-use-chi.md": adr(4, "Use chi")})
	r.commit("2026-01-04T10:00:00Z", "fourth")

	for _, tc := range []struct {
		name, base, head, want string
		warned                 []string // the revisions warned about, and whose configuration
	}{
		// Across the adoption commit: base is read with head's configuration.
		{"across adoption", base, "HEAD", "0003-use-sqlite:added,0004-use-chi:added", []string{base[:12] + " has no configuration committed: its entries were read with the configuration of head"}},
		// Neither side has one: both are read with the working tree's.
		{"before adoption", base, third, "0003-use-sqlite:added", []string{base[:12] + " has no configuration committed: its entries were read with the configuration of the working tree (.kontext.toml)",
			third[:12] + " has no configuration committed: its entries were read with the configuration of the working tree (.kontext.toml)"}},
		// Both have their own: no warning.
		{"after adoption", adopt, "HEAD", "0004-use-chi:added", nil},
	} {
		res := r.api("entries.changed", `{"base":"`+tc.base+`","head":"`+tc.head+`"}`)
		ids, warnings := changedIDs(res)
		if ids != tc.want {
			t.Errorf("%s: changes %s, want %s", tc.name, ids, tc.want)
		}
		if len(warnings) != len(tc.warned) {
			t.Fatalf("%s: warnings %q, want %d", tc.name, warnings, len(tc.warned))
		}
		for i, w := range tc.warned {
			if !strings.HasPrefix(warnings[i], w) {
				t.Errorf("%s: warning %q, want it to start %q", tc.name, warnings[i], w)
			}
		}
	}

	// Drift at a head without a configuration reads it with the working
	// tree's and says so; export stays with the revision's own (the
	// defaults: no ADR log).
	res := r.api("entries.drift", `{"base":"`+base+`","head":"`+third+`"}`)
	if w := res["warnings"].([]any); len(w) != 1 || !strings.HasPrefix(w[0].(string), third[:12]+" has no configuration committed") {
		t.Fatalf("drift warnings %v", w)
	}
	if w := r.api("entries.drift", `{"base":"`+base+`"}`)["warnings"].([]any); len(w) != 0 {
		t.Fatalf("drift of the working tree warned %v", w)
	}
	r.git("branch", "before", third)
	res = r.api("entries.export", `{"revision":"`+third+`","review_ref":"refs/heads/before"}`)
	if n := len(res["entries"].([]any)); n != 0 || res["config_source"].(map[string]any)["kind"] != "defaults" {
		t.Fatalf("export of a revision without a configuration: %d entries, %v", n, res["config_source"])
	}
	if _, ok := res["warnings"]; ok {
		t.Fatal("entries.export gained warnings")
	}

	// No configuration anywhere: the defaults, as before, and no warning.
	os.Remove(filepath.Join(r.dir, ".kontext.toml"))
	res = r.api("entries.changed", `{"base":"`+base+`","head":"`+third+`"}`)
	if ids, warnings := changedIDs(res); ids != "" || len(warnings) != 0 {
		t.Fatalf("without any configuration: changes %q, warnings %q", ids, warnings)
	}
}

func TestExport(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		".ai/decisions/yes.md":     "---\nstatus: accepted\npaths: [\"src/**\"]\n---\n# Yes\n",
		".ai/decisions/maybe.md":   "---\nstatus: proposed\n---\n# Maybe\n",
		".ai/conventions/mine.md":  "---\nvisibility: private\n---\n# Mine\n",
		".ai/conventions/no.md":    "---\nstatus: deprecated\n---\n# No\n",
		".ai/conventions/other.md": "---\npaths: [\"lib/**\"]\n---\n# Other\n",
	})
	sha := r.commit("2026-01-01T10:00:00Z", "knowledge")
	res := r.api("entries.export", `{"revision":"`+sha+`","review_ref":"refs/heads/main"}`)
	var ids []string
	for _, e := range res["entries"].([]any) {
		m := e.(map[string]any)
		ids = append(ids, m["id"].(string))
		if m["id"] == "yes" && (m["author"] != "Test Author" || m["blob"] != r.git("rev-parse", sha+":.ai/decisions/yes.md")) {
			t.Fatalf("exported entry %v", m)
		}
	}
	if strings.Join(ids, ",") != "other,yes" {
		t.Fatalf("exported %v", ids)
	}
	if cs := res["config_source"].(map[string]any); cs["kind"] != "defaults" || cs["storage"] != ".ai" {
		t.Fatalf("config_source %v", cs)
	}
	res = r.api("entries.export", `{"revision":"`+sha+`","review_ref":"refs/heads/main","paths":["src/a.go"]}`)
	if len(res["entries"].([]any)) != 1 {
		t.Fatalf("paths filter: %v", res["entries"])
	}
	// A working-tree edit never enters an export.
	r.write(map[string]string{".ai/decisions/yes.md": "---\nstatus: accepted\n---\n# Edited\n"})
	res = r.api("entries.export", `{"revision":"`+sha+`","review_ref":"refs/heads/main"}`)
	if !strings.Contains(res["entries"].([]any)[1].(map[string]any)["markdown"].(string), "# Yes") {
		t.Fatal("export read the working tree")
	}
	r.commit("2026-01-02T10:00:00Z", "move on")
	for input, code := range map[string]string{
		`{"revision":"` + sha + `","review_ref":"refs/heads/main"}`:      "stale_entry",
		`{"revision":"` + sha[:12] + `","review_ref":"refs/heads/main"}`: "invalid_input",
		`{"revision":"` + sha + `","review_ref":"main"}`:                 "invalid_input",
	} {
		env := Request(context.Background(), r.dir, "entries.export", []byte(input))
		if !strings.Contains(string(env), `"code":"`+code+`"`) {
			t.Errorf("%s: %s", input, env)
		}
	}
}

func TestShallowCloneIsALowerBound(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{".ai/conventions/a.md": conv(`["src/**"]`), "src/x.go": "x\n"})
	c1 := r.commit("2026-01-01T10:00:00Z", "initial")
	r.appendFile(".ai/confirmations.log", confirmLine("a", "read", "2026-01-02T10:00:00Z", c1, ""))
	r.commit("2026-01-02T10:00:00Z", "confirm")
	for i, d := range []string{"2026-01-03T10:00:00Z", "2026-01-04T10:00:00Z", "2026-01-05T10:00:00Z"} {
		r.write(map[string]string{"src/x.go": strings.Repeat("y", i+2) + "\n"})
		r.commit(d, "change")
	}
	clone := filepath.Join(t.TempDir(), "clone")
	testrepo.Git(t, ".", "clone", "-q", "--depth", "2", "file://"+r.dir, clone)
	c := &repo{t, clone}
	a := c.entry("a")
	s := a["since"].(map[string]any)
	// Three commits changed src/ after the look; the clone sees history
	// only from its boundary on, so the count is a flagged lower bound.
	if n := int(s["commits"].(float64)); s["lower_bound"] != true || n < 1 || n > 3 {
		t.Fatalf("since in a shallow clone: %v", s)
	}
}

// TestDriftBroad: broad entries (a positive ** or **/* pattern, or an
// always-on mapping, and no negative pattern) are left out of drift and
// counted in broad_omitted; broad: true includes them, marked broad.
func TestDriftBroad(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		".kontext.toml": "version = 1\nstorage = \".ai\"\n\n[[kinds.convention.include]]\ndir = \".cursor/rules\"\nstyle = \"cursor\"\n\n" +
			"[[kinds.convention.include]]\ndir = \".github\"\nstyle = \"copilot\"\n\n[[kinds.convention.include]]\ndir = \".\"\nstyle = \"agents\"\n",
		".cursor/rules/always.mdc":        "---\ndescription: Always on\nalwaysApply: true\n---\nBe kind.\n",
		".cursor/rules/go.mdc":            "---\ndescription: Go files\nglobs: src/**/*.go\n---\nWrap errors.\n",
		".github/copilot-instructions.md": "# Team\n\nTests first.\n",
		"AGENTS.md":                       "# Root rules\n\nRun make.\n",
		"src/AGENTS.md":                   "# Source rules\n\nKeep it small.\n",
		".ai/conventions/all.md":          conv(`["**/*"]`),
		".ai/conventions/most.md":         conv(`["**", "!vendor/**"]`),
		"src/a.go":                        "package a\n",
	})
	base := r.commit("2026-01-01T10:00:00Z", "initial")
	r.write(map[string]string{"src/a.go": "package a // changed\n"})
	r.commit("2026-01-02T10:00:00Z", "change a")

	res := r.api("entries.drift", `{"base":"`+base+`","head":"HEAD"}`)
	var ids []string
	for _, e := range res["entries"].([]any) {
		en := e.(map[string]any)
		ids = append(ids, en["id"].(string))
		if _, ok := en["broad"]; ok {
			t.Errorf("%s carries broad without broad: true: %v", en["id"], en["broad"])
		}
	}
	// Narrow: the Go rule, the nested AGENTS.md, and ** with a negation.
	if got := strings.Join(ids, ","); got != ".cursor/rules/go,most,src/AGENTS" {
		t.Fatalf("drift without broad: %s", got)
	}
	// Broad: alwaysApply, the repository-wide Copilot file, the root
	// AGENTS.md and **/*.
	if res["broad_omitted"] != float64(4) {
		t.Fatalf("broad_omitted = %v, want 4", res["broad_omitted"])
	}

	res = r.api("entries.drift", `{"base":"`+base+`","head":"HEAD","broad":true}`)
	broad := map[string]bool{}
	for _, e := range res["entries"].([]any) {
		en := e.(map[string]any)
		broad[en["id"].(string)] = en["broad"] == true
	}
	if len(broad) != 7 || res["broad_omitted"] != float64(0) {
		t.Fatalf("drift with broad: %v, broad_omitted %v", broad, res["broad_omitted"])
	}
	for id, want := range map[string]bool{".cursor/rules/always": true, ".github/copilot-instructions": true, "AGENTS": true, "all": true,
		".cursor/rules/go": false, "most": false, "src/AGENTS": false} {
		if broad[id] != want {
			t.Errorf("%s: broad = %v, want %v (%v)", id, broad[id], want, broad)
		}
	}
}
