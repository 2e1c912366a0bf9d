package report

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/api"
)

// Marker is the hidden first line of the pull-request comment: kontext pr
// comment finds its own comment by it and edits it in place.
const Marker = "<!-- kontext:pr-comment -->"

// MaxComment is GitHub's limit for a comment body (65,536 characters); the
// body stays below it, counted in bytes (never fewer than characters).
const MaxComment = 65536

// MaxFilesPerDir is how many files of one directory the comment names.
const MaxFilesPerDir = 30

// Links makes the link to an entry file at the change's head.
type Links func(file string) string

// LinksFor returns links into a web view of the repository at head:
// GitHub's blob view for a github server URL and repository, GitLab's for
// a project URL, else paths relative to the repository root (a rendering
// next to the checkout resolves them).
func LinksFor(githubServer, githubRepo, gitlabProject, head string) Links {
	esc := func(file string) string {
		parts := strings.Split(file, "/")
		for i, p := range parts {
			parts[i] = url.PathEscape(p)
		}
		return strings.Join(parts, "/")
	}
	switch {
	case githubServer != "" && githubRepo != "" && head != "":
		return func(f string) string {
			return strings.TrimSuffix(githubServer, "/") + "/" + githubRepo + "/blob/" + head + "/" + esc(f)
		}
	case gitlabProject != "" && head != "":
		return func(f string) string {
			return strings.TrimSuffix(gitlabProject, "/") + "/-/blob/" + head + "/" + esc(f)
		}
	}
	return esc
}

// Markdown returns the pull-request comment body: a summary, the entries
// the change adds, revises or supersedes, drift, verify state, and per
// changed directory the decisions and conventions that govern it. It is
// deterministic (no clock) and always shorter than MaxComment: when the
// whole does not fit, directories are summarised in one table, and a
// table is always closed before anything is left out.
func Markdown(r *Report, links Links) string {
	var head strings.Builder
	head.WriteString(Marker + "\n")
	head.WriteString("### kontext: the knowledge governing this change\n\n")
	dirs := directories(r)
	governing := map[string]bool{}
	for _, f := range r.Files {
		for _, g := range f.Governing {
			governing[g.ID] = true
		}
	}
	errs, warns, _ := Counts(r.Results)
	if r.Base == "" {
		head.WriteString("No base to compare with: kontext found no drift base (pass `--base`, or fetch with `fetch-depth: 0`).\n\n")
	} else {
		rng := short(r.Base) + ".." + short(r.Head)
		if r.Head == "working" {
			rng = short(r.Base) + "..working tree"
		}
		fmt.Fprintf(&head, "**%s** changed in **%s** (`%s`) · **%s** govern them · **%s** · %s\n\n",
			plural(len(r.Changed), "file", "files"), plural(len(dirs), "directory", "directories"), rng,
			plural(len(governing), "entry", "entries"), plural(len(r.Drift.Entries), "drifted entry", "drifted entries"),
			plural(errs, "error", "errors")+", "+plural(warns, "warning", "warnings"))
	}
	if len(r.Warnings) > 0 {
		// One line, however many revisions (the console shows the same).
		head.WriteString("> **Warning:** " + md(strings.Join(r.Warnings, "; ")) + "\n\n")
	}
	link := func(id string) string {
		en := r.Entries[id]
		if en == nil {
			return md(id)
		}
		text := en.Title
		if en.ADRNumber != nil {
			text = Label(en) + ": " + text
		}
		return "[" + md(clip(text, 120)) + "](" + links(en.File) + ")"
	}

	fixedPart := func(maxRows int) string {
		var fixed strings.Builder
		writeFixed(&fixed, r, link, maxRows)
		return fixed.String()
	}
	// The tables above the directories shrink until they take at most half
	// of the comment.
	fixed := fixedPart(50)
	for _, rows := range []int{20, 5} {
		if head.Len()+len(fixed) <= MaxComment/2 {
			break
		}
		fixed = fixedPart(rows)
	}
	tail := tailPart(dirs, len(r.Changes))

	footer := "\n<sub>Posted by `kontext pr comment`; edited in place on every push. Private entries are never shown.</sub>\n"
	budget := MaxComment - 1024 - head.Len() - len(fixed) - len(tail) - len(footer)

	// Per directory, in full while it fits.
	var body strings.Builder
	if len(dirs) > 0 {
		body.WriteString("#### Rules by changed directory\n\n")
	}
	done := 0
	for _, d := range dirs {
		if len(d.rules) == 0 {
			done++
			continue
		}
		sec := dirSection(d, r, link)
		if body.Len()+len(sec) > budget*3/4 {
			break
		}
		body.WriteString(sec)
		done++
	}
	if done < len(dirs) {
		// The rest, summarised: one row per directory while it fits.
		var rest strings.Builder
		rest.WriteString("| directory | files | governed by |\n| --- | --- | --- |\n")
		shown := 0
		remaining := dirs[done:]
		var left int
		for _, d := range remaining {
			if len(d.rules) == 0 {
				continue
			}
			var ids []string
			for _, g := range d.rules {
				ids = append(ids, md(labelOf(r, g.ID)))
			}
			row := fmt.Sprintf("| `%s` | %s | %s |\n", code(d.dir), commas(len(d.files)), strings.Join(ids, ", "))
			if body.Len()+rest.Len()+len(row) > budget-200 {
				left++
				continue
			}
			rest.WriteString(row)
			shown++
		}
		if shown > 0 {
			body.WriteString("More directories, summarised (the comment is limited to 65,536 characters):\n\n")
			body.WriteString(rest.String())
			body.WriteString("\n")
		}
		if left > 0 {
			fmt.Fprintf(&body, "…and %s more governed directories: run `kontext review` for all of them.\n\n", commas(left))
		}
	}
	out := head.String() + fixed + body.String() + tail + footer
	if len(out) >= MaxComment {
		// Cannot happen with the bounds above; never post a cut comment.
		out = head.String() + "The review of this change does not fit in one comment: run `kontext review` to see it.\n" + footer
	}
	return out
}

