package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// MaxPerLevel is how many annotations of one level GitHub shows for a
// step; the rest are counted in one notice.
const MaxPerLevel = 10

// escapeData escapes a workflow command's message as GitHub requires.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command property (file, title): also
// ':' and ','.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// annotations splits the results into those GitHub annotates (at most
// MaxPerLevel per level, in the results' order: most severe, then most
// specific first) and the count left out per level. When anything is left
// out, at most MaxPerLevel-1 notices are shown, so the counting notice is
// itself one GitHub shows.
func annotations(r *Report) (shown []Result, left map[string]int) {
	errs, warns, notes := Counts(r.Results)
	limit := map[string]int{"error": MaxPerLevel, "warning": MaxPerLevel, "notice": MaxPerLevel}
	if errs > MaxPerLevel || warns > MaxPerLevel || notes > MaxPerLevel {
		limit["notice"] = MaxPerLevel - 1
	}
	per := map[string]int{}
	left = map[string]int{}
	for _, res := range r.Results {
		if per[res.Level] >= limit[res.Level] {
			left[res.Level]++
			continue
		}
		per[res.Level]++
		shown = append(shown, res)
	}
	return shown, left
}

// leftOut says how many findings the annotations left out, by level ("" when none).
func leftOut(left map[string]int) (int, string) {
	n := left["error"] + left["warning"] + left["notice"]
	var parts []string
	for _, l := range []string{"error", "warning", "notice"} {
		if left[l] > 0 {
			parts = append(parts, plural(left[l], l, l+"s"))
		}
	}
	return n, strings.Join(parts, ", ")
}

// WriteGitHub writes the results as GitHub workflow commands: at most
// MaxPerLevel per level, most severe and then most specific first, then one
// notice counting what was left out. summary says whether the whole list
// goes to the step summary ($GITHUB_STEP_SUMMARY, WriteStepSummary).
func WriteGitHub(w io.Writer, r *Report, summary bool) error {
	errs, warns, notes := Counts(r.Results)
	fmt.Fprintf(w, "kontext ci: %s, %s, %s%s\n", plural(errs, "error", "errors"), plural(warns, "warning", "warnings"),
		plural(notes, "notice", "notices"), scope(r))
	shown, left := annotations(r)
	for _, res := range shown {
		var props []string
		if res.File != "" {
			props = append(props, "file="+escapeProperty(res.File))
			line := res.Line
			if line == 0 {
				line = 1
			}
			props = append(props, fmt.Sprintf("line=%d", line))
		}
		props = append(props, "title="+escapeProperty(res.Title))
		fmt.Fprintf(w, "::%s %s::%s\n", res.Level, strings.Join(props, ","), escapeData(res.Message))
	}
	if n, parts := leftOut(left); n > 0 {
		where := "Run kontext ci --format text, or upload the SARIF file, to see all of them."
		if summary {
			where = "The job's summary lists all of them."
		}
		fmt.Fprintf(w, "::notice title=kontext%%3A %s not annotated::%s more than GitHub shows per step (%s). %s\n",
			commas(n), plural(n, "finding", "findings"), parts, where)
	}
	return nil
}

