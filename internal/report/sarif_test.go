package report_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kontext/kontext/internal/report"
	"github.com/kontext/kontext/internal/testrepo"
)

// sarifSchema compiles the official SARIF 2.1.0 schema, the
// sarif-2.1.0.json that npm @microsoft/sarif-multitool ships
// (build/sarif-schema.sh fetches it into .cache/; make test runs it). In CI
// (CI=true) a missing schema fails the test.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	file := filepath.Join(testrepo.Root(), ".cache", "sarif-2.1.0.json")
	data, err := os.ReadFile(file)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the SARIF schema is missing (%v): run bash build/sarif-schema.sh", err)
		}
		t.Skipf("the SARIF schema is missing (%v): run bash build/sarif-schema.sh", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("https://json.schemastore.org/sarif-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://json.schemastore.org/sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validateSARIF(t *testing.T, sch *jsonschema.Schema, name string, data []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s is not valid SARIF 2.1.0: %v", name, err)
	}
}

// TestSARIFSchema validates the SARIF of the demo, the scenario and a
// 3,000-file change against the official schema — and checks that the
// schema does reject a broken log, so a pass means something.
func TestSARIFSchema(t *testing.T) {
	sch := sarifSchema(t)
	for _, g := range []string{"demo-base", "demo-no-base", "scenario"} {
		data, err := os.ReadFile(filepath.Join(testrepo.Root(), "testdata", "report", g, "sarif.json"))
		if err != nil {
			t.Fatal(err)
		}
		validateSARIF(t, sch, g, data)
	}
	dir, base := bigChange(t, 3000)
	r, err := report.Build(context.Background(), open(t, dir), report.Options{Base: base, Notice: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := report.SARIF(r, "test")
	if err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, sch, "3,000 files", data)

	broken := bytes.Replace(data, []byte(`"level": "warning"`), []byte(`"level": "severe"`), 1)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(broken))
	if err != nil {
		t.Fatal(err)
	}
	if sch.Validate(inst) == nil {
		t.Error("the schema accepted a result with level \"severe\"")
	}
}
