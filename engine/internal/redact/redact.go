// Package redact removes secrets and e-mail addresses from free text before
// kontext stores it (captured candidates, challenges, reasons). It is pure:
// Text replaces every finding by "[redacted:<kind>]" and counts them per
// kind. The rules are deliberately shape-based (token prefixes, PEM armour,
// key=value assignments) so that ordinary prose, paths and hashes — a
// 40-hex git sha is not a secret — pass through unchanged.
package redact

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// The kinds of findings, as they appear in "[redacted:<kind>]".
const (
	PrivateKey         = "private_key"
	AWSAccessKey       = "aws_access_key"
	AWSSecret          = "aws_secret"
	GCPServiceAccount  = "gcp_service_account"
	GitHubToken        = "github_token"
	SlackToken         = "slack_token"
	StripeKey          = "stripe_key"
	JWT                = "jwt"
	PasswordAssignment = "password_assignment"
	Bearer             = "bearer"
	Email              = "email"
)

// Kinds lists every kind in the order the rules run.
var Kinds = []string{GCPServiceAccount, PrivateKey, AWSAccessKey, AWSSecret, GitHubToken, SlackToken,
	StripeKey, JWT, Bearer, PasswordAssignment, Email}

// Marker is the replacement text of a finding of kind.
func Marker(kind string) string { return "[redacted:" + kind + "]" }

// rule redacts one kind: re matches a finding; when keep > 0 the first keep
// submatch groups are kept (a key name, a separator) and the rest of the
// match is replaced.
type rule struct {
	kind string
	re   *regexp.Regexp
	keep int
	// ok may veto a match (the submatches of re), e.g. an already redacted value.
	ok func(m []string) bool
}

// rules are compiled on first use: a CLI call that redacts nothing pays
// no regexp compilation at start-up.
var rules = sync.OnceValue(buildRules)

func buildRules() []rule {
	return []rule{
		// GCP service account JSON: the private_key and private_key_id fields
		// (first, so the key inside the JSON string counts as the account's).
		{kind: GCPServiceAccount, keep: 1, re: regexp.MustCompile(`("private_key(?:_id)?"\s*:\s*)"(?:[^"\\]|\\.)*(?:"|\z)`),
			ok: func(m []string) bool { return !strings.Contains(m[0], "[redacted:") }},
		// PEM private keys, armoured; an unterminated block is redacted to the end.
		{kind: PrivateKey, re: regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\z)`)},
		{kind: AWSAccessKey, re: regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b`)},
		{kind: AWSSecret, keep: 1, re: regexp.MustCompile(`(?i)((?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{20,}`)},
		{kind: GitHubToken, re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})\b`)},
		{kind: SlackToken, re: regexp.MustCompile(`\bxox[abpr]-[A-Za-z0-9-]{10,}`)},
		{kind: StripeKey, re: regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}\b`)},
		{kind: JWT, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}`)},
		// Authorization headers; a bare "Bearer <token>" only for long tokens.
		{kind: Bearer, keep: 1, re: regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?bearer\s+)[A-Za-z0-9._~+/-]+=*`)},
		{kind: Bearer, keep: 1, re: regexp.MustCompile(`(\b[Bb]earer\s+)[A-Za-z0-9._~+/-]{20,}=*`),
			ok: func(m []string) bool { return strings.ContainsAny(m[0][len(m[1]):], "0123456789") }},
		// key = value assignments of passwords, secrets and API keys.
		// The value is read by passwordValue, not by the pattern: a value
		// pattern would rescan the rest of a long run once per rejected
		// key inside it ("password=" repeated), which is quadratic.
		{kind: PasswordAssignment, keep: 1, re: regexp.MustCompile(`(?i)(\b(?:[a-z0-9]+[_.-])*(?:password|passwd|passphrase|pwd|secret|secret[_-]?key|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?token)["']?[ \t]*[:=][ \t]*)`),
			ok: func(m []string) bool {
				v := strings.Trim(m[2], `"'`)
				return v != "" && !strings.HasPrefix(v, "[redacted:") && !strings.HasPrefix(m[2], "=") && !strings.HasPrefix(m[2], ":") && !keyLike(m[2]) && m[3] == "" // a value followed by ":" is the next key
			}},
		// E-mail addresses (not ssh-style git@host remotes).
		{kind: Email, re: regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`),
			ok: func(m []string) bool { return !strings.HasPrefix(m[0], "git@") }},
	}
}

// Text returns s with every secret and e-mail address replaced by
// "[redacted:<kind>]", and how many findings of each kind it replaced (an
// empty map when none). Redacting its own output changes nothing.
func Text(s string) (string, map[string]int) {
	counts := map[string]int{}
	for _, r := range rules() {
		if !r.re.MatchString(s) {
			continue
		}
		var b strings.Builder
		var sc *valueScanner // the password rule's value reader
		last, pos := 0, 0
		for pos < len(s) {
			if searched != nil {
				searched()
			}
			loc := r.re.FindStringSubmatchIndex(s[pos:])
			if loc == nil {
				break
			}
			for i := range loc {
				if loc[i] >= 0 {
					loc[i] += pos
				}
			}
			// A search that resumes inside a word must not see a word
			// boundary there; no match starts anywhere else in this word.
			if loc[0] == pos && pos > 0 && isWord(s[pos-1]) && isWord(s[pos]) {
				pos = wordEnd(s, pos)
				continue
			}
			if r.kind == PasswordAssignment {
				// loc is the key with its separator; read the value.
				if sc == nil {
					sc = newValueScanner()
				}
				vs := loc[1]
				ve, sepEnd := sc.passwordValue(s, vs)
				if ve == vs {
					pos = max(wordEnd(s, loc[0]), vs) // no value: no finding at this key
					continue
				}
				sep := -1
				if sepEnd > ve {
					sep = ve
				}
				loc = []int{loc[0], ve, loc[2], loc[3], vs, ve, sep, sepEnd}
			}
			m := make([]string, len(loc)/2)
			for i := range m {
				if loc[2*i] >= 0 {
					m[i] = s[loc[2*i]:loc[2*i+1]]
				}
			}
			if r.ok != nil && !r.ok(m) {
				// Resuming one rune later would find the same vetoed value
				// again from every later start inside this word or key
				// (quadratic on "a.a.a…_password=="): resume after them.
				pos = wordEnd(s, loc[0])
				if r.keep > 0 {
					pos = max(pos, loc[2*r.keep+1])
				}
				continue
			}
			start := loc[0]
			if r.keep > 0 {
				start = loc[2*r.keep+1]
			}
			b.WriteString(s[last:start])
			if r.kind == GCPServiceAccount {
				b.WriteString(`"` + Marker(r.kind) + `"`)
			} else {
				b.WriteString(Marker(r.kind))
			}
			last = loc[1]
			pos = max(loc[1], next(s, loc[0]))
			counts[r.kind]++
		}
		if last > 0 {
			b.WriteString(s[last:])
			s = b.String()
		}
	}
	return s, counts
}

func isWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// wordEnd is the index after the word (ASCII letters, digits, _) that
// starts at i, or of the next rune when none starts there.
func wordEnd(s string, i int) int {
	j := i
	for j < len(s) && isWord(s[j]) {
		j++
	}
	if j == i {
		return next(s, i)
	}
	return j
}

// searched, when set (tests), is called before every search of a rule:
// the tests count searches instead of timing them.
var searched func()

// next is the index of the rune after the one at i.
func next(s string, i int) int {
	_, n := utf8.DecodeRuneInString(s[i:])
	return i + max(n, 1)
}

// keyLike reports whether an unquoted "value" is really the next key
// (password= DB_PASSWORD: x): it ends with a key word, an optional quote
// and ":" or "=". It looks at the end only, so it costs no more than the
// key word however long the value is.
func keyLike(v string) bool {
	t := strings.TrimRight(v, ":=")
	if len(t) == len(v) {
		return false
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, `"`), "'")
	tail := strings.ToLower(t[max(0, len(t)-10):])
	for _, k := range []string{"password", "passwd", "passphrase", "pwd", "secret", "key", "token"} {
		if strings.HasSuffix(tail, k) {
			return true
		}
	}
	return false
}

