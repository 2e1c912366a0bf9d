// Package brief assembles the document of `kontext brief` (schema
// kontext.brief/v1): the knowledge that governs a set of paths, in the
// fixed authority order (README "Briefs for agents and reviewers"), cut to a line budget, with
// every item it left out named under EXCLUDED.
//
// It owns the document's shape (sections, entry items, the EXCLUDED and
// BUDGET sections), the authority order, the classification of governing
// entries (rule, proposed, not in force) and the budget's drop order. It
// reads nothing itself: the caller hands it the repository facts and the
// entries of an entries.governing result, so the same assembly serves
// every surface and is tested without a repository.
package brief

import (
	"fmt"
	"strings"
	"time"

	"github.com/kontext/kontext/engine/api"
)

// Schema is the schema name of the JSON document.
const Schema = "kontext.brief/v1"

// DefaultBudget is the budget in lines when none is given (the default of
// the committed config's [brief] budget_lines).
const DefaultBudget = 300

// Section ids, in the authority order.
const (
	SecRepository   = "repository"
	SecDecisions    = "decisions"
	SecConventions  = "conventions"
	SecLearnings    = "learnings"
	SecIncidents    = "incidents"
	SecArchitecture = "architecture"
	SecReviewDue    = "review_due"
	SecPremises     = "premises_changed"
	SecExcluded     = "excluded"
	SecBudget       = "budget"
)

// Input is everything Assemble needs.
type Input struct {
	Repository api.BriefRepository
	// Entries are the entries of an entries.governing result for
	// Repository.Paths, in its order (most specific first).
	Entries      []*api.Entry
	Budget       int  // lines; 0 or less means DefaultBudget
	Architecture bool // include the ARCHITECTURE section
	GeneratedAt  time.Time
}

// Text is the text rendering: the sections' texts in order.
func Text(b *api.Brief) string {
	var sb strings.Builder
	for _, s := range b.Sections {
		sb.WriteString(s.Text)
	}
	return sb.String()
}

// group is where an entry goes.
type group int

const (
	gArchitecture group = iota // drop order: lowest authority first
	gIncident
	gLearning
	gConvention
	gProposed
	gDecision
	nGroups
)

var groupOfKind = map[string]group{
	"architecture": gArchitecture, "incident": gIncident, "learning": gLearning,
	"convention": gConvention, "decision": gDecision,
}

// item is one entry shown in a section.
type item struct {
	e           *api.Entry
	g           group
	head        []string // title, meta and summary lines
	body        []string // body lines ("" none)
	bodyDropped bool
	titleDrop   bool
}

// step is one drop of the budget: a body or a title.
type step struct {
	it    *item
	title bool
}

// Assemble builds the brief of in.
func Assemble(in Input) *api.Brief {
	limit := in.Budget
	if limit <= 0 {
		limit = DefaultBudget
	}
	repo := in.Repository
	if repo.Paths == nil {
		repo.Paths = []string{}
	}
	a := &assembly{in: in, repo: repo, limit: limit}
	a.classify()

	// The drop sequence: bodies in the drop order (least specific first
	// within a group), then titles in the same order. The document is the
	// shortest prefix of it that fits; dropping a short body can cost a
	// line (its EXCLUDED line), so fitting is not monotone in the prefix.
	var seq []step
	for _, title := range []bool{false, true} {
		for g := group(0); g < nGroups; g++ {
			items := a.groups[g]
			for i := len(items) - 1; i >= 0; i-- {
				if !title && len(items[i].body) == 0 {
					continue
				}
				seq = append(seq, step{items[i], title})
			}
		}
	}
	k := 0
	for ; k < len(seq); k++ {
		if a.measure() <= limit {
			break
		}
		s := seq[k]
		if s.title {
			s.it.titleDrop = true
		} else {
			s.it.bodyDropped = true
		}
	}
	a.dropped = k
	return a.render()
}

type assembly struct {
	in      Input
	repo    api.BriefRepository
	limit   int
	groups  [nGroups][]*item
	order   []*item             // every shown item in document order
	notIn   []api.BriefExcluded // left out for a reason other than the budget
	dropped int
}

var inactive = map[string]bool{"superseded": true, "deprecated": true, "rejected": true}

