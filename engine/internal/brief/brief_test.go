package brief

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kontext/kontext/engine/api"
)

func sp(s string) *string { return &s }

func ent(id, kind, status string, spec, bodyLines int) *api.Entry {
	var body []string
	for i := 0; i < bodyLines; i++ {
		body = append(body, fmt.Sprintf("%s body line %d", id, i))
	}
	auth := status == "accepted" || (kind != "decision" && status == "active")
	return &api.Entry{
		ID: id, Kind: kind, Title: "Title of " + id, Status: sp(status), Authority: auth,
		Visibility: "team", Body: strings.Join(body, "\n"), Premises: []api.Premise{},
		Specificity: &spec, Matches: []api.Match{{Path: "src/a.go", Rule: "src/**", Specificity: spec}},
	}
}

// fixture: one entry of each kind (bodies of 4 lines), most specific first
// like entries.governing.
func fixture() []*api.Entry {
	return []*api.Entry{
		ent("dec-a", "decision", "accepted", 4, 4),
		ent("learn", "learning", "active", 3, 4),
		ent("prop", "decision", "proposed", 3, 4),
		ent("conv", "convention", "active", 2, 4),
		ent("inc", "incident", "active", 2, 4),
		ent("arch", "architecture", "active", 1, 4),
		ent("dec-b", "decision", "accepted", 1, 4),
		ent("old", "decision", "superseded", 1, 4),
	}
}

func assemble(budget int, arch bool) *api.Brief {
	return Assemble(Input{
		Repository:   api.BriefRepository{Root: "/r", Branch: "main", Head: "abc", Paths: []string{"src/a.go"}},
		Entries:      fixture(),
		Budget:       budget,
		Architecture: arch,
		GeneratedAt:  time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	})
}

func sectionIDs(b *api.Brief) []string {
	var ids []string
	for _, s := range b.Sections {
		ids = append(ids, s.ID)
	}
	return ids
}

func TestAuthorityOrder(t *testing.T) {
	es := fixture()
	es[0].ReviewDue = true
	es[3].Premises = []api.Premise{{ID: "old", Status: sp("superseded")}}
	b := Assemble(Input{Repository: api.BriefRepository{Paths: []string{"src/a.go"}}, Entries: es, Budget: 1000, Architecture: true})
	want := "repository decisions conventions learnings incidents architecture review_due premises_changed excluded budget"
	if got := strings.Join(sectionIDs(b), " "); got != want {
		t.Errorf("sections %s, want %s", got, want)
	}
	text := Text(b)
	if i, j := strings.Index(text, "(dec-a)"), strings.Index(text, "(dec-b)"); i < 0 || j < i {
		t.Errorf("accepted decisions not most specific first:\n%s", text)
	}
	if b.Budget.Dropped != 0 || b.OverBudget || strings.Contains(text, "kontext show") {
		t.Errorf("a large budget dropped something: %+v", b.Budget)
	}
	// Without --architecture there is no ARCHITECTURE section and the note
	// is named as excluded.
	b = assemble(1000, false)
	if strings.Contains(strings.Join(sectionIDs(b), " "), "architecture") {
		t.Error("ARCHITECTURE section without --architecture")
	}
	if !hasExcluded(b, "arch", "not asked for") || !hasExcluded(b, "old", "not in force") {
		t.Errorf("excluded = %v", b.Excluded)
	}
}

func TestProposedIsNeverARule(t *testing.T) {
	b := assemble(1000, false)
	dec := b.Sections[1].Text
	rules, proposed, ok := strings.Cut(dec, "Proposed (not rules):\n")
	if !ok {
		t.Fatalf("no proposed sub-list:\n%s", dec)
	}
	if strings.Contains(rules, "prop") || !strings.Contains(proposed, "### [proposed, not a rule] Title of prop (prop)") {
		t.Errorf("proposed decision listed as a rule:\n%s", dec)
	}
	if strings.Contains(Text(b), "(old)") {
		t.Error("superseded decision shown")
	}
}

func hasExcluded(b *api.Brief, item, reason string) bool {
	for _, x := range b.Excluded {
		if x.Item == item && strings.Contains(x.Reason, reason) {
			return true
		}
	}
	return false
}

