package match

import (
	"reflect"
	"strings"
	"testing"
)

func mustCompile(t testing.TB, raw string) Pattern {
	t.Helper()
	p, err := Compile(raw)
	if err != nil {
		t.Fatalf("Compile(%q): %v", raw, err)
	}
	return p
}

func TestSpecificityTable(t *testing.T) {
	for glob, want := range map[string]int{
		"**":                     0,
		"src/**":                 1,
		"src/billing/**":         2,
		"src/billing/*.rs":       2,
		"src/billing/invoice.rs": 4,
		"**/*.go":                0,
		"*.sql":                  0,
		"README.md":              2,
		"src/{a,b}/x.go":         2,
		"src/[ab]/x?.go":         1,
	} {
		if got := Specificity(glob); got != want {
			t.Errorf("Specificity(%q) = %d, want %d", glob, got, want)
		}
		if p := mustCompile(t, glob); p.Specificity != want {
			t.Errorf("Compile(%q).Specificity = %d, want %d", glob, p.Specificity, want)
		}
	}
}

func TestCompileNormalises(t *testing.T) {
	for raw, want := range map[string]Pattern{
		"src/billing/":  {Glob: "src/billing/**", Specificity: 2},
		"./src/":        {Glob: "src/**", Specificity: 1},
		"/src/a.go":     {Glob: "src/a.go", Specificity: 3},
		"src/**/":       {Glob: "src/**", Specificity: 1},
		"**/":           {Glob: "**", Specificity: 0},
		"!src/gen/":     {Glob: "src/gen/**", Negated: true, Specificity: 2},
		"!./docs/*.md":  {Glob: "docs/*.md", Negated: true, Specificity: 1},
		".//./x/y.go":   {Glob: "x/y.go", Specificity: 3},
		"{a,b}{c,d}":    {Glob: "{a,b}{c,d}", Specificity: 0},
		"src/x\\*y.go":  {Glob: "src/x\\*y.go", Specificity: 1},
		"src/*.{rs,go}": {Glob: "src/*.{rs,go}", Specificity: 1},
	} {
		want.Raw = raw
		got := mustCompile(t, raw)
		if got != want {
			t.Errorf("Compile(%q) = %+v, want %+v", raw, got, want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for raw, wantMsg := range map[string]string{
		"":                                "empty",
		"!":                               "names no path",
		"/":                               "names no path",
		"./":                              "names no path",
		"../x":                            "escapes",
		"src/../../x":                     "escapes",
		"!a/../b":                         "escapes",
		"src/[abc":                        `unclosed "["`,
		"src/[]":                          "empty character class",
		"src/{a,b":                        `unclosed "{"`,
		"src/a}":                          `"}" without "{"`,
		"src/a\\":                         `trailing "\"`,
		strings.Repeat("a", 1025):         "limit is 1024",
		strings.Repeat("**/", 1000) + "x": "limit is 1024",
		strings.Repeat("**/", 33) + "x":   `33 "**" segments`,
		strings.Repeat("{a,b}", 10):       "more than 1000 alternatives",
		"{" + strings.Repeat("a,", 500) + "a}{a,b}": "more than 1000 alternatives",
		strings.Repeat("{a,{b,c}}", 7):              "more than 1000 alternatives",
		"src/\xff.go":                               "UTF-8",
	} {
		_, err := Compile(raw)
		if err == nil {
			t.Errorf("Compile(%.40q) succeeded, want error containing %q", raw, wantMsg)
			continue
		}
		if !strings.Contains(err.Error(), wantMsg) {
			t.Errorf("Compile(%.40q) error %q, want it to contain %q", raw, err, wantMsg)
		}
	}
	// Just under the limits still compiles.
	for _, raw := range []string{
		strings.Repeat("{a,b}", 9),
		strings.Repeat("**/", 32) + "x",
		strings.Repeat("a", 1024),
		"{" + strings.Repeat("a,", 499) + "a}{a,b}",
	} {
		if _, err := Compile(raw); err != nil {
			t.Errorf("Compile(%.40q): %v", raw, err)
		}
	}
}

func TestRootOnly(t *testing.T) {
	for raw, want := range map[string]bool{
		"*.sql":       true,
		"!*.sql":      true,
		"?akefile":    true,
		"[Mm]akefile": true,
		"**/*.sql":    false,
		"**":          false,
		"**.sql":      false,
		"Makefile":    false,
		"db/*.sql":    false,
		"db/":         false,
	} {
		if got := RootOnly(mustCompile(t, raw)); got != want {
			t.Errorf("RootOnly(%q) = %v, want %v", raw, got, want)
		}
	}
}

func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"src/**", "src/a/*.go", true},
		{"src/**", "lib/**", false},
		{"**/*.go", "docs/x.md", false},
		{"**/*.go", "src/a.go", true},
		{"src/**", "src", true},
		{"src/*.go", "src/a/b.go", false},
		{"src/*.go", "src/**/b.go", true},
		{"**/*.go", "**/*.md", false},
		{"**/*.go", "src/**", true},
		{"src/*_test.go", "src/x*.go", true},
		{"src/a*", "src/b*", false},
		{"src/{a,b}/**", "src/b/x.go", true},
		{"src/{a,b}/**", "src/c/**", false},
		{"**/vendor/**", "src/vendor/a.go", true},
		{"**/vendor/**", "src/a.go", false},
		{"a/b", "a/b", true},
		{"a/b", "a/c", false},
		{"src/**", "!src/**", false},
		{"x/[/]/y", "x/**", true},
	} {
		a, b := mustCompile(t, c.a), mustCompile(t, c.b)
		if got := Overlap(a, b); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Overlap(b, a); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v (symmetry)", c.b, c.a, got, c.want)
		}
	}
}

