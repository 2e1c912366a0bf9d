package main

// Logs written by the real ADR tools (adr-tools, MADR's templates,
// log4brains), read by kontext and checked against what each tool itself
// says. `make test` installs the tools; a missing tool skips its test
// outside CI and fails it in CI (CI=true).

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// needTool returns the path of a tool the test drives.
func needTool(t *testing.T, name, path string) string {
	t.Helper()
	if path == "" {
		if p, err := exec.LookPath(name); err == nil {
			path = p
		}
	} else if _, err := os.Stat(path); err != nil {
		path = ""
	}
	if path == "" {
		msg := name + " is not installed (make test installs it: Debian adr-tools, npm devDependencies madr, madr2, madr3, log4brains)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// tool runs a command in dir; a failure ends the test.
func tool(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "VISUAL=true", "EDITOR=true"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// kontextIn runs the CLI in-process in dir; it returns stdout and the exit
// code.
func kontextIn(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"-C", dir}, args...), IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb})
	if errb.Len() > 0 && code != 0 && code != exitFound {
		t.Logf("kontext %s: %s", strings.Join(args, " "), errb.String())
	}
	return out.String(), code
}

// apiIn calls an operation and returns its result; an error envelope ends
// the test.
func apiIn(t *testing.T, dir, op string, in any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(in)
	out, code := kontextIn(t, dir, "api", op, string(b))
	var env map[string]any
	if err := json.Unmarshal([]byte(out), &env); err != nil || code != 0 {
		t.Fatalf("api %s %s: exit %d: %s", op, b, code, out)
	}
	return env["result"].(map[string]any)
}

func strs(v any) []string {
	out := []string{}
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// byFile returns every entry of the repo keyed by file.
func byFile(t *testing.T, dir string) (map[string]map[string]any, []any) {
	t.Helper()
	res := apiIn(t, dir, "entries.list", map[string]any{"limit": 500})
	m := map[string]map[string]any{}
	for _, e := range res["entries"].([]any) {
		en := e.(map[string]any)
		m[en["file"].(string)] = en
	}
	return m, res["diagnostics"].([]any)
}

func codes(diags []any, sev string) []string {
	var out []string
	for _, d := range diags {
		dm := d.(map[string]any)
		if sev == "" || dm["severity"] == sev {
			out = append(out, dm["code"].(string)+" "+dm["file"].(string))
		}
	}
	sort.Strings(out)
	return out
}

const adrConfig = "version = 1\n\n[[kinds.decision.include]]\ndir = \"doc/adr\"\nstyle = \"adr\"\n"

var (
	tocLine   = regexp.MustCompile(`^\* \[(\d+)\. (.*)\]\(([^()]+)\)$`)
	graphEdge = regexp.MustCompile(`^\s*_(\d+) -> _(\d+) \[label="([^"]*)"`)
)

// checkAgainstADRTools compares kontext's reading of an adr-tools log with
// `adr list`, `adr generate toc` and the typed edges of `adr generate graph`.
func checkAgainstADRTools(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	es, diags := byFile(t, dir)
	if w := codes(diags, "warning"); len(w) > 0 || len(codes(diags, "error")) > 0 {
		t.Errorf("a log written by adr-tools gets diagnostics: %v", codes(diags, ""))
	}
	listed := strings.Fields(tool(t, dir, nil, "adr", "list"))
	if len(listed) != len(es) {
		t.Errorf("adr list has %d records, kontext %d", len(listed), len(es))
	}
	idOf := map[string]string{}
	for _, f := range listed {
		e, ok := es[f]
		if !ok {
			t.Fatalf("adr list names %s; kontext did not read it", f)
		}
		num := strings.TrimLeft(strings.SplitN(filepath.Base(f), "-", 2)[0], "0")
		idOf[num] = e["id"].(string)
	}
	for _, l := range strings.Split(tool(t, dir, nil, "adr", "generate", "toc"), "\n") {
		m := tocLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		e := es["doc/adr/"+m[3]]
		if e == nil || e["title"] != m[2] || jsonNum(e["adr_number"]) != m[1] {
			t.Errorf("toc says %s. %s (%s); kontext read %v", m[1], m[2], m[3], e)
		}
	}
	edges := 0
	for _, l := range strings.Split(tool(t, dir, nil, "adr", "generate", "graph"), "\n") {
		m := graphEdge.FindStringSubmatch(l)
		if m == nil || strings.Contains(l, "dotted") {
			continue // dotted edges are the sequence, not relations
		}
		edges++
		from, to := es[fileOfID(es, idOf[m[1]])], idOf[m[2]]
		// adr-tools' own label breaks at a bracket: "Refines [3. Mark".
		label := strings.ToLower(strings.TrimSpace(strings.SplitN(m[3], "[", 2)[0]))
		switch label {
		case "supersedes", "supercedes":
			if !slices.Contains(strs(from["supersedes"]), to) {
				t.Errorf("graph edge %s supersedes %s; kontext: %v", from["id"], to, from["supersedes"])
			}
			old := es[fileOfID(es, to)]
			if old["status"] != "superseded" || !slices.Contains(strs(old["superseded_by"]), from["id"].(string)) {
				t.Errorf("%s is superseded by %s; kontext: status %v superseded_by %v", to, from["id"], old["status"], old["superseded_by"])
			}
		default:
			found := false
			for _, l := range from["links"].([]any) {
				lm := l.(map[string]any)
				found = found || (lm["type"] == label && lm["target"] == to)
			}
			if !found {
				t.Errorf("graph edge %s %s %s; kontext links: %v", from["id"], label, to, from["links"])
			}
		}
	}
	if edges == 0 {
		t.Fatal("adr generate graph drew no relation edges")
	}
	return es
}

func jsonNum(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.Itoa(int(f))
	}
	return ""
}

