package report

import (
	"context"
	"fmt"
	"sort"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

// lintRules are the kinds of rules.lint findings: notes in every format,
// never counted by --fail-on (drift or any). They are declared only where
// a report has one, so reports without them are unchanged.
var lintRules = []Rule{
	{"kontext/conflicting_rules", "ConflictingRules", "Two agent rule files that apply to the same files contradict each other",
		"Both files govern some of the same paths and state different values of one checkable fact (a package manager or test runner, a version, always/never on the same phrase). Agents read both; decide which holds and edit the other. `kontext lint` lists every finding.", "note"},
	{"kontext/never_loaded", "NeverLoadedRule", "An agent rule file a client never loads",
		"The client named will not put this file into context: Codex's AGENTS.md chain is cut at its byte budget before it, a manual Cursor rule that no rule file mentions, or a Copilot file excluded from code review. Move what matters into a file the client reads. `kontext lint` lists every finding.", "note"},
	{"kontext/duplicate_rule", "DuplicateRule", "The same instruction is in several agent rule files",
		"The paragraph is written word for word in several rule files; a client that reads two of them pays for it twice, and every edit must be made in each. Keep it in one file. `kontext lint` lists every finding.", "note"},
	{"kontext/near_duplicate_rule", "NearDuplicateRule", "Nearly the same instruction in two agent rule files",
		"Two rule files that apply to the same files say nearly the same thing in different words (word-bigram similarity at or above the documented threshold). Keep one wording in one file. `kontext lint` lists every finding.", "note"},
}

// lintRule is the lint rule with id, if it is one.
func lintRule(id string) (Rule, bool) {
	for _, r := range lintRules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// IsLint reports whether rule is a rules.lint finding's.
func IsLint(rule string) bool {
	_, ok := lintRule(rule)
	return ok
}

// lintResults are rules.lint's findings as results at level notice, each
// at its first location; with a change (scoped), only those with a
// location in it.
func lintResults(ctx context.Context, head *engine.Engine, scoped bool, changed map[string]bool) ([]Result, error) {
	if scoped {
		// A finding is located only at rule files: a change that touches
		// none (nor the configuration, which says what is read) has none,
		// and the comparison of every rule file is not run for it.
		touched, err := touchesRuleFiles(ctx, head, changed)
		if err != nil || !touched {
			return nil, err
		}
	}
	res, err := head.Lint(ctx, &api.LintInput{})
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, f := range res.Findings {
		if len(f.Locations) == 0 {
			continue
		}
		in := !scoped
		for _, l := range f.Locations {
			in = in || changed[l.File]
		}
		if !in {
			continue
		}
		rule := "kontext/" + f.RuleID
		title := "kontext: " + ruleFor(rule).Short
		if f.Client != nil {
			title += fmt.Sprintf(" (%s)", *f.Client)
		}
		// The fingerprint names the files, client and quoted lines, never a line number.
		key := []string{rule, deref(f.Client)}
		for i, l := range f.Locations {
			key = append(key, l.File, f.Quotes[i])
		}
		l := f.Locations[0]
		out = append(out, Result{Rule: rule, Level: "notice", File: l.File, Line: l.Line, Title: title, Message: f.Message,
			Fingerprint: fingerprint(key...)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// touchesRuleFiles says whether changed holds an agent rule file that head
// reads (the link's target too) or a configuration file.
func touchesRuleFiles(ctx context.Context, head *engine.Engine, changed map[string]bool) (bool, error) {
	for _, c := range engine.ConfigCandidates() {
		if changed[c] {
			return true, nil
		}
	}
	st, err := head.Read(ctx)
	if err != nil {
		return false, err
	}
	for _, en := range st.Snap.Entries() {
		if _, rule := en.Extra["source_style"]; !rule {
			continue
		}
		target, _ := en.Extra["link_target"].(string)
		if changed[en.File] || (target != "" && changed[target]) {
			return true, nil
		}
	}
	return false, nil
}