// TestBudgetDropOrder walks every budget: bodies go lowest authority
// first, then titles in the same order, and each cut is named.
func TestBudgetDropOrder(t *testing.T) {
	full := assemble(1000, true).Budget.Lines
	order := []string{"arch", "inc", "learn", "conv", "prop", "dec-b", "dec-a"}
	rank := map[string]int{}
	for i, id := range order {
		rank[id] = i
	}
	prevDropped := 0
	for budget := full; budget >= 1; budget-- {
		b := assemble(budget, true)
		if !b.OverBudget && b.Budget.Lines > budget {
			t.Fatalf("budget %d: %d lines", budget, b.Budget.Lines)
		}
		if b.Budget.Lines != strings.Count(Text(b), "\n") {
			t.Fatalf("budget %d: lines %d, text has %d", budget, b.Budget.Lines, strings.Count(Text(b), "\n"))
		}
		text := Text(b)
		bodies, titles := map[string]bool{}, map[string]bool{}
		for _, x := range b.Excluded {
			switch {
			case strings.Contains(x.Reason, "title and body"):
				titles[x.Item] = true
				bodies[x.Item] = true
				if strings.Contains(text, "("+x.Item+")\n") {
					t.Errorf("budget %d: %s excluded but its title is shown", budget, x.Item)
				}
			case strings.Contains(x.Reason, "body left out"):
				bodies[x.Item] = true
				if !strings.Contains(text, "kontext show "+x.Item+"\n") || strings.Contains(text, x.Item+" body line") {
					t.Errorf("budget %d: dropped body of %s not replaced by kontext show", budget, x.Item)
				}
			}
		}
		// Every body or title missing from the text is named (nothing cut silently).
		for _, id := range order {
			if !strings.Contains(text, id+" body line") && !bodies[id] {
				t.Errorf("budget %d: body of %s cut silently", budget, id)
			}
			if !strings.Contains(text, "("+id+")") && !titles[id] {
				t.Errorf("budget %d: title of %s cut silently", budget, id)
			}
		}
		// With bodies of one length the drops are a prefix: a dropped body
		// implies every lower-authority body is dropped; a dropped title
		// implies all bodies and every lower-authority title.
		for id := range bodies {
			for _, low := range order[:rank[id]] {
				if !bodies[low] {
					t.Errorf("budget %d: body of %s dropped before that of %s", budget, id, low)
				}
			}
		}
		for id := range titles {
			for _, low := range order {
				if !bodies[low] {
					t.Errorf("budget %d: title of %s dropped before the body of %s", budget, id, low)
				}
			}
			for _, low := range order[:rank[id]] {
				if !titles[low] {
					t.Errorf("budget %d: title of %s dropped before that of %s", budget, id, low)
				}
			}
		}
		if b.Budget.Dropped < prevDropped {
			t.Errorf("budget %d: dropped %d < %d at a larger budget", budget, b.Budget.Dropped, prevDropped)
		}
		prevDropped = b.Budget.Dropped
	}
}

// Every body that fits the budget is packed: a short body of low
// authority is not dropped because a long one after it had to go (the
// brief ended at 258 of 300 lines with 1–4-line bodies left out).
func TestBudgetPacksBodiesThatFit(t *testing.T) {
	entries := func() []*api.Entry {
		return []*api.Entry{
			ent("dec-a", "decision", "accepted", 4, 3),
			ent("conv", "convention", "active", 3, 2),
			ent("learn", "learning", "active", 2, 40),
			ent("inc", "incident", "active", 1, 1),
		}
	}
	in := Input{Repository: api.BriefRepository{Root: "/r", Paths: []string{"src/a.go"}}, Entries: entries(), Budget: 1000}
	full := Assemble(in).Budget.Lines
	for budget := full; budget >= 1; budget-- {
		in.Entries, in.Budget = entries(), budget
		b := Assemble(in)
		text := Text(b)
		titleCut := false
		for _, x := range b.Excluded {
			titleCut = titleCut || strings.Contains(x.Reason, "title and body")
		}
		for _, x := range b.Excluded {
			if !strings.Contains(x.Reason, "body left out") || titleCut {
				continue
			}
			var n int
			fmt.Sscanf(x.Reason[strings.LastIndex(x.Reason, "(")+1:], "%d", &n)
			// Taking it back costs its lines and saves its "kontext show"
			// line and its EXCLUDED line ("none" when it was the last).
			after := b.Budget.Lines + n - 2
			if len(b.Excluded) == 1 {
				after++
			}
			if after <= budget {
				t.Errorf("budget %d: the %d-line body of %s fits (%d lines) but was dropped\n%s", budget, n, x.Item, after, text)
			}
		}
	}
	// The case of the report: the long learning goes, the one-line
	// incident before it in the drop order stays.
	in.Entries, in.Budget = entries(), full-30
	b := Assemble(in)
	if text := Text(b); !strings.Contains(text, "inc body line 0") || strings.Contains(text, "learn body line 0") || b.Budget.Dropped != 1 {
		t.Errorf("budget %d: want only the learning's body dropped\n%s", full-30, text)
	}
}