// WriteStepSummary writes every finding as Markdown for GitHub's job
// summary (the file $GITHUB_STEP_SUMMARY names): a table in the order of
// the annotations, and how many findings the annotations left out.
func WriteStepSummary(w io.Writer, r *Report) error {
	errs, warns, notes := Counts(r.Results)
	fmt.Fprintf(w, "### kontext ci\n\n%s, %s, %s%s.\n\n", plural(errs, "error", "errors"), plural(warns, "warning", "warnings"),
		plural(notes, "notice", "notices"), scope(r))
	if r.AlwaysOn > 0 {
		fmt.Fprintf(w, "%s.\n\n", alwaysOnLine(r))
	}
	_, left := annotations(r)
	if n, parts := leftOut(left); n > 0 {
		fmt.Fprintf(w, "The annotations show %s of %s: GitHub shows %d per level in a step, so %s (%s) are only listed here.\n\n",
			commas(len(r.Results)-n), commas(len(r.Results)), MaxPerLevel, plural(n, "finding", "findings"), parts)
	}
	if len(r.Results) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("| level | file | finding | message |\n| --- | --- | --- | --- |\n")
	for i, res := range r.Results {
		loc := "—"
		if res.File != "" {
			loc = "`" + code(res.File) + "`"
		}
		row := fmt.Sprintf("| %s | %s | %s | %s |\n", res.Level, loc, md(res.Title), md(res.Message))
		if b.Len()+len(row) > MaxStepSummary-1024 {
			fmt.Fprintf(&b, "\n…and %s more: the job summary is limited to 1 MiB; kontext ci --format text lists all of them.\n", commas(len(r.Results)-i))
			break
		}
		b.WriteString(row)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MaxStepSummary is GitHub's limit for one step's job summary (1 MiB).
const MaxStepSummary = 1 << 20

// alwaysOnLine is the one line about broad entries (always-on rules).
func alwaysOnLine(r *Report) string {
	if r.Broad {
		return fmt.Sprintf("Always-on rules: %s every changed file; reported as drift like any other (--broad)", plural(r.AlwaysOn, "applies to", "apply to"))
	}
	return fmt.Sprintf("Always-on rules: %s every changed file; not reported as drift (--broad reports them)", plural(r.AlwaysOn, "applies to", "apply to"))
}

func scope(r *Report) string {
	if r.Scoped {
		return fmt.Sprintf(" in %s changed since %s", plural(len(r.Changed), "file", "files"), short(r.Base))
	}
	return " (no base given: the whole repository)"
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// Text writes the findings one per line, for a person reading a CI log.
func WriteText(w io.Writer, r *Report) {
	if len(r.Results) == 0 {
		fmt.Fprintf(w, "findings: none%s\n", scope(r))
		return
	}
	errs, warns, notes := Counts(r.Results)
	fmt.Fprintf(w, "findings: %s, %s, %s%s\n", plural(errs, "error", "errors"), plural(warns, "warning", "warnings"), plural(notes, "notice", "notices"), scope(r))
	for _, res := range r.Results {
		loc := res.File
		if loc == "" {
			loc = "-"
		} else if res.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, res.Line)
		}
		fmt.Fprintf(w, "  %-7s %s  %s: %s\n", res.Level, loc, res.Title, res.Message)
	}
}

// sarifLevel maps a finding level to SARIF's.
func sarifLevel(l string) string {
	if l == "notice" {
		return "note"
	}
	return l
}

// SARIF returns the results as a SARIF 2.1.0 log (indented by
// encoding/json): one rule per kind of finding with its help text, each
// result located at its file with a partial fingerprint that stays the
// same across pushes. Findings without a file (no drift base) are tool
// execution notifications: code scanning accepts only located results.
func SARIF(r *Report, version string) ([]byte, error) {
	type text struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	type rule struct {
		ID                   string            `json:"id"`
		Name                 string            `json:"name"`
		ShortDescription     text              `json:"shortDescription"`
		FullDescription      text              `json:"fullDescription"`
		Help                 text              `json:"help"`
		HelpURI              string            `json:"helpUri,omitempty"`
		DefaultConfiguration map[string]string `json:"defaultConfiguration"`
	}
	type region struct {
		StartLine int `json:"startLine"`
	}
	type artifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId"`
	}
	type physical struct {
		ArtifactLocation artifact `json:"artifactLocation"`
		Region           region   `json:"region"`
	}
	type location struct {
		ID               *int     `json:"id,omitempty"`
		PhysicalLocation physical `json:"physicalLocation"`
		Message          *text    `json:"message,omitempty"`
	}
	type result struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             text              `json:"message"`
		Locations           []location        `json:"locations"`
		RelatedLocations    []location        `json:"relatedLocations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          map[string]string `json:"properties,omitempty"`
	}
	type notification struct {
		Level   string `json:"level"`
		Message text   `json:"message"`
	}
	type invocation struct {
		ExecutionSuccessful        bool           `json:"executionSuccessful"`
		ToolExecutionNotifications []notification `json:"toolExecutionNotifications,omitempty"`
	}
	var rules []rule
	index := map[string]int{}
	ruleIndex := func(id string) int {
		if i, ok := index[id]; ok {
			return i
		}
		rl := ruleFor(id)
		index[id] = len(rules)
		rules = append(rules, rule{ID: rl.ID, Name: rl.Name, ShortDescription: text{Text: rl.Short}, FullDescription: text{Text: rl.Help},
			Help: text{Text: rl.Help, Markdown: "**" + rl.Short + "**\n\n" + rl.Help}, HelpURI: "https://github.com/kontext/kontext#pull-requests",
			DefaultConfiguration: map[string]string{"level": sarifLevel(rl.Level)}})
		return index[id]
	}
	// Every known rule is declared, so rule indexes are stable.
	for _, rl := range Rules {
		ruleIndex(rl.ID)
	}
	results := []result{}
	inv := invocation{ExecutionSuccessful: true}
	for _, res := range r.Results {
		if res.File == "" {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
				notification{Level: sarifLevel(res.Level), Message: text{Text: res.Title + ": " + res.Message}})
			continue
		}
		line := res.Line
		if line == 0 {
			line = 1
		}
		at := func(file string) physical {
			return physical{ArtifactLocation: artifact{URI: file, URIBaseID: "%SRCROOT%"}, Region: region{StartLine: 1}}
		}
		msg := res.Title + ". " + res.Message
		out := result{RuleID: res.Rule, RuleIndex: ruleIndex(res.Rule), Level: sarifLevel(res.Level),
			Locations:           []location{{PhysicalLocation: physical{ArtifactLocation: artifact{URI: res.File, URIBaseID: "%SRCROOT%"}, Region: region{StartLine: line}}}},
			PartialFingerprints: map[string]string{"kontextFinding/v1": res.Fingerprint}}
		if res.Entry != "" {
			out.Properties = map[string]string{"entry": res.Entry, "entryFile": res.EntryFile}
			// One result per entry: the entry file, then its other changed
			// files, are related locations.
			related := func(file, what string) {
				id := len(out.RelatedLocations) + 1
				out.RelatedLocations = append(out.RelatedLocations, location{ID: &id, PhysicalLocation: at(file), Message: &text{Text: what}})
			}
			if res.EntryFile != "" && res.EntryFile != res.File {
				related(res.EntryFile, "the entry")
			}
			for _, f := range res.Files {
				related(f, "also changed, governed by the entry")
			}
			if more := res.FileCount - 1 - len(res.Files); more > 0 {
				msg += fmt.Sprintf(" (%s not among the related locations.)", plural(more, "more changed file is", "more changed files are"))
			}
		}
		out.Message = text{Text: msg}
		results = append(results, out)
	}
	log := map[string]any{
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"version": "2.1.0",
		"runs": []any{map[string]any{
			"tool": map[string]any{"driver": map[string]any{"name": "kontext", "version": version,
				"informationUri": "https://github.com/kontext/kontext", "rules": rules}},
			"invocations": []invocation{inv},
			"results":     results,
		}},
	}
	return json.MarshalIndent(log, "", "  ")
}

// WriteSARIF writes the SARIF log of r to out, as SARIF returns it.
func WriteSARIF(out io.Writer, r *Report, version string) error {
	b, err := SARIF(r, version)
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// CodeClimate returns the results as the Code Climate JSON list GitLab's
// code quality widget reads. A finding without a file is located at ".".
func CodeClimate(r *Report) ([]byte, error) {
	type lines struct {
		Begin int `json:"begin"`
	}
	type location struct {
		Path  string `json:"path"`
		Lines lines  `json:"lines"`
	}
	type issue struct {
		Type        string   `json:"type"`
		CheckName   string   `json:"check_name"`
		Description string   `json:"description"`
		Categories  []string `json:"categories"`
		Severity    string   `json:"severity"`
		Fingerprint string   `json:"fingerprint"`
		Location    location `json:"location"`
	}
	severity := map[string]string{"error": "critical", "warning": "major", "notice": "info"}
	out := []issue{}
	for _, res := range r.Results {
		p, line := res.File, res.Line
		if p == "" {
			p = "."
		}
		if line == 0 {
			line = 1
		}
		out = append(out, issue{Type: "issue", CheckName: res.Rule, Description: res.Title + ". " + res.Message,
			Categories: []string{"Style"}, Severity: severity[res.Level], Fingerprint: res.Fingerprint, Location: location{Path: p, Lines: lines{Begin: line}}})
	}
	return json.MarshalIndent(out, "", "  ")
}
