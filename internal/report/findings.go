package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// Result is one finding: what it is (Rule), how bad (Level: error,
// warning, notice), where (a changed file, or the entry file for entry
// findings) and which entry it is about.
type Result struct {
	Rule      string `json:"rule"`
	Level     string `json:"level"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Entry     string `json:"entry,omitempty"`
	EntryFile string `json:"entry_file,omitempty"`
	// Specificity is that of the entry's pattern matching File (entry
	// findings at a changed file): the order of findings within a level.
	Specificity int    `json:"specificity,omitempty"`
	Title       string `json:"title"`
	Message     string `json:"message"`
	// Files are the entry's other changed files (at most MaxFiles, in path
	// order; SARIF's related locations) and FileCount all of them,
	// File included: one finding per entry, never one per file.
	Files     []string `json:"files,omitempty"`
	FileCount int      `json:"file_count,omitempty"`
	// Fingerprint is stable across pushes: it hashes the rule and the entry
	// id (an entry finding: one per entry, wherever it is located), else
	// the rule, the file and the message; never a line number or a sha.
	Fingerprint string `json:"fingerprint"`
}

// Rule describes one kind of finding (a SARIF rule, a Code Climate
// check_name).
type Rule struct {
	ID, Name, Short, Help, Level string
}

// Rules are the kinds of findings, in a fixed order. Diagnostic codes the
// table does not name get a rule built from their code (ruleFor).
var Rules = []Rule{
	{"kontext/drift", "GoverningEntryDrifted", "A file of this change is governed by an entry that drifted",
		"The files this entry governs changed after its last look (an edit of the entry, a confirmation or a passed verify). Re-read the entry against the change: if it still holds, run `kontext confirm <id>`; if not, revise or supersede it.", "warning"},
	{"kontext/failing-verify", "GoverningVerifyFails", "A file of this change is governed by an entry whose verify fails",
		"The entry's pinned verify command failed or timed out on its last run. Fix the code or the rule, then run `kontext verify <id>`.", "error"},
	{"kontext/review-due", "GoverningReviewDue", "A file of this change is governed by an entry due for review",
		"The entry's review_by date has passed. Re-read it and confirm it (`kontext confirm <id>`), or revise, supersede or retire it.", "warning"},
	{"kontext/no-drift-base", "NoDriftBase", "No drift base: nothing to compare against",
		"kontext found no base to measure drift from (no origin/HEAD, origin/main, upstream or default remote; or a shallow clone). Pass --base, fetch with fetch-depth: 0, or set GITHUB_BASE_REF.", "warning"},
	{"kontext/duplicate_number", "DuplicateADRNumber", "Two ADRs use the same number",
		"Two records carry the same ADR number, so a reference by number is ambiguous. Renumber the newer one (kontext new picks a free number).", "warning"},
	{"kontext/supersede_mismatch", "SupersedeMismatch", "A supersede link is not reciprocal",
		"One record says it supersedes another, but the other does not say it is superseded (or names another successor). Run `kontext repair` to restore the reciprocal metadata, or fix the link.", "warning"},
	{"kontext/governs", "GovernedFile", "Decisions and conventions govern this file",
		"The decisions and conventions listed govern this file of the change (with the glob that matched). A reviewer can check the change against them; `kontext governing <path>` shows them in full.", "note"},
}

var diagnosticHelp = "kontext read this knowledge file and found a problem (the message says what and where). Fix the file; `kontext ci` lists every diagnostic."

// ruleFor returns the rule with id, or one built for a diagnostic code.
func ruleFor(id string) Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	if r, ok := lintRule(id); ok {
		return r
	}
	code := strings.TrimPrefix(id, "kontext/")
	name := ""
	for _, w := range strings.Split(code, "_") {
		if w != "" {
			name += strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return Rule{ID: id, Name: name, Short: "Knowledge diagnostic: " + strings.ReplaceAll(code, "_", " "), Help: diagnosticHelp, Level: "warning"}
}

var levelRank = map[string]int{"error": 0, "warning": 1, "notice": 2}

// findings builds the results of the report, most severe first, then by
// file, rule and entry.
func findings(r *Report, notice bool) []Result {
	var out []Result
	add := func(res Result) {
		if res.Fingerprint == "" {
			res.Fingerprint = fingerprint(res.Rule, res.File, res.Entry)
		}
		out = append(out, res)
	}
	inChange := map[string]bool{}
	for _, p := range r.Changed {
		inChange[p] = true
	}
	// Entry findings: one per entry, at its most specific changed governed
	// file (GitHub shows an alert in a pull request only on lines of the
	// diff, and the entry's own file is not in it), naming the others; at
	// the entry file when no changed file is left.
	entryFinding := func(rule, level, id, title, what string, files []string, total int, atBest bool) {
		en := r.Entries[id]
		if en == nil {
			return
		}
		res := Result{Rule: rule, Level: level, File: en.File, Entry: id, EntryFile: en.File, Title: title + ": " + Label(en),
			Fingerprint: fingerprint(rule, id), FileCount: total}
		if len(files) > 0 {
			res.File = files[0]
			if g := r.Governed[id]; g != nil && atBest {
				res.File, res.Specificity = g.Best, g.Specificity
			}
			for _, f := range files {
				if f != res.File && len(res.Files) < MaxFiles {
					res.Files = append(res.Files, f)
				}
			}
		}
		res.Message = fmt.Sprintf("%s %q (%s) %s", Label(en), en.Title, en.Kind, what)
		if total > 1 {
			res.Message += " Changed: " + fileList(res.File, res.Files, total) + "."
		}
		add(res)
	}
	for _, d := range r.Drift.Entries {
		en := r.Entries[d.ID]
		if en == nil {
			continue
		}
		// The changed files of the finding (in the change when scoped):
		// counted, and the first MaxFiles+1 kept.
		var files []string
		total := 0
		for _, c := range d.Changed {
			if !r.Scoped || inChange[c] {
				total++
				if len(files) <= MaxFiles {
					files = append(files, c)
				}
			}
		}
		if r.Scoped && total == 0 {
			continue
		}
		g := r.Governed[d.ID]
		atBest := false
		if g != nil && g.Best != "" {
			i := sort.SearchStrings(d.Changed, g.Best) // d.Changed is sorted
			atBest = i < len(d.Changed) && d.Changed[i] == g.Best
		}
		look := "never looked at"
		if d.Verification != nil {
			look = fmt.Sprintf("last look: %s %s", d.Verification.Kind, d.Verification.At)
		}
		entryFinding("kontext/drift", "warning", d.ID, "Drifted",
			fmt.Sprintf("drifted: %s changed since its last look (%s). Re-read it; if it still holds, run kontext confirm %s.",
				plural(len(d.Changed), "governed file", "governed files"), look, d.ID), files, total, atBest)
	}
	ids := make([]string, 0, len(r.Entries))
	for id := range r.Entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		en := r.Entries[id]
		var files []string
		total := 0
		if g := r.Governed[id]; g != nil {
			files, total = g.Files, g.Count
		}
		if r.Scoped && len(files) == 0 {
			continue
		}
		if en.Failing {
			entryFinding("kontext/failing-verify", "error", id, "Verify fails",
				fmt.Sprintf("%sits verify command fails. Fix the code or the rule, then run kontext verify %s.", governsAnd(total), id), files, total, true)
		}
		if en.ReviewDue {
			by := ""
			if en.ReviewBy != nil {
				by = " (review by " + *en.ReviewBy + ")"
			}
			entryFinding("kontext/review-due", "warning", id, "Review due",
				fmt.Sprintf("%sis due for review%s. Re-read it and run kontext confirm %s, or revise it.", governsAnd(total), by, id), files, total, true)
		}
	}
	for _, d := range r.Diagnostics {
		level := "warning"
		if d.Severity == "error" {
			level = "error"
		}
		add(Result{Rule: "kontext/" + d.Code, Level: level, File: d.File, Line: d.Line, Title: "kontext: " + strings.ReplaceAll(d.Code, "_", " "), Message: d.Message,
			Fingerprint: fingerprint("kontext/"+d.Code, d.File, d.Message)})
	}
	if !r.Scoped && r.Drift.BaseSource == "fallback-none" {
		msg := "No drift base was found, so drift could not be measured."
		if r.Drift.Warning != "" {
			msg += " " + r.Drift.Warning
		}
		add(Result{Rule: "kontext/no-drift-base", Level: "warning", Title: "kontext: no drift base", Message: msg})
	}
	if notice {
		for _, f := range r.Files {
			var parts []string
			for _, g := range f.Governing {
				en := r.Entries[g.ID]
				if en == nil || (en.Kind != "decision" && en.Kind != "convention") {
					continue
				}
				parts = append(parts, fmt.Sprintf("%s %s %q (rule %s, %s)", en.Kind, Label(en), en.Title, g.Rule, en.File))
			}
			if len(parts) == 0 {
				continue
			}
			add(Result{Rule: "kontext/governs", Level: "notice", File: f.Path, Title: "kontext: " + plural(len(parts), "rule governs", "rules govern") + " this file",
				Message: strings.Join(parts, "; ")})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if levelRank[a.Level] != levelRank[b.Level] {
			return levelRank[a.Level] < levelRank[b.Level]
		}
		if a.Specificity != b.Specificity {
			return a.Specificity > b.Specificity // the most specific first
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Entry < b.Entry
	})
	return out
}

// fileList names a finding's changed files: its location first, then
// the others it holds, and how many more there are of total.
func fileList(first string, others []string, total int) string {
	names := append([]string{first}, others...)
	if len(names) > 5 {
		names = names[:5]
	}
	s := strings.Join(names, ", ")
	if more := total - len(names); more > 0 {
		s += fmt.Sprintf(" and %s more", commas(more))
	}
	return s
}

// governsAnd says how many changed files an entry governs, before what
// is wrong with it ("" when it governs none: a finding at the entry file).
func governsAnd(n int) string {
	if n == 0 {
		return ""
	}
	return "governs " + plural(n, "file", "files") + " of this change and "
}

// fingerprint is the stable identity of a finding across pushes.
func fingerprint(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// Counts returns the findings per level, notices apart.
func Counts(results []Result) (errors, warnings, notices int) {
	for _, r := range results {
		switch r.Level {
		case "error":
			errors++
		case "warning":
			warnings++
		default:
			notices++
		}
	}
	return
}
