package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/kontext/kontext/engine/api"
)

// The closed set of checkable facts two rule files can contradict on.
// Precision over reach: a line that names two tools of a family, negates,
// compares or speaks of a migration states no fact; a file that states two
// values of one fact states none; only files whose scopes overlap are
// compared, and a finding quotes one line of each.

// family is a set of tools of which a project uses one.
type family struct {
	name    string
	members []string
	// bare: any mention of a member says it is used (the names are no
	// English words); otherwise it must be a command ("pnpm install") or
	// follow use/using/with/via/prefer/run.
	bare bool
}

var families = []family{
	{"JavaScript package manager", []string{"npm", "pnpm", "yarn", "bun"}, false},
	{"Python package manager", []string{"pip", "poetry", "uv", "pipenv"}, false},
	{"JavaScript test runner", []string{"jest", "vitest", "mocha"}, true},
	{".NET test framework", []string{"xunit", "nunit", "mstest"}, true},
	{"end-to-end test tool", []string{"playwright", "cypress"}, true},
	{"JavaScript formatter", []string{"prettier", "biome"}, false},
}

// subcommands after a tool's name that make a mention a command.
var subcommands = set("install", "i", "add", "remove", "run", "test", "ci", "exec", "dlx", "build", "start",
	"dev", "lint", "x", "create", "init", "publish", "update", "upgrade", "sync", "lock", "format", "check", "write")

// users are words before a tool's name that say it is used.
var users = set("use", "using", "uses", "prefer", "with", "via", "run", "runs")

// hedges make a line state no tool or version fact: negation, migration,
// alternatives.
var hedges = set("not", "never", "don't", "dont", "avoid", "instead", "rather", "migrate", "migrating", "migrated",
	"migration", "replace", "replaced", "replacing", "deprecated", "legacy", "formerly", "previously", "unlike",
	"vs", "versus", "without", "or", "either", "nor", "except")

// ranges make a line state no version fact: comparisons, ranges, support.
var ranges = set("older", "newer", "later", "earlier", "least", "minimum", "min", "max", "maximum", "above", "below",
	"until", "since", "before", "after", "prior", "support", "supports", "supported", "compatible", "compatibility",
	"upgrade", "upgrading", "from", "through", "between", "up")

// versionRE finds "<thing> <version>": the things a project pins one
// version of. Go needs a dotted version ("go 2 levels up" is prose).
var versionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[^a-z0-9.])(node\.js|nodejs|node|golang|go|python|java|\.net|dotnet|typescript|react|ruby|php|postgresql|postgres|kotlin|angular|vue|next\.js|django|rails)\s+v?(\d+(?:\.\d+)*)([+]?)`)
})

// things gives each spelling of a versioned thing its name.
var things = map[string]string{"node.js": "Node.js", "nodejs": "Node.js", "node": "Node.js", "golang": "Go", "go": "Go",
	"python": "Python", "java": "Java", ".net": ".NET", "dotnet": ".NET", "typescript": "TypeScript", "react": "React",
	"ruby": "Ruby", "php": "PHP", "postgresql": "PostgreSQL", "postgres": "PostgreSQL", "kotlin": "Kotlin",
	"angular": "Angular", "vue": "Vue", "next.js": "Next.js", "django": "Django", "rails": "Rails"}

// alwaysRE and neverRE find "always <clause>" and "never <clause>".
var (
	alwaysRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\balways\s+([^.;:!?()]+)`) })
	neverRE  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:never|do\s+not|don['’]t)\s+([^.;:!?()]+)`)
	})
)

// notRules start a "don't" clause that prescribes nothing.
var notRules = set("need", "have", "hesitate", "worry", "mind", "know")

// articles are left out of always/never clauses.
var articles = set("the", "a", "an")

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// fact is one checkable statement of one line.
type fact struct {
	key   string // what it is about: "tool:<family>", "version:<thing>", "rule:<clause>"
	label string // the fact's name in messages
	value string
	line  int
	quote string
}

// facts are the checkable statements of one file, by key; a key whose
// lines disagree within the file is left out (the file is unclear).
func facts(ps []para) map[string][]fact {
	all := map[string][]fact{}
	for _, p := range ps {
		for i, l := range p.p.Lines {
			for _, f := range lineFacts(l) {
				f.line, f.quote = p.p.Line[i], l
				all[f.key] = append(all[f.key], f)
			}
		}
	}
	for k, fs := range all {
		for _, f := range fs[1:] {
			if !agree(fs[0], f) {
				delete(all, k)
				break
			}
		}
	}
	return all
}

// agree reports whether two statements of one fact are compatible: the
// same value, or versions one of which refines the other (20 and 20.11).
func agree(a, b fact) bool {
	if a.value == b.value {
		return true
	}
	if strings.HasPrefix(a.key, "version:") {
		return strings.HasPrefix(a.value+".", b.value+".") || strings.HasPrefix(b.value+".", a.value+".")
	}
	return false
}