func fileOfID(es map[string]map[string]any, id string) string {
	for f, e := range es {
		if e["id"] == id {
			return f
		}
	}
	return ""
}

// adrToolsLog writes a log with adr-tools: supersede one and two records,
// a bracketed title, custom links, old dates. It commits twice: before
// and after the supersessions, and returns both commits.
func adrToolsLog(t *testing.T) (dir, before, after string) {
	needTool(t, "adr", "")
	testrepo.Env(t)
	dir = t.TempDir()
	testrepo.Git(t, dir, "init", "-q", "-b", "main")
	old := []string{"ADR_DATE=2019-05-13"}
	tool(t, dir, old, "adr", "init", "doc/adr")
	tool(t, dir, old, "adr", "new", "Use SQLite")            // 2
	tool(t, dir, old, "adr", "new", "Mark [BETA] endpoints") // 3
	tool(t, dir, old, "adr", "new", "Use MySQL for reports") // 4
	os.WriteFile(filepath.Join(dir, ".kontext.toml"), []byte(adrConfig), 0o644)
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-qm", "first records")
	before = testrepo.Git(t, dir, "rev-parse", "HEAD")
	tool(t, dir, nil, "adr", "new", "-s", "2", "-s", "4", "Use PostgreSQL")                            // 5 supersedes two
	tool(t, dir, nil, "adr", "new", "-l", "3:Refines:Refined by", "-l", "5:Amends:Amended by", "Tune") // 6 custom links
	tool(t, dir, nil, "adr", "link", "6", "Depends on", "1", "Depended on by")
	tool(t, dir, nil, "adr", "new", "-s", "5", "Use managed PostgreSQL") // 7 supersedes one
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-qm", "supersede")
	after = testrepo.Git(t, dir, "rev-parse", "HEAD")
	return dir, before, after
}

