package report_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/internal/report"
	"github.com/kontext/kontext/internal/testrepo"
	"github.com/kontext/kontext/native"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/report")

const regenerate = "go test ./internal/report -update"

// open opens a native engine on dir (the CLI's options).
func open(t *testing.T, dir string) *engine.Engine {
	t.Helper()
	e, err := native.OpenWith(dir, native.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// formats renders every format of r, as the CLI prints them.
func formats(t *testing.T, r *report.Report) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var gh strings.Builder
	if err := report.WriteGitHub(&gh, r, true); err != nil {
		t.Fatal(err)
	}
	out["github.txt"] = []byte(gh.String())
	var summary strings.Builder
	if err := report.WriteStepSummary(&summary, r); err != nil {
		t.Fatal(err)
	}
	out["summary.md"] = []byte(summary.String())
	var text strings.Builder
	report.WriteText(&text, r)
	out["text.txt"] = []byte(text.String())
	sarif, err := report.SARIF(r, "test")
	if err != nil {
		t.Fatal(err)
	}
	out["sarif.json"] = append(sarif, '\n')
	cc, err := report.CodeClimate(r)
	if err != nil {
		t.Fatal(err)
	}
	out["codeclimate.json"] = append(cc, '\n')
	res, err := json.MarshalIndent(r.Results, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out["results.json"] = append(res, '\n')
	out["comment.md"] = []byte(report.Markdown(r, report.LinksFor("https://github.com", "acme/app", "", r.HeadCommit)))
	return out
}

func golden(t *testing.T, name string, files map[string][]byte) {
	t.Helper()
	for f, data := range files {
		testrepo.Golden(t, filepath.Join("testdata", "report", name, f), data, *update, regenerate)
	}
}

// TestDemo: every format on the demo repository, with origin/main as the
// base (scoped, with notices) and without a base (everything).
func TestDemo(t *testing.T) {
	dir := testrepo.Demo(t)
	ctx := context.Background()
	for name, o := range map[string]report.Options{
		"demo-base":    {Base: "origin/main", Notice: true, PerFile: true},
		"demo-no-base": {PerFile: true},
	} {
		r, err := report.Build(ctx, open(t, dir), o)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name, formats(t, r))
	}
}

// scenario builds a repository whose change (base..HEAD) has a drifted
// decision, a failing verify, a duplicate ADR number, a superseded
// decision and a private entry that governs every changed file.
func scenario(t *testing.T) (dir, base string) {
	t.Helper()
	testrepo.Env(t)
	dir = t.TempDir()
	git := func(args ...string) string { return testrepo.Git(t, dir, args...) }
	git("init", "-q", "-b", "main")
	testrepo.Write(t, dir, map[string]string{
		".kontext.toml": `version = 1
storage = ".ai"
[kinds.decision]
dir = ".ai/decisions"
style = "frontmatter"
[[kinds.decision.include]]
dir = "docs/adr"
style = "adr"
[kinds.convention]
dir = ".ai/conventions"
style = "frontmatter"
`,
		".ai/decisions/2026-01-01-jobs-run-from-cron.md":             "---\nstatus: accepted\ndate: 2026-01-01\nsummary: Background jobs are started by cron, never by the API process.\npaths: [\"src/jobs/**\"]\n---\n# Jobs run from cron | not the API\n\nBody.\n",
		".ai/conventions/2026-01-02-handlers-return-problem-json.md": "---\nstatus: active\ndate: 2026-01-02\nsummary: Handlers answer errors as application/problem+json.\npaths: [\"src/api/**\"]\nverify: \"false\"\n---\n# Handlers return problem JSON\n\nBody.\n",
		".ai/decisions/2026-01-03-secret-acquisition-plan.md":        "---\nstatus: accepted\ndate: 2026-01-03\nvisibility: private\nsummary: SECRET-PLAN must never be published.\npaths: [\"src/**\", \"db/**\"]\n---\n# SECRET-PLAN acquisition\n\nBody.\n",
		"docs/adr/0001-use-sqlite.md":                                "# 1. Use SQLite\n\nDate: 2026-01-04\n\n<!-- kontext\npaths: [\"db/**\"]\n-->\n\n## Status\n\nAccepted\n\n## Context\n\nOne writer.\n\n## Decision\n\nSQLite.\n",
		"src/jobs/run.go":                                            "package jobs\n",
		"src/api/server.go":                                          "package api\n",
		"db/schema.sql":                                              "create table t (id int);\n",
	})
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	head := git("rev-parse", "HEAD")
	ledger := fmt.Sprintf(`{"at":"2026-01-05T10:00:00Z","kind":"read","id":"2026-01-01-jobs-run-from-cron","commit":%q,"by":"Reviewer"}
{"at":"2026-01-05T10:00:00Z","kind":"verify","id":"2026-01-02-handlers-return-problem-json","commit":%q,"by":"CI","passed":false,"exit_code":1}
`, head, head)
	testrepo.Write(t, dir, map[string]string{".ai/confirmations.log": ledger})
	git("add", "-A")
	git("commit", "-q", "-m", "ledger")
	base = git("rev-parse", "HEAD")
	git("checkout", "-q", "-b", "change")
	testrepo.Write(t, dir, map[string]string{
		"src/jobs/run.go":   "package jobs\n\nfunc Run() {}\n",
		"src/api/server.go": "package api\n\nfunc Serve() {}\n",
		"db/schema.sql":     "create table t (id bigint);\n",
		// A new ADR superseding 1, and another one with number 2.
		"docs/adr/0002-use-postgresql.md":   "# 2. Use PostgreSQL\n\nDate: 2026-02-01\n\n<!-- kontext\npaths: [\"db/**\"]\n-->\n\n## Status\n\nAccepted\n\nSupersedes [1. Use SQLite](0001-use-sqlite.md)\n\n## Context\n\nTwo writers.\n\n## Decision\n\nPostgreSQL.\n",
		"docs/adr/0002-keep-a-changelog.md": "# 2. Keep a changelog\n\nDate: 2026-02-02\n\n## Status\n\nAccepted\n\n## Context\n\nUsers ask.\n\n## Decision\n\nCHANGELOG.md.\n",
		"docs/adr/0001-use-sqlite.md":       "# 1. Use SQLite\n\nDate: 2026-01-04\n\n<!-- kontext\npaths: [\"db/**\"]\n-->\n\n## Status\n\nSuperseded by [2. Use PostgreSQL](0002-use-postgresql.md)\n\n## Context\n\nOne writer.\n\n## Decision\n\nSQLite.\n",
	})
	git("add", "-A")
	git("commit", "-q", "-m", "feat: move to postgres; run jobs")
	return dir, base
}

// TestScenario: the findings and the comment of a change with drift, a
// failing verify, a duplicate number, a superseded decision and a private
// entry; the private entry appears nowhere.
func TestScenario(t *testing.T) {
	dir, base := scenario(t)
	r, err := report.Build(context.Background(), open(t, dir), report.Options{Base: base, Head: "HEAD", Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	files := formats(t, r)
	golden(t, "scenario", files)
	rules := map[string]bool{}
	for _, res := range r.Results {
		rules[res.Rule] = true
	}
	for _, want := range []string{"kontext/drift", "kontext/failing-verify", "kontext/duplicate_number", "kontext/governs"} {
		if !rules[want] {
			t.Errorf("no %s finding in %v", want, rules)
		}
	}
	superseded := false
	for _, c := range r.Changes {
		superseded = superseded || c.Change == "superseded"
	}
	if !superseded {
		t.Errorf("the superseded ADR is not among the changes: %+v", r.Changes)
	}
	for f, data := range files {
		for _, secret := range []string{"SECRET-PLAN", "secret-acquisition-plan"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s names the private entry (%s)", f, secret)
			}
		}
	}
}

// TestBounds: a change of 3,000 files keeps the comment under GitHub's
// limit with whole tables, and the annotations within GitHub's 10 per
// level.
func TestBounds(t *testing.T) {
	dir, base := bigChange(t, 3000)
	r, err := report.Build(context.Background(), open(t, dir), report.Options{Base: base, Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changed) != 3001 {
		t.Fatalf("changed %d files, want 3,001", len(r.Changed))
	}
	files := formats(t, r)
	delete(files, "sarif.json") // large; validated in the schema test
	delete(files, "codeclimate.json")
	delete(files, "results.json")
	delete(files, "text.txt")
	summary := string(files["summary.md"])
	delete(files, "summary.md") // about 1 MiB; checked below
	golden(t, "bounds", files)
	if len(summary) > report.MaxStepSummary {
		t.Errorf("the step summary is %d bytes, over GitHub's limit", len(summary))
	}
	if !strings.Contains(summary, "more: the job summary is limited to 1 MiB") {
		t.Error("the step summary does not say it left findings out")
	}
	md := string(files["comment.md"])
	if len(md) >= report.MaxComment {
		t.Errorf("comment is %d bytes, over GitHub's limit", len(md))
	}
	checkTables(t, md)
	perLevel := map[string]int{}
	for _, line := range strings.Split(string(files["github.txt"]), "\n") {
		if strings.HasPrefix(line, "::") {
			perLevel[strings.Fields(strings.TrimPrefix(line, "::"))[0]]++
		}
	}
	for level, n := range perLevel {
		if n > report.MaxPerLevel {
			t.Errorf("%d %s annotations, GitHub shows %d", n, level, report.MaxPerLevel)
		}
	}
	if !strings.Contains(string(files["github.txt"]), "not annotated") {
		t.Error("no notice counting the findings left out")
	}
}

// TestOneFindingPerEntry: on a 3,000-file change every entry finding is
// one result per (rule, entry), located at the entry's most specific
// changed governed file, naming at most MaxFiles others and counting them
// all; GitHub annotations come most severe, then most specific first, and
// the step summary lists every finding with what the annotations left out.
func TestOneFindingPerEntry(t *testing.T) {
	dir, base := bigChange(t, 3000)
	r, err := report.Build(context.Background(), open(t, dir), report.Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	drift := 0
	for _, res := range r.Results {
		if res.Entry == "" {
			continue
		}
		key := res.Rule + " " + res.Entry
		if seen[key] {
			t.Errorf("two %s findings for %s", res.Rule, res.Entry)
		}
		seen[key] = true
		if res.Rule == "kontext/drift" {
			drift++
		}
		if len(res.Files) > report.MaxFiles || res.FileCount < len(res.Files)+1 {
			t.Errorf("%s: %d files named, %d counted", key, len(res.Files), res.FileCount)
		}
		g := r.Governed[res.Entry]
		if g == nil || res.File != g.Best || res.Specificity != g.Specificity {
			t.Errorf("%s is at %s (specificity %d), not at the most specific changed file %+v", key, res.File, res.Specificity, g)
		}
	}
	if drift == 0 || drift != len(r.Drift.Entries) {
		t.Fatalf("%d drift findings for %d drifted entries", drift, len(r.Drift.Entries))
	}
	// Everything (src/**) is the least specific: its finding comes last.
	last := r.Results[drift-1]
	if last.Entry != "2026-01-01-everything" || last.FileCount != 3000 || len(last.Files) != report.MaxFiles {
		t.Errorf("the least specific drift finding is not last: %+v", last)
	}
	sarif, err := report.SARIF(r, "test")
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
				RelatedLocations []struct {
					PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
				}
				PartialFingerprints map[string]string
				Properties          map[string]string
			}
		}
	}
	if err := json.Unmarshal(sarif, &log); err != nil {
		t.Fatal(err)
	}
	fps := map[string]bool{}
	n := 0
	for _, res := range log.Runs[0].Results {
		if res.RuleID != "kontext/drift" {
			continue
		}
		n++
		fp := res.PartialFingerprints["kontextFinding/v1"]
		if fps[fp] {
			t.Errorf("fingerprint %s twice", fp)
		}
		fps[fp] = true
		if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.Region.StartLine != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI != r.Governed[res.Properties["entry"]].Best {
			t.Errorf("%s located at %+v", res.Properties["entry"], res.Locations)
		}
		rel := res.RelatedLocations
		if len(rel) == 0 || rel[0].PhysicalLocation.ArtifactLocation.URI != res.Properties["entryFile"] || len(rel) > report.MaxFiles+1 {
			t.Errorf("%s: related locations %d, first %+v", res.Properties["entry"], len(rel), rel)
		}
		if res.Properties["entry"] == "2026-01-01-everything" && !strings.Contains(res.Message.Text, "2,949 more changed files are not among the related locations") {
			t.Errorf("the message does not count the files left out: %s", res.Message.Text)
		}
	}
	if n != len(r.Drift.Entries) {
		t.Errorf("%d drift results in SARIF for %d drifted entries", n, len(r.Drift.Entries))
	}

	var gh, summary strings.Builder
	if err := report.WriteGitHub(&gh, r, true); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteStepSummary(&summary, r); err != nil {
		t.Fatal(err)
	}
	spec := map[string]int{}
	for _, res := range r.Results {
		spec[res.Title] = res.Specificity
	}
	prev := map[string]int{}
	annotated := 0
	for _, line := range strings.Split(gh.String(), "\n") {
		if !strings.HasPrefix(line, "::warning ") {
			continue
		}
		annotated++
		title := line[strings.Index(line, "title=")+6 : strings.Index(line[2:], "::")+2]
		title = strings.ReplaceAll(title, "%3A", ":")
		s, ok := spec[title]
		if !ok {
			t.Fatalf("annotation %q is no finding", title)
		}
		if p, ok := prev["warning"]; ok && s > p {
			t.Errorf("annotation %q (specificity %d) after one of %d", title, s, p)
		}
		prev["warning"] = s
	}
	if annotated != report.MaxPerLevel {
		t.Errorf("%d warning annotations", annotated)
	}
	rows := strings.Count(summary.String(), "\n| warning |")
	if rows != len(r.Results) {
		t.Errorf("the step summary lists %d of %d findings", rows, len(r.Results))
	}
	if want := fmt.Sprintf("so %d findings (%d warnings) are only listed here", len(r.Results)-report.MaxPerLevel, len(r.Results)-report.MaxPerLevel); !strings.Contains(summary.String(), want) {
		t.Errorf("the step summary does not say %q:\n%s", want, summary.String()[:400])
	}
}

// checkTables: every table row has as many cells as its header.
func checkTables(t *testing.T, md string) {
	t.Helper()
	cols := 0
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") - 1
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("line %d has %d cells, its table %d: %s", i+1, n, cols, line)
		}
	}
}

