package report

import (
	"bytes"
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

// WriteGitHub writes the results as GitHub workflow commands: at most
// MaxPerLevel per level, most severe first, then one notice counting what
// was left out (when anything was, at most MaxPerLevel-1 notices are
// shown, so the counting notice is itself one GitHub shows).
func WriteGitHub(w io.Writer, r *Report) error {
	errs, warns, notes := Counts(r.Results)
	fmt.Fprintf(w, "kontext ci: %s, %s, %s%s\n", plural(errs, "error", "errors"), plural(warns, "warning", "warnings"),
		plural(notes, "notice", "notices"), scope(r))
	limit := map[string]int{"error": MaxPerLevel, "warning": MaxPerLevel, "notice": MaxPerLevel}
	if errs > MaxPerLevel || warns > MaxPerLevel || notes > MaxPerLevel {
		limit["notice"] = MaxPerLevel - 1
	}
	shown := map[string]int{}
	left := map[string]int{}
	for _, res := range r.Results {
		if shown[res.Level] >= limit[res.Level] {
			left[res.Level]++
			continue
		}
		shown[res.Level]++
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
	if n := left["error"] + left["warning"] + left["notice"]; n > 0 {
		var parts []string
		for _, l := range []string{"error", "warning", "notice"} {
			if left[l] > 0 {
				parts = append(parts, plural(left[l], l, l+"s"))
			}
		}
		fmt.Fprintf(w, "::notice title=kontext%%3A %s not annotated::%s more than GitHub shows per step (%s). Run kontext ci --format text, or upload the SARIF file, to see all of them.\n",
			commas(n), plural(n, "finding", "findings"), strings.Join(parts, ", "))
	}
	return nil
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

// SARIF returns the results as a SARIF 2.1.0 log: one rule per kind of
// finding with its help text, each result located at its file with a
// partial fingerprint that stays the same across pushes. Findings without
// a file (no drift base) are tool execution notifications: code scanning
// accepts only located results.
//
// The log is the bytes json.MarshalIndent(log, "", "  ") gives for it
// (WriteSARIF writes them).
func SARIF(r *Report, version string) ([]byte, error) {
	var b bytes.Buffer
	err := WriteSARIF(&b, r, version)
	return b.Bytes(), err
}

// WriteSARIF writes the SARIF log of r to out, as SARIF returns it, a
// part at a time: a change of thousands of files has thousands of
// results, and marshalling them through reflection, indenting the whole
// log and holding it cost as much as the rest of the report.
func WriteSARIF(out io.Writer, r *Report, version string) error {
	rules := append([]Rule(nil), Rules...)
	index := map[string]int{}
	for i, rl := range rules {
		index[rl.ID] = i
	}
	ruleIndex := func(id string) int {
		if i, ok := index[id]; ok {
			return i
		}
		index[id] = len(rules)
		rules = append(rules, ruleFor(id))
		return index[id]
	}
	// Rule indexes are taken in result order, as results are written, so
	// the rules (written after the results' keys sort them first) are
	// known before the rules array is written.
	located := make([]int, 0, len(r.Results))
	var notes []int
	for i, res := range r.Results {
		if res.File == "" {
			notes = append(notes, i)
			continue
		}
		located = append(located, i)
		ruleIndex(res.Rule)
	}
	w := &jsonWriter{b: make([]byte, 0, spillAt+4096), out: out}
	w.open('{')
	w.field("$schema", "https://json.schemastore.org/sarif-2.1.0.json")
	w.key("runs")
	w.open('[')
	w.elem()
	w.open('{')

	w.key("invocations")
	w.open('[')
	w.elem()
	w.open('{')
	w.key("executionSuccessful")
	w.raw("true")
	if len(notes) > 0 {
		w.key("toolExecutionNotifications")
		w.open('[')
		for _, i := range notes {
			res := r.Results[i]
			w.elem()
			w.open('{')
			w.field("level", sarifLevel(res.Level))
			w.key("message")
			w.text(res.Title+": "+res.Message, "")
			w.close('}')
		}
		w.close(']')
	}
	w.close('}')
	w.close(']')

	w.key("results")
	w.open('[')
	for _, i := range located {
		res := r.Results[i]
		line := res.Line
		if line == 0 {
			line = 1
		}
		w.elem()
		w.open('{')
		w.field("ruleId", res.Rule)
		w.key("ruleIndex")
		w.int(index[res.Rule])
		w.field("level", sarifLevel(res.Level))
		w.key("message")
		w.text(res.Title+". "+res.Message, "")
		w.key("locations")
		w.open('[')
		w.elem()
		w.open('{')
		w.key("physicalLocation")
		w.open('{')
		w.key("artifactLocation")
		w.open('{')
		w.field("uri", res.File)
		w.field("uriBaseId", "%SRCROOT%")
		w.close('}')
		w.key("region")
		w.open('{')
		w.key("startLine")
		w.int(line)
		w.close('}')
		w.close('}')
		w.close('}')
		w.close(']')
		w.key("partialFingerprints")
		w.open('{')
		w.field("kontextFinding/v1", res.Fingerprint)
		w.close('}')
		if res.Entry != "" {
			w.key("properties")
			w.open('{')
			w.field("entry", res.Entry)
			w.field("entryFile", res.EntryFile)
			w.close('}')
		}
		w.close('}')
		w.spill()
	}
	w.close(']')

	w.key("tool")
	w.open('{')
	w.key("driver")
	w.open('{')
	w.field("informationUri", "https://github.com/kontext/kontext")
	w.field("name", "kontext")
	w.key("rules")
	w.open('[')
	for _, rl := range rules {
		w.elem()
		w.open('{')
		w.field("id", rl.ID)
		w.field("name", rl.Name)
		w.key("shortDescription")
		w.text(rl.Short, "")
		w.key("fullDescription")
		w.text(rl.Help, "")
		w.key("help")
		w.text(rl.Help, "**"+rl.Short+"**\n\n"+rl.Help)
		w.field("helpUri", "https://github.com/kontext/kontext#pull-requests")
		w.key("defaultConfiguration")
		w.open('{')
		w.field("level", sarifLevel(rl.Level))
		w.close('}')
		w.close('}')
	}
	w.close(']')
	w.field("version", version)
	w.close('}')
	w.close('}')

	w.close('}')
	w.close(']')
	w.field("version", "2.1.0")
	w.close('}')
	w.flush()
	return w.err
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