// writeFixed writes the tables above the directories: entries changed,
// drift, verify and review state, each at most maxRows rows.
func writeFixed(fixed *strings.Builder, r *Report, link func(string) string, maxRows int) {
	governing := map[string]bool{}
	for _, f := range r.Files {
		for _, g := range f.Governing {
			governing[g.ID] = true
		}
	}
	if len(r.Changes) > 0 {
		changes := SortedChanges(r.Changes)
		fmt.Fprintf(fixed, "#### %s changed by this change\n\n%s\n\n| change | kind | entry | status |\n| --- | --- | --- | --- |\n",
			plural(len(changes), "entry", "entries"), ChangeCounts(changes))
		for i, c := range changes {
			if i == maxRows {
				fmt.Fprintf(fixed, "\n…and %s more: run `kontext review` to see every one.\n", commas(len(changes)-maxRows))
				break
			}
			status := ""
			if c.Status != nil {
				status = md(*c.Status)
			}
			if len(c.SupersededBy) > 0 {
				var by []string
				for _, id := range c.SupersededBy {
					by = append(by, link(id))
				}
				status += " by " + strings.Join(by, ", ")
			}
			if c.Removed {
				status += " (removed)"
			}
			entry := link(c.ID)
			if r.Entries[c.ID] == nil {
				entry = md(c.Title) + " (`" + code(c.File) + "`)"
			}
			fmt.Fprintf(fixed, "| %s | %s | %s | %s |\n", c.Change, md(c.Kind), entry, status)
		}
		fixed.WriteString("\n")
	}
	if len(r.Drift.Entries) > 0 || r.AlwaysOn > 0 {
		fixed.WriteString("#### Drift\n\n")
	}
	if r.AlwaysOn > 0 {
		fixed.WriteString(alwaysOnLine(r) + ".\n\n")
	}
	if len(r.Drift.Entries) > 0 {
		fixed.WriteString("These entries govern files that changed after their last look: re-read them, then `kontext confirm <id>`.\n\n| entry | kind | governed files changed | last look |\n| --- | --- | --- | --- |\n")
		for i, d := range r.Drift.Entries {
			if i == maxRows {
				fmt.Fprintf(fixed, "\n…and %s more.\n", commas(len(r.Drift.Entries)-maxRows))
				break
			}
			look := "never"
			if d.Verification != nil {
				look = md(d.Verification.Kind + " " + d.Verification.At)
			}
			files := make([]string, 0, 3)
			for j, c := range d.Changed {
				if j == 3 {
					files = append(files, fmt.Sprintf("and %s more", commas(len(d.Changed)-3)))
					break
				}
				files = append(files, "`"+code(c)+"`")
			}
			fmt.Fprintf(fixed, "| %s | %s | %s | %s |\n", link(d.ID), md(d.Kind), strings.Join(files, ", "), look)
		}
		fixed.WriteString("\n")
	}
	var verified []*api.Entry
	for id := range governing {
		if en := r.Entries[id]; en != nil && (en.Verify != nil || en.Failing || en.ReviewDue) {
			verified = append(verified, en)
		}
	}
	sort.Slice(verified, func(i, j int) bool { return verified[i].ID < verified[j].ID })
	if len(verified) > 0 {
		fixed.WriteString("#### Verify and review state\n\n| entry | verify | review |\n| --- | --- | --- |\n")
		for i, en := range verified {
			if i == maxRows {
				fmt.Fprintf(fixed, "\n…and %s more.\n", commas(len(verified)-maxRows))
				break
			}
			state := "no verify command"
			switch {
			case en.Failing:
				state = "**failing**"
			case en.Verify != nil && en.LastVerified != nil && en.LastVerified.Passed != nil && *en.LastVerified.Passed:
				state = "passed " + md(en.LastVerified.At)
			case en.Verify != nil:
				state = "not run yet"
			}
			review := "—"
			if en.ReviewDue {
				review = "**due**"
				if en.ReviewBy != nil {
					review += " (" + md(*en.ReviewBy) + ")"
				}
			}
			fmt.Fprintf(fixed, "| %s | %s | %s |\n", link(en.ID), state, review)
		}
		fixed.WriteString("\n")
	}

}