// bothWays runs the index and the oracle and requires they agree.
func bothWays(t *testing.T, sets []Set, paths []string) []Result {
	t.Helper()
	want := Naive(sets, paths)
	got := NewIndex(sets).Lookup(paths)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("index and naive disagree\nindex: %+v\nnaive: %+v", got, want)
	}
	return got
}

func set(t *testing.T, owner int, raws ...string) Set {
	s := Set{Owner: owner}
	for _, r := range raws {
		s.Patterns = append(s.Patterns, mustCompile(t, r))
	}
	return s
}

func TestGoverningSemantics(t *testing.T) {
	sets := []Set{
		set(t, 3, "src/billing/", "!src/billing/gen/**", "src/billing/invoice.rs"),
		set(t, 1, "**/*.rs", "src/**"),                    // 0 vs 1: src/** wins though written second
		set(t, 2, "src/*/*.rs", "src/billing/*.rs"),       // 1 vs 2
		set(t, 4, "src/billing/*.rs", "src/*/invoice.rs"), // tie at 2: first written
		set(t, 5, "*.sql"),
		set(t, 6, "!src/**"), // only a negation: never governs
	}
	paths := []string{"src/billing/invoice.rs", "src/billing/gen/x.rs", "schema.sql", "db/schema.sql", "src/billing"}
	got := bothWays(t, sets, paths)
	want := []Result{
		{Owner: 1, Specificity: 1, Matches: []Match{
			{"src/billing/invoice.rs", "src/**", 1},
			{"src/billing/gen/x.rs", "src/**", 1},
			{"src/billing", "src/**", 1},
		}},
		{Owner: 2, Specificity: 2, Matches: []Match{
			{"src/billing/invoice.rs", "src/billing/*.rs", 2},
		}},
		{Owner: 3, Specificity: 4, Matches: []Match{
			{"src/billing/invoice.rs", "src/billing/invoice.rs", 4},
			{"src/billing", "src/billing/", 2},
		}},
		{Owner: 4, Specificity: 2, Matches: []Match{
			{"src/billing/invoice.rs", "src/billing/*.rs", 2},
		}},
		{Owner: 5, Specificity: 0, Matches: []Match{
			{"schema.sql", "*.sql", 0},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if got := bothWays(t, sets, nil); got != nil {
		t.Fatalf("no paths: got %+v", got)
	}
	if got := bothWays(t, nil, paths); got != nil {
		t.Fatalf("no sets: got %+v", got)
	}
}

func TestDuplicateOwnersAndPaths(t *testing.T) {
	sets := []Set{set(t, 2, "a/**"), set(t, 1, "a/x"), set(t, 2, "**/x")}
	got := bothWays(t, sets, []string{"a/x", "a/x"})
	if len(got) != 3 || got[0].Owner != 1 || got[1].Matches[0].Rule != "a/**" || got[2].Matches[0].Rule != "**/x" {
		t.Fatalf("got %+v", got)
	}
	if len(got[0].Matches) != 2 {
		t.Fatalf("duplicate input path must be reported twice: %+v", got[0])
	}
}

// TestInvalidGlobNeverMatches: a hand-built Pattern with a bad Glob is
// ignored by both the index and the oracle ("x}" would match literally in
// doublestar.Match).
func TestInvalidGlobNeverMatches(t *testing.T) {
	sets := []Set{{Owner: 1, Patterns: []Pattern{{Raw: "x}", Glob: "x}"}, {Raw: "!y}", Glob: "y}", Negated: true}, {Raw: "y}/**", Glob: "y}/**"}}}}
	if got := bothWays(t, sets, []string{"x}", "y}", "y}/a"}); got != nil {
		t.Fatalf("got %+v", got)
	}
}

func TestLookupConcurrent(t *testing.T) {
	sets, paths := GoverningWorkload(200, 7)
	ix := NewIndex(sets)
	want := Naive(sets, paths)
	done := make(chan bool)
	for range 8 {
		go func() {
			ok := true
			for range 3 {
				ok = ok && reflect.DeepEqual(ix.Lookup(paths), want)
			}
			done <- ok
		}()
	}
	for range 8 {
		if !<-done {
			t.Fatal("concurrent Lookup disagreed with Naive")
		}
	}
}

func TestBroad(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		want     bool
	}{
		{[]string{"**"}, true},
		{[]string{"**/*"}, true},
		{[]string{"/**"}, true},
		{[]string{"./**/"}, true},
		{[]string{"src/**", "**"}, true},
		{[]string{"**", "!vendor/**"}, false},
		{[]string{"**/*.go"}, false},
		{[]string{"src/**"}, false},
		{[]string{"*"}, false},
		{nil, false},
		{[]string{"[bad", "**"}, true},
	} {
		if got := Broad(c.patterns); got != c.want {
			t.Errorf("Broad(%q) = %v, want %v", c.patterns, got, c.want)
		}
	}
}
