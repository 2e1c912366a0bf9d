package native

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func (r *repo) call(op, input string) map[string]any {
	r.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(Request(context.Background(), r.dir, op, []byte(input)), &m); err != nil {
		r.t.Fatal(err)
	}
	return m
}

func errCode(m map[string]any) string {
	if e, ok := m["error"].(map[string]any); ok {
		return e["code"].(string)
	}
	return ""
}

func (r *repo) read(name string) string {
	data, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

func TestConfirm(t *testing.T) {
	r := newRepo(t)
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:34:56Z")
	orig := "---\ntitle: A\nstatus: active\npaths: [\"src/**\"]\nverify: make test\nowner: x\n---\n# A\n\nBody stays.\n"
	r.write(map[string]string{
		".ai/conventions/a.md":    orig,
		".ai/conventions/old.md":  "---\nstatus: deprecated\n---\n# Old\n",
		".ai/conventions/edit.md": "---\ntitle: E\n---\nBody\n",
		"other.txt":               "unrelated\n",
		"src/x.go":                "x\n",
	})
	r.git("config", "user.name", "Ana Reviewer")
	r.commit("2026-01-01T10:00:00Z", "initial")
	r.write(map[string]string{"other.txt": "staged unrelated change\n"})
	r.git("add", "other.txt")
	r.write(map[string]string{".ai/conventions/new.md": "---\ntitle: N\n---\n# N\n"})

	res := r.api("drafts.confirm", `{"id":"a","because":"re-read after the refactor","kind":"read","operation_id":"op-1"}`)
	if res["checked"] != "2026-11-30T12:34:56Z" || res["path"] != ".ai/conventions/a.md" {
		t.Fatalf("result %v", res)
	}
	led := res["ledger"].(map[string]any)
	if led["at"] != res["checked"] || led["kind"] != "read" || led["path"] != ".ai/confirmations.log" || led["commit"] != r.git("rev-parse", "HEAD") {
		t.Fatalf("ledger %v", led)
	}
	want := strings.Replace(orig, "verify: make test\n", "checked: 2026-11-30T12:34:56Z\nverify: make test\n", 1)
	if got := r.read(".ai/conventions/a.md"); got != want {
		t.Fatalf("entry file:\n%s\nwant\n%s", got, want)
	}
	line := strings.TrimSpace(r.read(".ai/confirmations.log"))
	if !strings.Contains(line, `"by":"application:api"`) || !strings.Contains(line, `"because":"re-read after the refactor"`) || strings.Count(line, "\n") != 0 {
		t.Fatalf("ledger file: %s", line)
	}
	if staged := r.git("diff", "--cached", "--name-only"); staged != ".ai/confirmations.log\n.ai/conventions/a.md\nother.txt" {
		t.Fatalf("staged: %q", staged)
	}
	if r.git("show", ":other.txt") != "staged unrelated change" {
		t.Fatal("an unrelated staged change was lost")
	}
	// The same operation again replays; a different input with it conflicts.
	again := r.api("drafts.confirm", `{"id":"a","because":"re-read after the refactor","kind":"read","operation_id":"op-1"}`)
	if again["replayed"] != true || strings.Count(r.read(".ai/confirmations.log"), "\n") != 1 {
		t.Fatalf("replay: %v", again)
	}
	if c := errCode(r.call("drafts.confirm", `{"id":"a","operation_id":"op-1"}`)); c != "operation_conflict" {
		t.Fatalf("same id, other input: %s", c)
	}
	// The entry's history now shows the look.
	a := r.entry("a")
	if a["checked"] != "2026-11-30T12:34:56Z" || a["verification"].(map[string]any)["kind"] != "read" {
		t.Fatalf("after confirm: %v", a["verification"])
	}
	for input, code := range map[string]string{
		`{"id":"nope"}`:               "not_found",
		`{"id":"old"}`:                "operation_conflict",
		`{"id":"new"}`:                "operation_conflict",
		`{"id":"a","kind":"bulk"}`:    "invalid_input",
		`{"id":"a","because":"a\nb"}`: "invalid_input",
		`{}`:                          "invalid_input",
	} {
		if c := errCode(r.call("drafts.confirm", input)); c != code {
			t.Errorf("%s: %s, want %s", input, c, code)
		}
	}
	r.write(map[string]string{".ai/conventions/edit.md": "---\ntitle: E\n---\nBody, edited\n"})
	if c := errCode(r.call("drafts.confirm", `{"id":"edit"}`)); c != "operation_conflict" {
		t.Fatalf("unstaged edits: %s", c)
	}
	many := r.api("drafts.confirm", `{"ids":["a","nope"]}`)
	if len(many["confirmed"].([]any)) != 1 || many["failed"].([]any)[0].(map[string]any)["code"] != "not_found" {
		t.Fatalf("ids: %v", many)
	}
	if r.git("fsck") != "" {
		t.Log("fsck printed something")
	}
}

func TestConfirmBulkRepairAndIdentity(t *testing.T) {
	r := newRepo(t)
	files := map[string]string{".cursor/rules/r.mdc": "---\nglobs: src/**\n---\n# Rule\n", ".kontext.toml": "[[kinds.convention.include]]\ndir = \".cursor/rules\"\nstyle = \"cursor\"\n"}
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		files[".ai/learnings/"+id+".md"] = "---\ntitle: " + id + "\n---\nBody\n"
	}
	r.write(files)
	r.git("config", "user.name", "someone@example.com")
	r.commit("2026-01-01T10:00:00Z", "initial")
	res := r.api("drafts.confirm", `{"ids":["a","b","c","d","e","f"]}`)
	if c := res["confirmed"].([]any); len(c) != 6 || c[0].(map[string]any)["ledger"].(map[string]any)["kind"] != "bulk" {
		t.Fatalf("bulk: %v", res)
	}
	if strings.Contains(r.read(".ai/confirmations.log"), "example.com") || !strings.Contains(r.read(".ai/confirmations.log"), `"by":"application:api"`) {
		t.Fatal("an e-mail address reached the ledger")
	}
	// A read-only rule file gets only a ledger line.
	rule := r.read(".cursor/rules/r.mdc")
	t.Setenv("KONTEXT_APPLICATION", "review-bot")
	r.api("drafts.confirm", `{"id":".cursor/rules/r"}`)
	if r.read(".cursor/rules/r.mdc") != rule || !strings.Contains(r.read(".ai/confirmations.log"), `"by":"application:review-bot"`) {
		t.Fatal("a read-only entry was edited, or the application identity is missing")
	}
	// repair: a file whose checked lags its newest ledger confirmation.
	r.commit("2026-01-02T10:00:00Z", "confirmations")
	r.write(map[string]string{".ai/learnings/a.md": "---\ntitle: a\nchecked: 2020-01-01\n---\nBody\n"})
	r.commit("2026-01-03T10:00:00Z", "old checked")
	rep := r.api("drafts.confirm", `{"repair":true}`)
	got := rep["repaired"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["from"] != "2020-01-01" {
		t.Fatalf("repair: %v", rep)
	}
	if !strings.Contains(r.read(".ai/learnings/a.md"), "checked: "+got[0].(map[string]any)["to"].(string)+"\n") {
		t.Fatal("repair did not write checked")
	}
}