// tailPart is what follows the directories: how many knowledge files
// changed, and the changed files no entry governs, by directory.
func tailPart(dirs []*dirFiles, changes int) string {
	var b strings.Builder
	knowledge, n := 0, 0
	var names []string
	ungoverned := 0
	for _, d := range dirs {
		if len(d.rules) > 0 || d.alwaysOn {
			continue
		}
		files := 0
		for _, f := range d.files {
			if f.Knowledge {
				knowledge++
			} else {
				files++
			}
		}
		if files == 0 {
			continue
		}
		ungoverned++
		n += files
		if len(names) < 10 {
			names = append(names, fmt.Sprintf("`%s` (%d)", code(d.dir), files))
		}
	}
	switch {
	case knowledge > 0 && changes > 0:
		fmt.Fprintf(&b, "Knowledge files changed: %s (the entries they add, revise, supersede or retire are listed above).\n\n", commas(knowledge))
	case knowledge > 0:
		fmt.Fprintf(&b, "Knowledge files changed: %s; no entry was added, revised, superseded or retired by them (a `checked` line, the configuration or a file that holds no entry).\n\n", commas(knowledge))
	}
	if n > 0 {
		line := "Not governed by any entry: " + plural(n, "file", "files") + ": " + strings.Join(names, ", ")
		if more := ungoverned - len(names); more > 0 {
			line += fmt.Sprintf(" and %s more", plural(more, "directory", "directories"))
		}
		b.WriteString(line + ".\n")
	}
	return b.String()
}

type dirFiles struct {
	dir   string
	files []*File
	rules []Governs // distinct entries (first rule that matched, most specific first)
	// alwaysOn: always-on rules govern the directory (not listed in rules)
	alwaysOn bool
	extra    map[string][]string
}