func TestADRToolsLog(t *testing.T) {
	dir, before, after := adrToolsLog(t)
	es := checkAgainstADRTools(t, dir)
	sqlite := es["doc/adr/0002-use-sqlite.md"]
	if sqlite["status"] != "superseded" || strs(sqlite["superseded_by"])[0] != "0005-use-postgresql" || sqlite["date"] != "2019-05-13" {
		t.Errorf("0002: %v %v %v", sqlite["status"], sqlite["superseded_by"], sqlite["date"])
	}
	pg := es["doc/adr/0005-use-postgresql.md"]
	if got := strs(pg["supersedes"]); strings.Join(got, ",") != "0002-use-sqlite,0004-use-mysql-for-reports" {
		t.Errorf("0005 supersedes %v", got)
	}
	tune := es["doc/adr/0006-tune.md"]
	b, _ := json.Marshal(tune["links"])
	want := `[{"target":"0003-mark-beta-endpoints","text":"3. Mark [BETA] endpoints","type":"refines"},` +
		`{"target":"0005-use-postgresql","text":"5. Use PostgreSQL","type":"amends"},` +
		`{"target":"0001-record-architecture-decisions","text":"1. Record architecture decisions","type":"depends on"}]`
	if string(b) != want {
		t.Errorf("links of 0006:\n got %s\nwant %s", b, want)
	}
	// The reverse lines adr-tools wrote are links of the other records.
	beta := es["doc/adr/0003-mark-beta-endpoints.md"]
	if b, _ := json.Marshal(beta["links"]); !strings.Contains(string(b), `{"target":"0006-tune","text":"6. Tune","type":"refined by"}`) {
		t.Errorf("links of 0003: %s", b)
	}
	// 0006 amends 0005, which 0007 superseded: a premise that no longer holds.
	if b, _ := json.Marshal(tune["premises"]); string(b) != `[{"id":"0005-use-postgresql","status":"superseded","superseded_by":["0007-use-managed-postgresql"]}]` {
		t.Errorf("premises of 0006: %s", b)
	}
	rel := apiIn(t, dir, "entries.related", map[string]any{"text": "tune endpoints", "exclude_ids": []string{"0006-tune"}})
	if b, _ := json.Marshal(rel["candidates"]); !strings.Contains(string(b), `"id":"0003-mark-beta-endpoints"`) ||
		!strings.Contains(string(b), `"reason":"linked: 0006-tune depends on 0001-record-architecture-decisions"`) {
		t.Errorf("related: %s", b)
	}
	// get by ADR number, active_only, changed.
	if g := apiIn(t, dir, "entries.get", map[string]any{"id": "2"}); g["status"] != "superseded" {
		t.Errorf("get 2: %v", g["status"])
	}
	act := apiIn(t, dir, "entries.list", map[string]any{"active_only": true})
	for _, e := range act["entries"].([]any) {
		if id := e.(map[string]any)["id"].(string); id == "0002-use-sqlite" || id == "0005-use-postgresql" {
			t.Errorf("active_only lists %s", id)
		}
	}
	ch := apiIn(t, dir, "entries.changed", map[string]any{"base": before, "head": after})
	got := map[string]string{}
	for _, c := range ch["changes"].([]any) {
		cm := c.(map[string]any)
		got[cm["id"].(string)] = cm["change"].(string)
	}
	if got["0002-use-sqlite"] != "superseded" || got["0004-use-mysql-for-reports"] != "superseded" || got["0005-use-postgresql"] != "added" {
		t.Errorf("changed: %v", got)
	}
	// governing: paths in a kontext comment after the Date line; the
	// superseded record governs nothing.
	for _, f := range []string{"0005-use-postgresql.md", "0007-use-managed-postgresql.md"} {
		p := filepath.Join(dir, "doc/adr", f)
		b, _ := os.ReadFile(p)
		s := strings.Replace(string(b), "\n\n## Status", "\n\n<!-- kontext\npaths: [\"src/db/**\"]\n-->\n\n## Status", 1)
		os.WriteFile(p, []byte(s), 0o644)
	}
	gov := apiIn(t, dir, "entries.governing", map[string]any{"paths": []string{"src/db/pool.go"}})
	var ids []string
	for _, e := range gov["entries"].([]any) {
		ids = append(ids, e.(map[string]any)["id"].(string))
	}
	if strings.Join(ids, ",") != "0007-use-managed-postgresql" {
		t.Errorf("governing src/db/pool.go: %v", ids)
	}
	// A log adr-tools wrote has no finding.
	if out, _ := kontextIn(t, dir, "ci"); !strings.HasPrefix(out, "diagnostics: 0 (0 errors)\n") {
		t.Errorf("ci on an adr-tools log:\n%s", out)
	}
}