func TestOverBudgetWithNothingLeft(t *testing.T) {
	b := assemble(10, true)
	if !b.OverBudget {
		t.Fatalf("budget 10 fits? %+v", b.Budget)
	}
	if b.Budget.Dropped != 7*2 {
		t.Errorf("dropped %d, want every body and title (14)", b.Budget.Dropped)
	}
	last := b.Sections[len(b.Sections)-1]
	want := fmt.Sprintf("## BUDGET\n%d of 10 lines; 14 dropped; over budget: nothing left to drop\n", b.Budget.Lines)
	if last.Text != want {
		t.Errorf("BUDGET = %q, want %q", last.Text, want)
	}
	// The never-dropped sections are still there (REVIEW DUE and PREMISES
	// CHANGED have nothing to say here, so they cost no lines).
	for _, id := range []string{SecRepository, SecExcluded, SecBudget} {
		if !strings.Contains(strings.Join(sectionIDs(b), " "), id) {
			t.Errorf("section %s dropped", id)
		}
	}
}

func TestReviewDueAndPremises(t *testing.T) {
	es := fixture()
	es[0].ReviewDue, es[0].ReviewBy = true, sp("2026-01-01")
	es[3].Premises = []api.Premise{{ID: "old", Status: sp("superseded"), SupersededBy: []string{"dec-a"}}}
	b := Assemble(Input{Entries: es, Budget: 1})
	text := Text(b)
	for _, want := range []string{
		"## REVIEW DUE\n- dec-a (review by 2026-01-01): Title of dec-a\n",
		"## PREMISES CHANGED\n- conv relies on old, now superseded by dec-a\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
}

// TestTextJSONParity: the JSON document carries the text's content.
func TestTextJSONParity(t *testing.T) {
	for _, budget := range []int{1000, 40, 25, 5} {
		b := assemble(budget, true)
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		var back api.Brief
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if back.Schema != Schema || back.GeneratedAt != "2026-01-01T00:00:00Z" {
			t.Errorf("schema %q generated_at %q", back.Schema, back.GeneratedAt)
		}
		text := Text(b)
		if Text(&back) != text {
			t.Errorf("budget %d: JSON sections joined differ from the text", budget)
		}
		sum := 0
		for _, s := range back.Sections {
			sum += s.Lines
			if s.Lines != strings.Count(s.Text, "\n") {
				t.Errorf("section %s: lines %d", s.ID, s.Lines)
			}
		}
		if sum != back.Budget.Lines {
			t.Errorf("budget %d: sections sum to %d lines, budget.lines %d", budget, sum, back.Budget.Lines)
		}
		_, exc, _ := strings.Cut(text, "## EXCLUDED\n")
		exc, _, _ = strings.Cut(exc, "\n\n")
		var lines []string
		for _, x := range back.Excluded {
			lines = append(lines, "- "+x.Item+" — "+x.Reason)
		}
		if len(lines) == 0 {
			lines = []string{"none"}
		}
		if strings.Join(lines, "\n") != exc {
			t.Errorf("budget %d: EXCLUDED text\n%s\nJSON excluded\n%s", budget, exc, strings.Join(lines, "\n"))
		}
	}
}

// TestEmptySectionsCostNoLines: a section with nothing to say is not in
// the document; only REPOSITORY, EXCLUDED and BUDGET always are.
func TestEmptySectionsCostNoLines(t *testing.T) {
	b := Assemble(Input{Repository: api.BriefRepository{Paths: []string{"src/a.go"}},
		Entries: []*api.Entry{ent("conv", "convention", "active", 2, 1)}, Budget: 100})
	if got := strings.Join(sectionIDs(b), " "); got != "repository conventions excluded budget" {
		t.Errorf("sections %s", got)
	}
	text := Text(b)
	for _, absent := range []string{"## DECISIONS", "## LEARNINGS", "## INCIDENTS", "## REVIEW DUE", "## PREMISES CHANGED", "\nnone\n## "} {
		if strings.Contains(text, absent) {
			t.Errorf("%q in\n%s", absent, text)
		}
	}
	if !strings.Contains(text, "## EXCLUDED\nnone\n") {
		t.Errorf("EXCLUDED does not say none:\n%s", text)
	}
}

// TestLinesFit: no line is longer than MaxLine characters: many paths are
// summarised by directory, long titles, summaries and body lines wrap, and
// the budget counts the wrapped lines.
func TestLinesFit(t *testing.T) {
	var paths []string
	for i := 0; i < 3000; i++ {
		paths = append(paths, fmt.Sprintf("src/module%03d/sub%d/file%d.go", i%412, i%3, i))
	}
	long := strings.Repeat("word ", 90) + strings.Repeat("x", 450)
	e := ent("conv", "convention", "active", 2, 2)
	e.Title, e.Summary, e.Body = "T "+long, sp(long), "para "+long+"\nshort"
	e.ReviewDue = true
	b := Assemble(Input{Repository: api.BriefRepository{Paths: paths, PathsFrom: "changed since main"}, Entries: []*api.Entry{e}, Budget: 300})
	text := Text(b)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for _, l := range lines {
		if n := len([]rune(l)); n > MaxLine {
			t.Errorf("line of %d characters: %.80s…", n, l)
		}
	}
	if len(lines) != b.Budget.Lines {
		t.Errorf("%d lines, budget.lines %d", len(lines), b.Budget.Lines)
	}
	if !strings.Contains(text, "paths   3,000 changed since main in 1,236 directories: src/module") || !strings.Contains(text, "more\n") {
		t.Errorf("paths line:\n%s", lines[5])
	}
	if !strings.Contains(strings.Join(strings.Fields(text), ""), strings.Join(strings.Fields(long), "")) {
		t.Error("the wrapped text lost content")
	}
	if got := pathsLine([]string{"a.go", "b/c.go"}, "given"); got != "paths   2 given: a.go, b/c.go" {
		t.Errorf("short list: %q", got)
	}
}

// TestMeasureMatchesLayout: the fast line count the budget loop uses is
// the laid-out document's, in every drop state.
func TestMeasureMatchesLayout(t *testing.T) {
	for _, arch := range []bool{false, true} {
		es := fixture()
		es[0].ReviewDue = true
		es[2].Premises = []api.Premise{{ID: "old"}}
		a := &assembly{in: Input{Entries: es, Architecture: arch}, repo: api.BriefRepository{Paths: []string{}}, limit: 10}
		a.classify()
		a.fixed()
		var seq []*item
		for g := group(0); g < nGroups; g++ {
			seq = append(seq, a.groups[g]...)
		}
		for _, title := range []bool{false, true} {
			for _, it := range seq {
				if title {
					it.titleDrop = true
				} else {
					it.bodyDropped = true
				}
				if m, l := a.measure(), a.layoutLines(); m != l {
					t.Fatalf("arch %v: measure %d, layout %d", arch, m, l)
				}
			}
		}
	}
}

// A brief in which nothing governs the paths says why in its REPOSITORY
// section (entries without paths, and the command); beside a governing
// entry, or without paths, it says nothing of the kind.
func TestNoteWhenNothingGoverns(t *testing.T) {
	note := "2 decisions have no paths, so they govern no path yet; suggest paths from their history: kontext paths suggest --all"
	in := Input{Repository: api.BriefRepository{Root: "/r", Paths: []string{"src/a.go"}}, Note: note, Budget: 100}
	b := Assemble(in)
	if b.Sections[0].ID != SecRepository || !strings.HasSuffix(b.Sections[0].Text, "note    "+note+"\n\n") {
		t.Errorf("no note in REPOSITORY:\n%s", Text(b))
	}
	if b.Budget.Lines != strings.Count(Text(b), "\n") {
		t.Errorf("lines %d, text has %d", b.Budget.Lines, strings.Count(Text(b), "\n"))
	}
	in.Entries = fixture()[:1]
	if strings.Contains(Text(Assemble(in)), "note ") {
		t.Errorf("note beside a governing entry:\n%s", Text(Assemble(in)))
	}
	in.Entries, in.Repository.Paths = nil, nil
	if strings.Contains(Text(Assemble(in)), "note ") {
		t.Errorf("note without paths:\n%s", Text(Assemble(in)))
	}
	// The note counts against the budget like any fixed line.
	a := &assembly{in: Input{Note: note}, repo: api.BriefRepository{Paths: []string{"a"}}, limit: 10}
	a.classify()
	a.fixed()
	if m, l := a.measure(), a.layoutLines(); m != l || len(a.note) != 1 {
		t.Errorf("measure %d, layout %d, note %q", m, l, a.note)
	}
}