// directories groups the changed files by directory, sorted, with the
// decisions and conventions governing any of their files.
func directories(r *Report) []*dirFiles {
	by := map[string]*dirFiles{}
	var out []*dirFiles
	for _, f := range r.Files {
		d := Dir(f.Path)
		df := by[d]
		if df == nil {
			df = &dirFiles{dir: d, extra: map[string][]string{}}
			by[d] = df
			out = append(out, df)
		}
		df.files = append(df.files, f)
		for _, g := range f.Governing {
			en := r.Entries[g.ID]
			if en == nil || (en.Kind != "decision" && en.Kind != "convention") {
				continue
			}
			if !r.Broad && r.broad[g.ID] {
				df.alwaysOn = true // always-on rules are the drift section's one line
				continue
			}
			if rules, ok := df.extra[g.ID]; ok {
				if !contains(rules, g.Rule) {
					df.extra[g.ID] = append(rules, g.Rule)
				}
				continue
			}
			df.extra[g.ID] = []string{g.Rule}
			df.rules = append(df.rules, g)
		}
	}
	for _, d := range out {
		sort.SliceStable(d.rules, func(i, j int) bool {
			a, b := r.Entries[d.rules[i].ID], r.Entries[d.rules[j].ID]
			if a.Kind != b.Kind {
				return a.Kind == "decision"
			}
			if d.rules[i].Specificity != d.rules[j].Specificity {
				return d.rules[i].Specificity > d.rules[j].Specificity
			}
			return a.ID < b.ID
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

func dirSection(d *dirFiles, r *Report, link func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "##### `%s` — %s\n\n", code(d.dir), plural(len(d.files), "file", "files"))
	var names []string
	for i, f := range d.files {
		if i == MaxFilesPerDir {
			names = append(names, fmt.Sprintf("and %s more", commas(len(d.files)-MaxFilesPerDir)))
			break
		}
		name := f.Path
		if d.dir != "." {
			name = strings.TrimPrefix(f.Path, d.dir+"/")
		}
		names = append(names, "`"+code(name)+"`")
	}
	b.WriteString(strings.Join(names, " · ") + "\n\n")
	b.WriteString("| kind | entry | rule | summary |\n| --- | --- | --- | --- |\n")
	for _, g := range d.rules {
		en := r.Entries[g.ID]
		kind := en.Kind
		if en.Status != nil && *en.Status != "accepted" && *en.Status != "active" {
			kind += " (" + *en.Status + ")"
		}
		var rules []string
		for _, rl := range d.extra[g.ID] {
			rules = append(rules, "`"+code(rl)+"`")
		}
		summary := ""
		if en.Summary != nil {
			summary = md(clip(*en.Summary, 160))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", md(kind), link(g.ID), strings.Join(rules, ", "), summary)
	}
	b.WriteString("\n")
	return b.String()
}

func labelOf(r *Report, id string) string {
	if en := r.Entries[id]; en != nil {
		return Label(en)
	}
	return id
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// changeOrder is the order changes are listed in, here and in the
// review console: added, revised, superseded, deprecated.
var changeOrder = map[string]int{"added": 0, "revised": 1, "superseded": 2, "deprecated": 3}

// SortedChanges returns changes in the order the comment and the review
// console list them: by change (added, revised, superseded, deprecated),
// then by id.
func SortedChanges(changes []api.Change) []api.Change {
	out := append([]api.Change(nil), changes...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := changeOrder[out[i].Change], changeOrder[out[j].Change]
		if a != b {
			return a < b
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ChangeCounts is the one line of counts by change the comment and the
// console both show: "2 added · 1 revised · 1 deprecated".
func ChangeCounts(changes []api.Change) string {
	n := map[string]int{}
	for _, c := range changes {
		n[c.Change]++
	}
	var parts []string
	for _, k := range []string{"added", "revised", "superseded", "deprecated"} {
		if n[k] > 0 {
			parts = append(parts, commas(n[k])+" "+k)
		}
	}
	return strings.Join(parts, " · ")
}

// md escapes text for a Markdown table cell: no line breaks, no pipes, no
// markup, no HTML.
func md(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '!', '~', '&':
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// code makes s safe inside a single-backtick code span in a table cell.
func code(s string) string {
	s = clip(s, 200)
	s = strings.ReplaceAll(s, "`", "'")
	return strings.ReplaceAll(s, "|", "\\|")
}
