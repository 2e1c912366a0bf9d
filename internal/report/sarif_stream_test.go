package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestWriteSARIFIsMarshalIndent: the log WriteSARIF streams (results
// encoded one at a time into the skeleton) is byte for byte what
// json.MarshalIndent makes of the whole log, with results and without,
// HTML characters, quotes and non-ASCII in messages and paths included.
func TestWriteSARIFIsMarshalIndent(t *testing.T) {
	withResults := &Report{Results: []Result{
		{Rule: "kontext/drift", Level: "warning", File: "src/a<b>&c.go", Entry: "d-1", EntryFile: ".ai/decisions/d-1.md",
			Title: "Drifted", Message: `"quoted" – ünïcode <tag> & more`, Files: []string{"src/b.go", "src/ç.go"}, FileCount: 60, Fingerprint: "f1"},
		{Rule: "kontext/diagnostic", Level: "error", File: ".ai/decisions/x.md", Line: 3, Title: "Parse error", Message: "bad front matter", Fingerprint: "f2"},
		{Rule: "kontext/drift", Level: "notice", Title: "No drift base", Message: "no base: nothing compared", Fingerprint: "f3"},
	}}
	for name, r := range map[string]*Report{"results": withResults, "none": {}, "notifications only": {Results: withResults.Results[2:]}} {
		got, err := SARIF(r, "test")
		if err != nil {
			t.Fatal(err)
		}
		log, results := sarifLog(r, "test")
		log["runs"].([]any)[0].(map[string]any)["results"] = results
		want, err := json.MarshalIndent(log, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: WriteSARIF differs from json.MarshalIndent:\n got %s\nwant %s", name, got, want)
		}
		if name == "results" && !bytes.Contains(got, []byte(`"relatedLocations"`)) {
			t.Errorf("%s: no related locations in %s", name, got)
		}
	}
}