// bigChanges are the repositories bigChange built, by n (the tests only
// read them).
var bigChanges = map[int][2]string{}

// bigChange builds 60 conventions over 300 directories and a change of n
// files spread over them (plus one knowledge file), once per n for the
// package's tests.
func bigChange(t *testing.T, n int) (dir, base string) {
	t.Helper()
	testrepo.Env(t)
	if c, ok := bigChanges[n]; ok {
		return c[0], c[1]
	}
	dir = testrepo.SharedDir(t)
	git := func(args ...string) string { return testrepo.Git(t, dir, args...) }
	git("init", "-q", "-b", "main")
	files := map[string]string{}
	for i := 0; i < 60; i++ {
		files[fmt.Sprintf(".ai/conventions/2026-01-01-rule-%02d.md", i)] = fmt.Sprintf(
			"---\nstatus: active\ndate: 2026-01-01\nsummary: Rule %d for the modules of group %d, with a summary long enough to cost a few bytes per row.\npaths: [\"src/group%d/**\"]\n---\n# Rule %d\n", i, i%30, i%30, i)
	}
	files[".ai/decisions/2026-01-01-everything.md"] = "---\nstatus: accepted\ndate: 2026-01-01\npaths: [\"src/**\"]\n---\n# Everything is reviewed\n"
	testrepo.Write(t, dir, files)
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	base = git("rev-parse", "HEAD")
	files = map[string]string{".ai/decisions/2026-01-02-new.md": "---\nstatus: proposed\ndate: 2026-01-02\npaths: [\"src/group1/**\"]\n---\n# A new decision\n"}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("src/group%d/module%03d/file%d.go", i%30, i%300, i)] = "package x\n"
	}
	testrepo.Write(t, dir, files)
	git("add", "-A")
	git("commit", "-q", "-m", "big change")
	bigChanges[n] = [2]string{dir, base}
	return dir, base
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(testrepo.M(m).Run())
}