// valueScanner finds the value after a password key: "…", '…' or a run
// of characters other than white space and "',; — the shapes the rule
// redacts. Searches resume at nondecreasing offsets, so each scanner
// remembers its last answer and the scans add up to one pass.
type valueScanner struct {
	runFrom, runEnd int // s[runFrom:runEnd] holds no delimiter and s[runEnd] is one (or the end)
	dqFrom, dqAt    int // the first '"' or '\n' at or after dqFrom is at dqAt (-1: none)
	sqFrom, sqAt    int
}

func newValueScanner() *valueScanner {
	return &valueScanner{runFrom: -1, dqFrom: -1, sqFrom: -1}
}

func isValueDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\f', '\r', '\v', '"', '\'', ',', ';':
		return true
	}
	return false
}

// first returns the index of the first q or '\n' at or after p (-1: none),
// reusing the previous answer while it still applies.
func first(s string, p int, q byte, from, at *int) int {
	if *from >= 0 && *from <= p && (*at < 0 || *at >= p) {
		return *at
	}
	*from, *at = p, -1
	for i := p; i < len(s); i++ {
		if s[i] == q || s[i] == '\n' {
			*at = i
			break
		}
	}
	return *at
}

// passwordValue returns the end of the value starting at vs (vs when
// there is none) and the end of an optional [ \t]*[:=] right after it.
func (sc *valueScanner) passwordValue(s string, vs int) (ve, sepEnd int) {
	ve = vs
	if vs < len(s) {
		switch c := s[vs]; {
		case c == '"' || c == '\'':
			var at int
			if c == '"' {
				at = first(s, vs+1, '"', &sc.dqFrom, &sc.dqAt)
			} else {
				at = first(s, vs+1, '\'', &sc.sqFrom, &sc.sqAt)
			}
			if at >= 0 && s[at] == c {
				ve = at + 1
			}
		case !isValueDelim(c):
			if !(sc.runFrom >= 0 && sc.runFrom <= vs && vs < sc.runEnd) {
				sc.runFrom, sc.runEnd = vs, vs
				for sc.runEnd < len(s) && !isValueDelim(s[sc.runEnd]) {
					sc.runEnd++
				}
			}
			ve = sc.runEnd
		}
	}
	sepEnd = ve
	j := ve
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if ve > vs && j < len(s) && (s[j] == ':' || s[j] == '=') {
		sepEnd = j + 1
	}
	return ve, sepEnd
}

// Total is the number of findings in counts.
func Total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
