package redact

//go:generate go run ./gen -in third_party/gitleaks/gitleaks.toml -out rules_gen.go

import (
	"math"
	"regexp"
	"strings"
	"sync"
)

// genRule is one rule of gitleaks' rule list, as go generate wrote it into
// rules_gen.go. Its findings are of kind id with "-" as "_"
// ("gcp-api-key" → "[redacted:gcp_api_key]"). As in gitleaks, the secret
// is capture group group, or the first non-empty group, or the whole
// match; a secret at or under entropy bits per character (when entropy is
// set), or one an allowlist allows, is not a finding.
type genRule struct {
	id       string
	re       string
	group    int
	entropy  float64
	keywords []string // lower case; the rule runs only on a text that contains one
	allow    []genAllow
}

// What an allowlist's regexes are matched against.
const (
	allowSecret = iota
	allowMatch
	allowLine
)

// genAllow is an allowlist of gitleaks (without paths and commits, which
// free text does not have): the finding is allowed when one of regexes
// matches the target or the lower-case secret contains a stop word (both,
// when and is set).
type genAllow struct {
	target    int
	and       bool
	regexes   []string
	stopwords []string
}

type compiledAllow struct {
	genAllow
	res []*regexp.Regexp
}

type compiledRule struct {
	kind  string
	re    *regexp.Regexp
	allow []compiledAllow
}

// A rule's patterns are compiled the first time a text holds one of its
// keywords: most calls compile none of the generated rules.
var (
	compiledOnce = make([]sync.Once, len(gitleaksRules))
	compiled     = make([]compiledRule, len(gitleaksRules))
	globalAllow  = sync.OnceValue(func() []compiledAllow { return compileAllow(gitleaksAllow) })
)

func compileAllow(as []genAllow) []compiledAllow {
	out := make([]compiledAllow, len(as))
	for i, a := range as {
		out[i].genAllow = a
		for _, re := range a.regexes {
			out[i].res = append(out[i].res, regexp.MustCompile(re))
		}
	}
	return out
}

func gitleaksRule(i int) *compiledRule {
	compiledOnce[i].Do(func() {
		r := &gitleaksRules[i]
		compiled[i] = compiledRule{kind: strings.ReplaceAll(r.id, "-", "_"), re: regexp.MustCompile(r.re), allow: compileAllow(r.allow)}
	})
	return &compiled[i]
}

// GeneratedRules is the number of rules generated from gitleaks' list and
// Upstream the number of rules in that list (the others are left out by
// go generate; rules_gen.go says which and why).
func GeneratedRules() (generated, upstream int) { return len(gitleaksRules), upstreamRules }

// keywordIndex finds which of the generated rules' keywords (all at least
// two bytes long) a text holds in one pass: the first two bytes of each
// keyword index it, and only a position whose two bytes start some
// keyword is compared.
type keywordIndex struct {
	words  []string
	pairs  [1 << 16 / 64]uint64 // the bit of a pair is set when a keyword starts with it
	byPair map[uint16][]int
	rules  [][]int // the keyword ids of each rule (nil: none, the rule always runs)
}

var keywords = sync.OnceValue(func() *keywordIndex {
	x := &keywordIndex{byPair: map[uint16][]int{}, rules: make([][]int, len(gitleaksRules))}
	ids := map[string]int{}
	for i, r := range gitleaksRules {
		for _, k := range r.keywords {
			id, ok := ids[k]
			if !ok {
				id = len(x.words)
				ids[k] = id
				x.words = append(x.words, k)
				p := uint16(k[0])<<8 | uint16(k[1]) // go generate keeps keywords of two bytes or more
				x.pairs[p/64] |= 1 << (p % 64)
				x.byPair[p] = append(x.byPair[p], id)
			}
			x.rules[i] = append(x.rules[i], id)
		}
	}
	return x
})