// lineFacts are the facts one line states.
func lineFacts(line string) []fact {
	var out []fact
	ws := words(line)
	hedged := slices.ContainsFunc(ws, func(w string) bool { return hedges[w] }) ||
		strings.ContainsAny(line, "<>≥≤") || strings.Contains(strings.ToLower(line), "n't")
	if !hedged {
		for _, fam := range families {
			var used []string
			named := 0
			for _, m := range fam.members {
				if !slices.Contains(ws, m) {
					continue
				}
				named++
				for i, w := range ws {
					if w == m && (fam.bare || i+1 < len(ws) && subcommands[ws[i+1]] || i > 0 && users[ws[i-1]]) {
						used = append(used, m)
						break
					}
				}
			}
			if named == 1 && len(used) == 1 {
				out = append(out, fact{key: "tool:" + fam.name, label: fam.name, value: used[0]})
			}
		}
		seen := map[string]string{}
		clash := map[string]bool{}
		ranged := slices.ContainsFunc(ws, func(w string) bool { return ranges[w] })
		for _, m := range versionRE().FindAllStringSubmatch(line, -1) {
			if ranged {
				break
			}
			t := things[strings.ToLower(m[1])]
			if m[3] != "" || (t == "Go" && !strings.Contains(m[2], ".")) {
				continue // "Node 18+" is a floor, not a pin
			}
			if v, ok := seen[t]; ok && v != m[2] {
				clash[t] = true
			}
			seen[t] = m[2]
		}
		for t, v := range seen {
			if !clash[t] {
				out = append(out, fact{key: "version:" + t, label: t + " version", value: v})
			}
		}
	}
	for _, m := range alwaysRE().FindAllStringSubmatch(line, -1) {
		if c := clause(m[1]); c != "" {
			out = append(out, fact{key: "rule:" + c, label: "always/never", value: "always"})
		}
	}
	for _, m := range neverRE().FindAllStringSubmatch(line, -1) {
		if c := clause(m[1]); c != "" {
			out = append(out, fact{key: "rule:" + c, label: "always/never", value: "never"})
		}
	}
	slices.SortFunc(out, func(a, b fact) int { return strings.Compare(a.key, b.key) })
	return out
}

// clause is an always/never clause's words without articles ("" when it
// has fewer than two words, itself says always or never, or is no rule:
// "don't need to guess").
func clause(s string) string {
	var ws []string
	for i, w := range words(s) {
		if i == 0 && notRules[w] {
			return ""
		}
		if w == "always" || w == "never" || w == "not" {
			return ""
		}
		if !articles[w] {
			ws = append(ws, w)
		}
	}
	if len(ws) < 2 {
		return ""
	}
	return strings.Join(ws, " ")
}

// lineAt is one line of one doc.
type lineAt struct{ doc, line int }

// conflicts adds a finding per pair of files whose scopes overlap and
// which state different values of one fact, and returns the pairs of
// lines it quoted. A tool or a version is compared only between files of
// the same scope: a file for a narrower part of the tree that names
// another tool (the docs site on npm in a yarn repository, a nested
// service on its own Node) specialises, it does not contradict.
func conflicts(docs []Doc, byDoc [][]para, overlap func(a, b int) bool, out *[]api.LintFinding) map[[2]lineAt]bool {
	quoted := map[[2]lineAt]bool{}
	fs := make([]map[string][]fact, len(docs))
	for i := range docs {
		fs[i] = facts(byDoc[i])
	}
	for a := range docs {
		for b := a + 1; b < len(docs); b++ {
			if len(fs[a]) == 0 || len(fs[b]) == 0 || !overlap(a, b) {
				continue
			}
			var keys []string
			for k := range fs[a] {
				if _, ok := fs[b][k]; ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			same := sameScope(docs[a].Paths, docs[b].Paths)
			for _, k := range keys {
				x, y := fs[a][k][0], fs[b][k][0]
				if agree(x, y) || (!same && !strings.HasPrefix(k, "rule:")) {
					continue
				}
				quoted[[2]lineAt{{a, x.line}, {b, y.line}}] = true
				*out = append(*out, api.LintFinding{RuleID: RuleConflict, Severity: "warning", Fact: x.label,
					Locations: []api.LintLocation{{File: docs[a].real(), Line: x.line}, {File: docs[b].real(), Line: y.line}},
					Quotes:    []string{x.quote, y.quote},
					Message: fmt.Sprintf("%s: %s:%d says %s, %s:%d says %s, and both apply to the same files",
						x.label, docs[a].real(), x.line, x.value, docs[b].real(), y.line, y.value)})
			}
		}
	}
	return quoted
}

// sameScope reports whether two files govern the same paths: the same
// patterns, "**/*" and "**" alike, in any order.
func sameScope(a, b []string) bool {
	norm := func(ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			p = strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/")
			if p == "**/*" {
				p = "**"
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(norm(a), norm(b))
}
