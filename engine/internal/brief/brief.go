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
	"path"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

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
	// Note says why no entry governs the paths when that is so (entries
	// without paths, engine.UnscopedNote): a line of the REPOSITORY
	// section, never shown beside a governing entry.
	Note string
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
	// Lines of its EXCLUDED line when its body or its title is dropped.
	exclBody, exclTitle int
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
	a.fixed()

	// The drop sequence: bodies in the drop order (least specific first
	// within a group), then titles in the same order. The shortest prefix
	// of it that fits is taken, then every dropped body that fits is taken
	// back (dropping a short body costs its EXCLUDED line and a
	// "kontext show" line, so fitting is not monotone in the prefix).
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
	// The prefix may drop more than it must: a long body dropped late
	// makes room for the short ones dropped before it. Every dropped body
	// that fits is taken back, most important first. Titles come before
	// any body: once one is dropped, no body is taken back (and a title
	// taken back would be the prefix one shorter, which did not fit).
	// Taking back a one-line body saves a line, so passes repeat until
	// one takes nothing back.
	a.dropped = k
	for again := k > 0 && !seq[k-1].title; again; {
		again = false
		for i := k - 1; i >= 0; i-- {
			if it := seq[i].it; it.bodyDropped {
				if it.bodyDropped = false; a.measure() <= limit {
					a.dropped--
					again = true
				} else {
					it.bodyDropped = true
				}
			}
		}
	}
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

	// Computed once (fixed): they do not change with the drops.
	pathsLine  string
	note       []string // the REPOSITORY note, when nothing governs
	due, prem  []string // REVIEW DUE and PREMISES CHANGED lines
	notInLines int      // lines of the notIn items under EXCLUDED
	fixedLines int      // REPOSITORY, REVIEW DUE, PREMISES CHANGED, BUDGET with separators
	archShown  bool
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
	lines := append(wrap(title), wrap(meta)...)
	if e.Summary != nil && strings.TrimSpace(*e.Summary) != "" {
		lines = append(lines, wrap(oneLine(*e.Summary))...)
	}
	return lines
}

// MaxLine is the longest line of the document, in characters: a longer
// line is wrapped (at a space when there is one), so a line budget bounds
// the bytes too.
const MaxLine = 200

// wrap splits l into lines of at most MaxLine characters.
func wrap(l string) []string {
	if utf8.RuneCountInString(l) <= MaxLine {
		return []string{l}
	}
	var out []string
	r := []rune(l)
	for len(r) > MaxLine {
		cut := MaxLine
		for i := MaxLine; i > MaxLine/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, strings.TrimRight(string(r[:cut]), " "))
		r = r[cut:]
		for len(r) > 0 && r[0] == ' ' && cut != MaxLine {
			r = r[1:]
		}
	}
	return append(out, string(r))
}

// wrapAll wraps every line of ls.
func wrapAll(ls []string) []string {
	var out []string
	for _, l := range ls {
		out = append(out, wrap(l)...)
	}
	return out
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
	return wrapAll(lines)
}

// fixed computes what the drops never change: the REPOSITORY paths line,
// the REVIEW DUE and PREMISES CHANGED lines, the lines of the entries not
// in force under EXCLUDED.
func (a *assembly) fixed() {
	a.pathsLine = pathsLine(a.repo.Paths, a.repo.PathsFrom)
	for _, it := range a.order {
		e := it.e
		if e.ReviewDue {
			by := ""
			if e.ReviewBy != nil {
				by = " (review by " + *e.ReviewBy + ")"
			}
			a.due = append(a.due, wrap(fmt.Sprintf("- %s%s: %s", e.ID, by, oneLine(e.Title)))...)
		}
		for _, p := range e.Premises {
			what := "inactive"
			if p.Status != nil {
				what = *p.Status
			}
			if len(p.SupersededBy) > 0 {
				what += " by " + strings.Join(p.SupersededBy, ", ")
			}
			a.prem = append(a.prem, wrap(fmt.Sprintf("- %s relies on %s, now %s", e.ID, p.ID, what))...)
		}
		it.exclBody = len(wrap(excludedLine(it.e.ID, bodyReason(it))))
		it.exclTitle = len(wrap(excludedLine(it.e.ID, titleReason(it))))
	}
	for _, x := range a.notIn {
		a.notInLines += len(wrap(excludedLine(x.Item, x.Reason)))
	}
	a.fixedLines = 7 + 2 // REPOSITORY (6 + blank), BUDGET (2)
	if a.in.Note != "" && len(a.order) == 0 && len(a.notIn) == 0 && len(a.repo.Paths) > 0 {
		a.note = wrap("note    " + oneLine(a.in.Note))
		a.fixedLines += len(a.note)
	}
	if len(a.due) > 0 {
		a.fixedLines += 2 + len(a.due)
	}
	if len(a.prem) > 0 {
		a.fixedLines += 2 + len(a.prem)
	}
}