// TestADRToolsUpstreamSpelling: upstream adr-tools writes "Superceded by"
// and "Supercedes" (Debian's package patches them).
func TestADRToolsUpstreamSpelling(t *testing.T) {
	dir, _, _ := adrToolsLog(t)
	files, _ := filepath.Glob(filepath.Join(dir, "doc/adr/*.md"))
	n := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		s := strings.ReplaceAll(strings.ReplaceAll(string(b), "Superseded by", "Superceded by"), "Supersedes", "Supercedes")
		if s != string(b) {
			n++
			os.WriteFile(f, []byte(s), 0o644)
		}
	}
	if n < 4 {
		t.Fatalf("rewrote %d files; adr-tools wrote fewer supersede lines than expected", n)
	}
	es := checkAgainstADRTools(t, dir)
	if e := es["doc/adr/0005-use-postgresql.md"]; e["status"] != "superseded" || e["status_raw"] == nil || !strings.HasPrefix(e["status_raw"].(string), "Superceded by") {
		t.Errorf("0005: %v %v", e["status"], e["status_raw"])
	}
}

// TestADRDuplicateNumber: two branches each add 0002; git merges both.
func TestADRDuplicateNumber(t *testing.T) {
	needTool(t, "adr", "")
	testrepo.Env(t)
	dir := t.TempDir()
	testrepo.Git(t, dir, "init", "-q", "-b", "main")
	tool(t, dir, nil, "adr", "init", "doc/adr")
	// kontext new writes to the kind's own dir: the log is it.
	os.WriteFile(filepath.Join(dir, ".kontext.toml"), []byte("version = 1\n\n[kinds.decision]\ndir = \"doc/adr\"\nstyle = \"adr\"\n"), 0o644)
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-qm", "init")
	testrepo.Git(t, dir, "checkout", "-qb", "a")
	tool(t, dir, nil, "adr", "new", "Use Kafka")
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-qm", "a")
	testrepo.Git(t, dir, "checkout", "-q", "main")
	testrepo.Git(t, dir, "checkout", "-qb", "b")
	tool(t, dir, nil, "adr", "new", "Use NATS")
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-qm", "b")
	// Before the merge, kontext new on main takes a number no branch has.
	testrepo.Git(t, dir, "checkout", "-q", "main")
	testrepo.Git(t, dir, "checkout", "-qb", "c")
	if out, code := kontextIn(t, dir, "new", "decision", "Use Redis", "--body", "Body."); code != 0 {
		t.Fatalf("new: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "doc/adr/0003-use-redis.md")); err != nil {
		t.Errorf("kontext new did not take 0003 (0002 is taken on branches a and b): %v", err)
	}
	testrepo.Git(t, dir, "reset", "-q", "--hard")
	testrepo.Git(t, dir, "clean", "-qfd")
	testrepo.Git(t, dir, "checkout", "-q", "a")
	testrepo.Git(t, dir, "merge", "-q", "--no-edit", "b")
	es, diags := byFile(t, dir)
	if len(es) != 3 {
		t.Errorf("entries: %d", len(es))
	}
	want := []string{"duplicate_number doc/adr/0002-use-kafka.md", "duplicate_number doc/adr/0002-use-nats.md"}
	if got := codes(diags, "warning"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("diagnostics %v", got)
	}
	for _, d := range diags {
		if m := d.(map[string]any)["message"].(string); !strings.Contains(m, "0002-use-kafka.md") || !strings.Contains(m, "0002-use-nats.md") {
			t.Errorf("message does not name both files: %s", m)
		}
	}
	if _, code := kontextIn(t, dir, "ci", "--strict"); code != exitFound {
		t.Errorf("ci --strict on a duplicate number: exit %d", code)
	}
}

// madrRecord fills a MADR template: the title and the status line.
func madrRecord(tmpl, title, status string) string {
	lines := strings.Split(tmpl, "\n")
	titled, inFM := false, false
	for i, l := range lines {
		if l == "---" {
			inFM = i == 0
		}
		switch {
		case !titled && !inFM && strings.HasPrefix(l, "# "):
			lines[i], titled = "# "+title, true
		case strings.HasPrefix(l, "status:"):
			lines[i] = "status: " + status
		case strings.HasPrefix(l, "* Status:") || strings.HasPrefix(l, "- Status:"):
			lines[i] = l[:2] + "Status: " + status
		case strings.HasPrefix(l, "date:"):
			lines[i] = "date: 2021-03-04"
		case strings.HasPrefix(l, "* Date:"):
			lines[i] = "* Date: 2021-03-04"
		case strings.HasPrefix(l, "* Deciders:"):
			lines[i] = "* Deciders: Ann, Bob"
		case strings.HasPrefix(l, "Technical Story:"):
			lines[i] = "Technical Story: TICKET-7"
		case strings.HasPrefix(l, "deciders:") || strings.HasPrefix(l, "decision-makers:") || strings.HasPrefix(l, "consulted:") || strings.HasPrefix(l, "informed:"):
			lines[i] = strings.SplitN(l, ":", 2)[0] + ": Ann"
		}
	}
	return strings.Join(lines, "\n")
}

func TestMADRTemplates(t *testing.T) {
	root := testrepo.Root()
	for _, tc := range []struct{ pkg, tmpl string }{
		{"madr2", "template.md"}, {"madr3", "adr-template.md"}, {"madr", "adr-template.md"},
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			src := filepath.Join(root, "node_modules", tc.pkg, "template")
			needTool(t, tc.pkg, filepath.Join(src, tc.tmpl))
			testrepo.Env(t)
			dir := t.TempDir()
			testrepo.Git(t, dir, "init", "-q", "-b", "main")
			// MADR's README: copy the template folder into docs/decisions.
			dst := filepath.Join(dir, "docs", "decisions")
			os.MkdirAll(dst, 0o755)
			names, _ := os.ReadDir(src)
			var templates []string
			for _, n := range names {
				b, _ := os.ReadFile(filepath.Join(src, n.Name()))
				os.WriteFile(filepath.Join(dst, n.Name()), b, 0o644)
				if !strings.HasPrefix(n.Name(), "0000-") && strings.HasSuffix(n.Name(), ".md") {
					templates = append(templates, "docs/decisions/"+n.Name())
				}
			}
			tmpl, _ := os.ReadFile(filepath.Join(src, tc.tmpl))
			rec := map[string]string{
				"0001-use-json.md":     madrRecord(string(tmpl), "Use JSON", "accepted"),
				"0002-use-yaml.md":     madrRecord(string(tmpl), "Use YAML", "superseded by [ADR-0004](0004-use-toml.md)"),
				"0003-use-ini.md":      madrRecord(string(tmpl), "Use INI", "superseded by ADR-0004"),
				"0004-use-toml.md":     madrRecord(string(tmpl), "Use TOML", "accepted"),
				"0005-use-xml.md":      madrRecord(string(tmpl), "Use XML", "Superceded by 0004"),
				"0006-use-protobuf.md": madrRecord(string(tmpl), "Use Protobuf", "proposed"),
			}
			for f, s := range rec {
				os.WriteFile(filepath.Join(dst, f), []byte(s), 0o644)
			}
			os.WriteFile(filepath.Join(dir, ".kontext.toml"), []byte("version = 1\n\n[[kinds.decision.include]]\ndir = \"docs/decisions\"\nstyle = \"adr\"\n"), 0o644)
			testrepo.Git(t, dir, "add", "-A")
			testrepo.Git(t, dir, "commit", "-qm", "madr")
			es, diags := byFile(t, dir)
			for _, f := range templates {
				if es[f] != nil {
					t.Errorf("template %s read as a record", f)
				}
			}
			st := apiIn(t, dir, "status", map[string]any{})
			var skipped []string
			for _, s := range st["skipped"].([]any) {
				skipped = append(skipped, s.(map[string]any)["file"].(string))
			}
			sort.Strings(templates)
			if strings.Join(skipped, ",") != strings.Join(templates, ",") {
				t.Errorf("status.skipped %v, want %v", skipped, templates)
			}
			toml := es["docs/decisions/0004-use-toml.md"]
			if got := strings.Join(strs(toml["supersedes"]), ","); got != "0002-use-yaml,0003-use-ini,0005-use-xml" {
				t.Errorf("0004 supersedes %s; diagnostics %v", got, codes(diags, ""))
			}
			for _, f := range []string{"0002-use-yaml.md", "0003-use-ini.md", "0005-use-xml.md"} {
				e := es["docs/decisions/"+f]
				if e["status"] != "superseded" || strings.Join(strs(e["superseded_by"]), ",") != "0004-use-toml" {
					t.Errorf("%s: %v %v", f, e["status"], e["superseded_by"])
				}
			}
			if e := es["docs/decisions/0006-use-protobuf.md"]; e["status"] != "proposed" || e["title"] != "Use Protobuf" || e["date"] != "2021-03-04" {
				t.Errorf("0006: %v %v %v", e["status"], e["title"], e["date"])
			}
			if tc.pkg == "madr2" {
				e := es["docs/decisions/0001-use-json.md"]["extra"].(map[string]any)
				if e["deciders"] != "Ann, Bob" || e["technical_story"] != "TICKET-7" {
					t.Errorf("MADR 2 bullets: %v", e)
				}
			}
			// MADR's own 0000 record states no status: read, with a warning.
			for _, w := range codes(diags, "warning") {
				if !strings.HasPrefix(w, "missing_status docs/decisions/0000-") {
					t.Errorf("warning on a MADR log: %s", w)
				}
			}
			// 0004's supersedes side is inferred (info): listed, never a ci finding.
			if len(codes(diags, "info")) != 3 {
				t.Errorf("info diagnostics %v", codes(diags, "info"))
			}
			if out, _ := kontextIn(t, dir, "ci"); !strings.HasPrefix(out, "diagnostics: 1 (0 errors)\n") || strings.Contains(out, "inferred_link") {
				t.Errorf("ci:\n%s", out)
			}
			if len(es) != 7 {
				t.Errorf("want MADR's 0000 record and 6 filled templates, got %d entries", len(es))
			}
		})
	}
}