// classify puts every governing entry into its group or the excluded list.
func (a *assembly) classify() {
	for _, e := range a.in.Entries {
		status := ""
		if e.Status != nil {
			status = strings.ToLower(*e.Status)
		}
		g, known := groupOfKind[e.Kind]
		switch {
		case !known:
			a.notIn = append(a.notIn, api.BriefExcluded{Item: e.ID, Reason: fmt.Sprintf("unknown kind %q", e.Kind)})
			continue
		case inactive[status]:
			r := fmt.Sprintf("%s: not in force", status)
			if len(e.SupersededBy) > 0 {
				r = fmt.Sprintf("superseded by %s: not in force", strings.Join(e.SupersededBy, ", "))
			}
			a.notIn = append(a.notIn, api.BriefExcluded{Item: e.ID, Reason: r})
			continue
		case e.Visibility == "private":
			a.notIn = append(a.notIn, api.BriefExcluded{Item: e.ID, Reason: "private entry: not a team rule"})
			continue
		case g == gDecision && !e.Authority:
			g = gProposed // proposed (or no status yet): listed as proposed, never as a rule
		case !e.Authority:
			a.notIn = append(a.notIn, api.BriefExcluded{Item: e.ID, Reason: "no authority: not a rule"})
			continue
		case g == gArchitecture && !a.in.Architecture:
			a.notIn = append(a.notIn, api.BriefExcluded{Item: e.ID, Reason: "architecture note: not asked for (kontext brief --architecture)"})
			continue
		}
		it := &item{e: e, g: g, head: headLines(e, g), body: bodyLines(e.Body)}
		a.groups[g] = append(a.groups[g], it)
	}
	for _, g := range []group{gDecision, gProposed, gConvention, gLearning, gIncident, gArchitecture} {
		a.order = append(a.order, a.groups[g]...)
	}
}