func excludedLine(item, reason string) string { return fmt.Sprintf("- %s — %s", item, reason) }

func titleReason(it *item) string {
	return fmt.Sprintf("%s left out for the budget (title and body): kontext show %s", kindLabel(it.g), it.e.ID)
}

func bodyReason(it *item) string {
	return fmt.Sprintf("%s body left out for the budget (%d lines)", kindLabel(it.g), len(it.body))
}

// pathsLine is the REPOSITORY line naming the paths: the paths themselves
// when they fit on one line, else a summary by directory, most files
// first ("3,000 changed since main in 412 directories: src/billing (120),
// … and 400 more").
func pathsLine(paths []string, from string) string {
	if from == "" {
		from = "given"
	}
	head := fmt.Sprintf("paths   %s %s: ", commas(len(paths)), from)
	if len(paths) == 0 {
		return head + "none"
	}
	if l := head + strings.Join(paths, ", "); utf8.RuneCountInString(l) <= MaxLine {
		return l
	}
	count := map[string]int{}
	for _, p := range paths {
		d := path.Dir(p)
		count[d]++
	}
	dirs := make([]string, 0, len(count))
	for d := range count {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool {
		if count[dirs[i]] != count[dirs[j]] {
			return count[dirs[i]] > count[dirs[j]]
		}
		return dirs[i] < dirs[j]
	})
	head = fmt.Sprintf("paths   %s %s in %s %s: ", commas(len(paths)), from, commas(len(dirs)), plural(len(dirs), "directory", "directories"))
	line := head
	for i, d := range dirs {
		part := fmt.Sprintf("%s (%s)", d, commas(count[d]))
		if i > 0 {
			part = ", " + part
		}
		rest := len(dirs) - i - 1
		tail := ""
		if rest > 0 {
			tail = fmt.Sprintf(", … and %s more", commas(rest))
		}
		if utf8.RuneCountInString(line+part+tail) > MaxLine {
			more := fmt.Sprintf("… and %s more", commas(len(dirs)-i))
			if i > 0 {
				more = ", " + more
			}
			if utf8.RuneCountInString(line+more) > MaxLine { // a directory name longer than the line
				return strings.TrimSuffix(head, ": ") + ": (directory names too long to list)"
			}
			return line + more
		}
		line += part
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// commas formats n with thousands separators (3,000).
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// entrySections are the entry sections in document order.
var entrySections = []struct {
	id, heading string
	groups      []group
}{
	{SecDecisions, "## DECISIONS", []group{gDecision, gProposed}},
	{SecConventions, "## CONVENTIONS", []group{gConvention}},
	{SecLearnings, "## LEARNINGS", []group{gLearning}},
	{SecIncidents, "## INCIDENTS", []group{gIncident}},
	{SecArchitecture, "## ARCHITECTURE", []group{gArchitecture}},
}

// layout returns the sections (id, heading and lines, without the blank
// separator) and the excluded items of the current drop state. A section
// with nothing to say is left out (it costs no lines), except REPOSITORY,
// EXCLUDED ("none": nothing was cut) and BUDGET.
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
	ids := []string{SecRepository}
	secs := [][]string{{
		"## REPOSITORY",
		oneCut("root    " + r.Root),
		oneCut("branch  " + branch),
		"HEAD    " + head,
		"dirty   " + dirty,
		a.pathsLine,
	}}
	secs[0] = append(secs[0], a.note...)

	for _, es := range entrySections {
		if es.id == SecArchitecture && !a.in.Architecture {
			continue
		}
		lines := []string{es.heading}
		shown, cut := 0, 0
		for _, g := range es.groups {
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
		if shown == 0 && cut == 0 {
			continue // nothing governs here: no lines
		}
		if cut > 0 {
			lines = append(lines, fmt.Sprintf("(%d more left out for the budget: see EXCLUDED)", cut))
		}
		ids = append(ids, es.id)
		secs = append(secs, lines)
	}

	var excluded []api.BriefExcluded
	for _, it := range a.order {
		if it.titleDrop {
			excluded = append(excluded, api.BriefExcluded{Item: it.e.ID, Reason: titleReason(it)})
		} else if it.bodyDropped {
			excluded = append(excluded, api.BriefExcluded{Item: it.e.ID, Reason: bodyReason(it)})
		}
	}
	excluded = append(excluded, a.notIn...)
	if len(a.due) > 0 {
		ids = append(ids, SecReviewDue)
		secs = append(secs, append([]string{"## REVIEW DUE"}, a.due...))
	}
	if len(a.prem) > 0 {
		ids = append(ids, SecPremises)
		secs = append(secs, append([]string{"## PREMISES CHANGED"}, a.prem...))
	}
	exc := []string{"## EXCLUDED"}
	for _, x := range excluded {
		exc = append(exc, wrap(excludedLine(x.Item, x.Reason))...)
	}
	if len(excluded) == 0 {
		exc = append(exc, "none")
	}
	bud := fmt.Sprintf("%d of %d lines; %d dropped", total, a.limit, a.dropped)
	if total > a.limit {
		bud += "; over budget: nothing left to drop"
	}
	ids = append(ids, SecExcluded, SecBudget)
	secs = append(secs, exc, []string{"## BUDGET", bud})
	return ids, secs, excluded
}

// oneCut shortens a line that has no place to wrap to (the root path).
func oneCut(l string) string {
	if r := []rune(l); len(r) > MaxLine {
		return string(r[:MaxLine-1]) + "…"
	}
	return l
}

func kindLabel(g group) string {
	return [...]string{"architecture", "incident", "learning", "convention", "proposed decision", "decision"}[g]
}

// measure counts the lines of the document in the current drop state
// (every section plus its blank separator, except after the last) without
// building it: the fitting loop calls it once per drop, so it costs a pass
// over the items, never over the paths or the text. layoutLines is the
// reference it must equal (tested).
func (a *assembly) measure() int {
	n := a.fixedLines
	exc := a.notInLines
	for _, es := range entrySections {
		if es.id == SecArchitecture && !a.in.Architecture {
			continue
		}
		lines, shown, cut := 1, 0, 0
		for _, g := range es.groups {
			gl := 0
			for _, it := range a.groups[g] {
				if it.titleDrop {
					cut++
					exc += it.exclTitle
					continue
				}
				gl += len(it.head)
				if it.bodyDropped {
					gl++
					exc += it.exclBody
				} else {
					gl += len(it.body)
				}
				shown++
			}
			if g == gProposed && gl > 0 {
				lines++
			}
			lines += gl
		}
		if shown == 0 && cut == 0 {
			continue
		}
		if cut > 0 {
			lines++
		}
		n += lines + 1
	}
	if exc == 0 {
		exc = 1 // "none"
	}
	return n + 1 + exc + 1 // EXCLUDED heading, its lines, separator
}

// layoutLines counts the lines of the laid-out document.
func (a *assembly) layoutLines() int {
	_, secs, _ := a.layout(0)
	n := -1
	for _, s := range secs {
		n += len(s) + 1
	}
	return n
}

func (a *assembly) render() *api.Brief {
	total := a.layoutLines()
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
