package native

import (
	"context"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/drafts"
)

// TestLedgerIdentity: a look written through the application API says
// `by: application:<name>` (KONTEXT_APPLICATION, else "api", "mcp" for the MCP server); only
// the human CLI (Options.Person) names git's user.name, never an e-mail address.
func TestLedgerIdentity(t *testing.T) {
	r := newRepo(t)
	files := map[string]string{}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		files[".ai/learnings/"+id+".md"] = "---\ntitle: " + id + "\n---\nBody\n"
	}
	r.write(files)
	r.git("config", "user.name", "Pat Person")
	r.commit("2026-01-01T10:00:00Z", "initial")
	ledger := func() string {
		l := strings.Split(strings.TrimSpace(r.read(".ai/confirmations.log")), "\n")
		return l[len(l)-1]
	}
	person := func(id string, o Options) {
		t.Helper()
		e, err := OpenWith(r.dir, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drafts.Confirm(context.Background(), e, &api.ConfirmInput{ID: id}); err != nil {
			t.Fatal(err)
		}
	}

	r.api("drafts.confirm", `{"id":"a"}`)
	if l := ledger(); !strings.Contains(l, `"by":"application:api"`) {
		t.Errorf("API look: %s", l)
	}
	person("b", Options{Application: "mcp"})
	if l := ledger(); !strings.Contains(l, `"by":"application:mcp"`) {
		t.Errorf("MCP look: %s", l)
	}
	t.Setenv("KONTEXT_APPLICATION", "review-bot")
	r.api("drafts.confirm", `{"id":"c"}`)
	if l := ledger(); !strings.Contains(l, `"by":"application:review-bot"`) {
		t.Errorf("named application: %s", l)
	}
	// The human CLI is a person, whatever KONTEXT_APPLICATION says.
	person("d", Options{Person: true})
	if l := ledger(); !strings.Contains(l, `"by":"Pat Person"`) {
		t.Errorf("person: %s", l)
	}
	r.git("config", "user.name", "pat@example.com")
	person("e", Options{Person: true})
	if l := ledger(); !strings.Contains(l, `"by":"unknown"`) || strings.Contains(r.read(".ai/confirmations.log"), "example.com") {
		t.Errorf("an e-mail address as user.name: %s", l)
	}
}