func headLines(e *api.Entry, g group) []string {
	title := fmt.Sprintf("### %s (%s)", oneLine(e.Title), e.ID)
	status := "-"
	if e.Status != nil {
		status = *e.Status
	}
	if g == gProposed {
		title = fmt.Sprintf("### [%s, not a rule] %s (%s)", status, oneLine(e.Title), e.ID)
	}
	var rules []string
	seen := map[string]bool{}
	for _, m := range e.Matches {
		if !seen[m.Rule] {
			seen[m.Rule] = true
			rules = append(rules, fmt.Sprintf("%s (specificity %d)", m.Rule, m.Specificity))
		}
	}
	meta := fmt.Sprintf("%s · %s", e.Kind, status)
	if len(rules) > 0 {
		meta += " · " + strings.Join(rules, ", ")
	}
	if e.ReviewDue {
		meta += " · review due"
	}
	lines := []string{title, meta}
	if e.Summary != nil && strings.TrimSpace(*e.Summary) != "" {
		lines = append(lines, oneLine(*e.Summary))
	}
	return lines
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// bodyLines are the body's lines without leading and trailing blank lines;
// headings outside code fences are demoted below the item's level so they
// cannot read as a section of the brief.
func bodyLines(body string) []string {
	body = strings.Trim(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	if strings.TrimSpace(body) == "" {
		return nil
	}
	lines := strings.Split(body, "\n")
	fence := false
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		t := strings.TrimLeft(l, " ")
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(l, "#") {
			if n := len(l) - len(strings.TrimLeft(l, "#")); n < 4 && (len(l) == n || l[n] == ' ') {
				l = strings.Repeat("#", 4-n) + l
			}
		}
		lines[i] = l
	}
	return lines
}

// layout returns the sections (id, heading and lines, without the blank
// separator) and the excluded items of the current drop state.
func (a *assembly) layout(total int) ([]string, [][]string, []api.BriefExcluded) {
	r := a.repo
	branch := r.Branch
	if branch == "" {
		branch = "(detached or no git)"
	}
	head := r.Head
	if head == "" {
		head = "(no commits)"
	}
	dirty := "no"
	if r.Dirty {
		dirty = "yes (uncommitted changes)"
	}
	paths := "none"
	if len(r.Paths) > 0 {
		paths = strings.Join(r.Paths, ", ")
	}
	from := r.PathsFrom
	if from == "" {
		from = "given"
	}
	ids := []string{SecRepository}
	secs := [][]string{{
		"## REPOSITORY",
		"root    " + r.Root,
		"branch  " + branch,
		"HEAD    " + head,
		"dirty   " + dirty,
		fmt.Sprintf("paths   %d %s: %s", len(r.Paths), from, paths),
	}}

	var excluded []api.BriefExcluded
	entrySection := func(id, heading string, groups ...group) {
		lines := []string{heading}
		shown, cut := 0, 0
		for _, g := range groups {
			var gl []string
			for _, it := range a.groups[g] {
				if it.titleDrop {
					cut++
					continue
				}
				gl = append(gl, it.head...)
				if it.bodyDropped {
					gl = append(gl, "kontext show "+it.e.ID)
				} else {
					gl = append(gl, it.body...)
				}
				shown++
			}
			if g == gProposed && len(gl) > 0 {
				lines = append(lines, "Proposed (not rules):")
			}
			lines = append(lines, gl...)
		}
		switch {
		case shown == 0 && cut == 0:
			lines = append(lines, "none")
		case cut > 0:
			lines = append(lines, fmt.Sprintf("(%d more left out for the budget: see EXCLUDED)", cut))
		}
		ids = append(ids, id)
		secs = append(secs, lines)
	}
	entrySection(SecDecisions, "## DECISIONS", gDecision, gProposed)
	entrySection(SecConventions, "## CONVENTIONS", gConvention)
	entrySection(SecLearnings, "## LEARNINGS", gLearning)
	entrySection(SecIncidents, "## INCIDENTS", gIncident)
	if a.in.Architecture {
		entrySection(SecArchitecture, "## ARCHITECTURE", gArchitecture)
	}

	due := []string{"## REVIEW DUE"}
	prem := []string{"## PREMISES CHANGED"}
	for _, it := range a.order {
		e := it.e
		if e.ReviewDue {
			by := ""
			if e.ReviewBy != nil {
				by = " (review by " + *e.ReviewBy + ")"
			}
			due = append(due, fmt.Sprintf("- %s%s: %s", e.ID, by, oneLine(e.Title)))
		}
		for _, p := range e.Premises {
			what := "inactive"
			if p.Status != nil {
				what = *p.Status
			}
			if len(p.SupersededBy) > 0 {
				what += " by " + strings.Join(p.SupersededBy, ", ")
			}
			prem = append(prem, fmt.Sprintf("- %s relies on %s, now %s", e.ID, p.ID, what))
		}
		if it.titleDrop {
			excluded = append(excluded, api.BriefExcluded{Item: e.ID, Reason: fmt.Sprintf("%s left out for the budget (title and body): kontext show %s", kindLabel(it.g), e.ID)})
		} else if it.bodyDropped {
			excluded = append(excluded, api.BriefExcluded{Item: e.ID, Reason: fmt.Sprintf("%s body left out for the budget (%d lines)", kindLabel(it.g), len(it.body))})
		}
	}
	excluded = append(excluded, a.notIn...)
	if len(due) == 1 {
		due = append(due, "none")
	}
	if len(prem) == 1 {
		prem = append(prem, "none")
	}
	exc := []string{"## EXCLUDED"}
	for _, x := range excluded {
		exc = append(exc, fmt.Sprintf("- %s — %s", x.Item, x.Reason))
	}
	if len(excluded) == 0 {
		exc = append(exc, "none")
	}
	bud := fmt.Sprintf("%d of %d lines; %d dropped", total, a.limit, a.dropped)
	if total > a.limit {
		bud += "; over budget: nothing left to drop"
	}
	ids = append(ids, SecReviewDue, SecPremises, SecExcluded, SecBudget)
	secs = append(secs, due, prem, exc, []string{"## BUDGET", bud})
	return ids, secs, excluded
}

func kindLabel(g group) string {
	return [...]string{"architecture", "incident", "learning", "convention", "proposed decision", "decision"}[g]
}

// measure counts the lines of the document in the current drop state:
// every section plus its blank separator, except after the last.
func (a *assembly) measure() int {
	_, secs, _ := a.layout(0)
	n := -1
	for _, s := range secs {
		n += len(s) + 1
	}
	return n
}

func (a *assembly) render() *api.Brief {
	total := a.measure()
	ids, secs, excluded := a.layout(total)
	b := &api.Brief{
		Schema: Schema, GeneratedAt: a.in.GeneratedAt.UTC().Format(time.RFC3339),
		Repository: a.repo, Excluded: excluded,
		Budget: api.BriefBudget{Lines: total, Limit: a.limit, Dropped: a.dropped},
	}
	if b.Excluded == nil {
		b.Excluded = []api.BriefExcluded{}
	}
	for i, s := range secs {
		if i < len(secs)-1 {
			s = append(s, "")
		}
		b.Sections = append(b.Sections, api.BriefSection{ID: ids[i], Lines: len(s), Text: strings.Join(s, "\n") + "\n"})
	}
	// Still over with nothing left to drop: said in the document (the CLI
	// exits 10 on it).
	b.OverBudget = b.Budget.Lines > b.Budget.Limit
	return b
}
