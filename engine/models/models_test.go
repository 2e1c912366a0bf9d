package models

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	s := obj(map[string]any{"kind": enum("a", "b"), "title": title(), "paths": arr(str(5), 2)}, "kind", "title")
	for answer, want := range map[string]string{
		`{"kind":"a","title":"t"}`:                       "",
		`{"kind":"a","title":"t","paths":["x","y"]}`:     "",
		`{"kind":"c","title":"t"}`:                       `answer.kind is "c"`,
		`{"kind":"a"}`:                                   `answer has no "title"`,
		`{"kind":"a","title":""}`:                        "answer.title is shorter than 1",
		`{"kind":"a","title":"t","paths":["x","y","z"]}`: "answer.paths has 3 items",
		`{"kind":"a","title":"t","paths":["toolong"]}`:   "answer.paths[0] is longer than 5",
		`{"kind":"a","title":"t","extra":1}`:             `unknown field "extra"`,
		`{"kind":1,"title":"t"}`:                         "answer.kind is not a string",
		`[]`:                                             "answer is not an object",
	} {
		var v any
		if err := json.Unmarshal([]byte(answer), &v); err != nil {
			t.Fatal(err)
		}
		err := validate(s, v, "answer")
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", answer, err, want)
		}
	}
	// A schema sent to a model is self-contained.
	b, _ := json.Marshal(s)
	if strings.Contains(string(b), "$ref") {
		t.Fatal("$ref in a schema")
	}
}

func TestBuildPromptRedacts(t *testing.T) {
	p := buildPrompt("formalize", section{"Insight body", "mail ops@example.com, token ghp_abcdefghijklmnopqrstuvwxyz0123456789"})
	if !strings.HasPrefix(p, "kontext prompt formalize v1") || strings.Contains(p, "ops@example.com") || strings.Contains(p, "ghp_abc") {
		t.Fatalf("prompt:\n%s", p)
	}
	if !strings.Contains(p, "### Insight body\n\nmail [redacted:email]") {
		t.Fatalf("prompt:\n%s", p)
	}
}
