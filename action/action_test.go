package action

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"

	"github.com/kontext/kontext/internal/testrepo"
)

// readmeWorkflow returns the workflow the pull-request guide shows
// (docs/pull-requests.md, the yaml block after <!-- action-workflow -->).
func readmeWorkflow(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testrepo.Root(), "docs", "pull-requests.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- action-workflow -->\n```yaml\n")
	if !ok {
		t.Fatal("docs/pull-requests.md has no <!-- action-workflow --> yaml block")
	}
	wf, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the guide's workflow block is not closed")
	}
	return wf
}

// TestActionlint lints the guide's workflow, with the action used as uses:
// ./, so actionlint also checks action.yml (inputs, composite steps,
// expressions) as a user's workflow would use it.
func TestActionlint(t *testing.T) {
	wf := readmeWorkflow(t)
	if n := strings.Count(strings.TrimSpace(wf), "\n") + 1; n > 16 {
		t.Errorf("the guide's workflow is %d lines; keep it short", n)
	}
	local := regexp.MustCompile(`uses: kontext/kontext@v[0-9.]+`).ReplaceAllString(wf, "uses: ./")
	if local == wf {
		t.Fatal("the guide's workflow does not use kontext/kontext@vX.Y.Z")
	}
	root := t.TempDir()
	action, err := os.ReadFile(filepath.Join(testrepo.Root(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	testrepo.Write(t, root, map[string]string{"action.yml": string(action), ".github/workflows/kontext.yml": local})
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFile(filepath.Join(root, ".github", "workflows", "kontext.yml"), proj)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("actionlint: %s", e.Error())
	}

	// The linter does read the action: an input the action does not
	// declare is an error.
	bad := strings.Replace(local, "fail-on: drift", "fail-onn: drift", 1)
	errs, err = l.Lint(filepath.Join(root, ".github", "workflows", "bad.yml"), []byte(bad), proj)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range errs {
		found = found || strings.Contains(e.Message, "fail-onn")
	}
	if !found {
		t.Errorf("actionlint did not reject an undeclared input of ./ (it did not check action.yml): %v", errs)
	}
}

// TestInputsDeclared: every inputs.X that action.yml uses is declared, and
// every declared input is used.
func TestInputsDeclared(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testrepo.Root(), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct {
			Description string `yaml:"description"`
			Default     string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)`).FindAllStringSubmatch(string(data), -1) {
		used[m[1]] = true
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("action.yml uses inputs.%s, which it does not declare", m[1])
		}
	}
	for _, want := range []string{"version", "token", "base", "fail-on", "comment", "sarif"} {
		in, ok := a.Inputs[want]
		if !ok {
			t.Errorf("input %s is not declared", want)
		} else if in.Description == "" {
			t.Errorf("input %s has no description", want)
		}
		if !used[want] {
			t.Errorf("input %s is declared but never used", want)
		}
	}
	if a.Inputs["token"].Default != "${{ github.token }}" || a.Inputs["fail-on"].Default != "none" || a.Inputs["comment"].Default != "true" {
		t.Errorf("defaults: %+v", a.Inputs)
	}
}