func TestLog4brainsLog(t *testing.T) {
	bin := needTool(t, "log4brains", filepath.Join(testrepo.Root(), "node_modules", ".bin", "log4brains"))
	testrepo.Env(t)
	dir := t.TempDir()
	testrepo.Git(t, dir, "init", "-q", "-b", "main")
	testrepo.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	path := []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	tool(t, dir, path, bin, "init", "--defaults")
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-qm", "log4brains")
	// It exits 0 even after FATAL: the file it wrote is the proof.
	slug := strings.TrimSpace(lastLine(tool(t, dir, path, bin, "adr", "new", "--quiet", "Use Postgres")))
	if _, err := os.Stat(filepath.Join(dir, "docs/adr", slug+".md")); err != nil {
		t.Fatalf("log4brains adr new wrote no %s.md: %v", slug, err)
	}
	os.WriteFile(filepath.Join(dir, ".kontext.toml"), []byte("version = 1\n\n[kinds.decision]\ndir = \"docs/adr\"\nstyle = \"adr\"\n"), 0o644)
	testrepo.Git(t, dir, "add", "-A")
	testrepo.Git(t, dir, "commit", "-qm", "record")
	es, diags := byFile(t, dir)
	if len(es) != 3 {
		t.Fatalf("entries %d: %v", len(es), codes(diags, ""))
	}
	for f, e := range es {
		if e["adr_number"] != nil {
			t.Errorf("%s: adr_number %v (a YYYYMMDD prefix is a date)", f, e["adr_number"])
		}
	}
	e := es["docs/adr/"+slug+".md"]
	if iso := slug[:4] + "-" + slug[4:6] + "-" + slug[6:8]; e["date"] != iso || e["title"] != "Use Postgres" {
		t.Errorf("new record: date %v title %v", e["date"], e["title"])
	}
	var l4b map[string]any
	for f, e := range es {
		if strings.HasSuffix(f, "use-log4brains-to-manage-the-adrs.md") {
			l4b = e
		}
	}
	if l4b["status"] != "accepted" || strings.Join(strs(l4b["tags"]), ",") != "dev-tools,doc" {
		t.Errorf("log4brains bullets: %v %v", l4b["status"], l4b["tags"])
	}
	st := apiIn(t, dir, "status", map[string]any{})
	b, _ := json.Marshal(st["skipped"])
	for _, f := range []string{"docs/adr/README.md", "docs/adr/index.md", "docs/adr/template.md"} {
		if !strings.Contains(string(b), `"file":"`+f+`"`) {
			t.Errorf("status.skipped lacks %s: %s", f, b)
		}
	}
	out, _ := kontextIn(t, dir, "ci")
	if !strings.Contains(out, "skipped:     3 not records (README, index, templates): docs/adr/README.md, docs/adr/index.md, docs/adr/template.md\n") {
		t.Errorf("ci text output lacks the skipped line:\n%s", out)
	}
	// kontext new keeps the date naming.
	if out, code := kontextIn(t, dir, "new", "decision", "Use Redis", "--body", "Body."); code != 0 {
		t.Fatalf("new: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs/adr/20261130-use-redis.md")); err != nil {
		t.Errorf("kontext new in a log4brains log: %v", err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
