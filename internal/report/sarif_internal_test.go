package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSARIFWriterEqualsMarshal compares the written SARIF log with the
// log json.MarshalIndent gave before it (sarifMarshal, kept here as the
// reference), byte for byte, on results with every kind of string
// encoding/json escapes, notifications, unknown diagnostic rules and no
// results at all.
func TestSARIFWriterEqualsMarshal(t *testing.T) {
	odd := []string{"", "plain", `quo"te \ back`, "<html> & co", "tab\tnew\nline\r", "\x00\x1f\x7f",
		"naïve — ünïcødé ✓ 𝄞", "line\u2028sep\u2029", "bad \xff\xfe utf-8", "%SRCROOT%", "'single'"}
	var results []Result
	for i, s := range odd {
		results = append(results,
			Result{Rule: "kontext/drift", Level: "warning", File: "src/" + s, Entry: "e" + s, EntryFile: ".ai/" + s, Title: "Drifted: " + s, Message: s, Fingerprint: fingerprint(s)},
			Result{Rule: "kontext/" + s + "_code", Level: "error", File: s + ".md", Line: i, Title: "kontext: " + s, Message: s, Fingerprint: s},
			Result{Rule: "kontext/governs", Level: "notice", File: "f" + s, Title: s, Message: s},
			Result{Rule: "kontext/no-drift-base", Level: "warning", Title: "kontext: no drift base", Message: s},
		)
	}
	var many []Result
	for i := 0; i < 400; i++ { // several times spillAt
		many = append(many, results...)
	}
	for name, r := range map[string]*Report{
		"many":          {Results: many},
		"none":          {},
		"odd strings":   {Results: results},
		"notifications": {Results: []Result{{Rule: "kontext/no-drift-base", Level: "warning", Title: "t", Message: "m"}}},
		"one located":   {Results: results[:1]},
	} {
		for _, version := range []string{"test", "1.2.3 <dev>"} {
			want, err := sarifMarshal(r, version)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SARIF(r, version)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, version %q: the written log differs from MarshalIndent's\n got: %s\nwant: %s", name, version, got, want)
			}
			if !json.Valid(got) {
				t.Errorf("%s: not JSON", name)
			}
		}
	}
}

func sarifMarshal(r *Report, version string) ([]byte, error) {
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
		PhysicalLocation physical `json:"physicalLocation"`
	}
	type result struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             text              `json:"message"`
		Locations           []location        `json:"locations"`
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
		out := result{RuleID: res.Rule, RuleIndex: ruleIndex(res.Rule), Level: sarifLevel(res.Level), Message: text{Text: res.Title + ". " + res.Message},
			Locations:           []location{{PhysicalLocation: physical{ArtifactLocation: artifact{URI: res.File, URIBaseID: "%SRCROOT%"}, Region: region{StartLine: line}}}},
			PartialFingerprints: map[string]string{"kontextFinding/v1": res.Fingerprint}}
		if res.Entry != "" {
			out.Properties = map[string]string{"entry": res.Entry, "entryFile": res.EntryFile}
		}
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
