package suggest

import (
	"reflect"
	"strings"
	"testing"
)

type tree map[string]bool

func (t tree) IsFile(p string) bool { return t[p] }
func (t tree) IsDir(p string) bool {
	for f := range t {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}
func (t tree) Files() []string {
	var out []string
	for f := range t {
		out = append(out, f)
	}
	return out
}

func TestAggregate(t *testing.T) {
	got := Aggregate([]string{"src/billing/tax/vat.go", "src/billing/invoice/total.go", "src/billing/tax/rate.go", "go.mod", "web/app.ts"})
	want := []string{"go.mod", "src/billing/**", "web/**"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestSuggest(t *testing.T) {
	tr := tree{"src/db/schema.sql": true, "src/db/pool.go": true, "src/api/handler.go": true, "src/api/invoice_total.go": true, "docs/x.md": true}
	in := Input{
		Text: "We use PostgreSQL; see src/db/ and `InvoiceTotal`. https://example.com/a/b is a link.",
		Commits: []Commit{
			{SHA: "c2", Files: []string{"doc/adr/0007.md", "src/db/pool.go"}},
			{SHA: "c1", Files: []string{"doc/adr/0007.md", "src/db/schema.sql", "docs/x.md"}},
		},
		Exclude: func(p string) bool { return strings.HasPrefix(p, "doc/") || strings.HasPrefix(p, "docs/") },
	}
	got := Suggest(in, tr, 3)
	if len(got) != 2 || got[0].Glob != "src/db/**" || got[1].Glob != "src/api/invoice_total.go" {
		t.Fatalf("got %+v", got)
	}
	db := got[0]
	var commits []string
	var mention bool
	for _, ev := range db.Evidence {
		if ev.Type == "cochange" {
			commits = append(commits, ev.Commit)
		}
		mention = mention || (ev.Type == "mention" && ev.Path == "src/db")
	}
	if !reflect.DeepEqual(commits, []string{"c2", "c1"}) || !mention || db.Confidence <= got[1].Confidence || db.Confidence > 1 {
		t.Fatalf("evidence %+v", db)
	}
	if got := Suggest(Input{Text: "nothing here", Have: nil}, tr, 3); len(got) != 0 {
		t.Fatalf("no evidence: %+v", got)
	}
}