// found returns, per keyword id, whether the lower-case text holds it.
func (x *keywordIndex) found(lower string) []bool {
	seen := make([]bool, len(x.words))
	for i := 0; i+1 < len(lower); i++ {
		p := uint16(lower[i])<<8 | uint16(lower[i+1])
		if x.pairs[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		for _, id := range x.byPair[p] {
			if !seen[id] && strings.HasPrefix(lower[i:], x.words[id]) {
				seen[id] = true
			}
		}
	}
	return seen
}

// generated applies the gitleaks rules to s, adding their findings to
// counts. The keywords are found in one pass over the lower-case text; each
// rule whose keyword s holds is then one FindAll pass over s (Go's regexp
// is linear in the text). A replacement only removes text and adds a
// marker, which no rule matches, so the keywords are found once.
func generated(s string, counts map[string]int) string {
	kw := keywords()
	seen := kw.found(strings.ToLower(s))
	for i := range gitleaksRules {
		r := &gitleaksRules[i]
		run := len(kw.rules[i]) == 0
		for _, id := range kw.rules[i] {
			run = run || seen[id]
		}
		if !run {
			continue
		}
		c := gitleaksRule(i)
		if searched != nil {
			searched()
		}
		locs := c.re.FindAllStringSubmatchIndex(s, -1)
		if locs == nil {
			continue
		}
		var b strings.Builder
		last := 0
		for _, loc := range locs {
			ss, se := secretSpan(loc, r.group)
			if ss < last || se <= ss {
				continue
			}
			secret := s[ss:se]
			if strings.Contains(secret, "[redacted:") || insideMarker(s, ss) {
				continue
			}
			if r.entropy != 0 && entropy(secret) <= r.entropy {
				continue
			}
			if allowed(s, loc, secret, globalAllow()) || allowed(s, loc, secret, c.allow) {
				continue
			}
			b.WriteString(s[last:ss])
			b.WriteString(Marker(c.kind))
			last = se
			counts[c.kind]++
		}
		if last > 0 {
			b.WriteString(s[last:])
			s = b.String()
		}
	}
	return s
}

// secretSpan is the part of a match that is the secret: group g when set,
// else the first non-empty group, else the whole match (gitleaks' rule).
func secretSpan(loc []int, g int) (int, int) {
	if g > 0 {
		if 2*g+1 < len(loc) && loc[2*g] >= 0 {
			return loc[2*g], loc[2*g+1]
		}
		return 0, 0
	}
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] >= 0 && loc[i+1] > loc[i] {
			return loc[i], loc[i+1]
		}
	}
	return loc[0], loc[1]
}

// insideMarker reports whether offset i of s is inside a
// "[redacted:<kind>]" marker (kinds are short: it looks back 64 bytes).
func insideMarker(s string, i int) bool {
	from := max(0, i-64)
	j := strings.LastIndex(s[from:i], "[redacted:")
	if j < 0 {
		return false
	}
	k := strings.IndexByte(s[from+j:min(len(s), i+1)], ']')
	return k < 0 || from+j+k >= i
}

// lineAround bounds the line an allowlist sees to this many bytes on each
// side of the match, so a text with no newline costs no more per finding.
const lineAround = 1024

func allowed(s string, loc []int, secret string, as []compiledAllow) bool {
	for _, a := range as {
		target := secret
		switch a.target {
		case allowMatch:
			target = s[loc[0]:loc[1]]
		case allowLine:
			from := max(0, loc[0]-lineAround)
			if k := strings.LastIndexByte(s[from:loc[0]], '\n'); k >= 0 {
				from += k + 1
			}
			to := min(len(s), loc[1]+lineAround)
			if k := strings.IndexByte(s[loc[1]:to], '\n'); k >= 0 {
				to = loc[1] + k
			}
			target = s[from:to]
		}
		re, sw := false, false
		for _, x := range a.res {
			if x.MatchString(target) {
				re = true
				break
			}
		}
		if len(a.stopwords) > 0 {
			l := strings.ToLower(secret)
			for _, w := range a.stopwords {
				if strings.Contains(l, w) {
					sw = true
					break
				}
			}
		}
		if a.and {
			if (len(a.res) == 0 || re) && (len(a.stopwords) == 0 || sw) {
				return true
			}
		} else if re || sw {
			return true
		}
	}
	return false
}

// entropy is the Shannon entropy of s as gitleaks measures it: rune
// frequencies over the length in bytes.
func entropy(s string) float64 {
	n := map[rune]int{}
	for _, r := range s {
		n[r]++
	}
	e, l := 0.0, float64(len(s))
	for _, c := range n {
		if c > 0 {
			p := float64(c) / l
			e -= p * math.Log2(p)
		}
	}
	return e
}
