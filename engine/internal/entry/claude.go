package entry

import (
	"path"
	"strings"
)

// Claude Code's files (style "claude"): CLAUDE.md at any depth and
// <d>/.claude/CLAUDE.md govern <d>/**; CLAUDE.local.md the same, private
// (personal and gitignored: never in a bundle, a comment or a review page);
// <d>/.claude/rules/**/*.md govern their `paths` anchored at <d>, or all of
// <d>/** without them. Their @path imports become links of type imports.

// claudeRules is the directory of Claude Code's path-scoped rules.
const claudeRules = ".claude/rules/"

// isClaudeFile reports whether rel (base: its lower-cased base name) is
// one of Claude Code's files.
func isClaudeFile(rel, base string) bool {
	if base == "claude.md" || base == "claude.local.md" {
		return true
	}
	if len(base) <= len(".md") || base[len(base)-len(".md"):] != ".md" {
		return false
	}
	_, ok := claudeRulesDir(rel)
	return ok
}

// ClaudeRulesDir is claudeRulesDir: <d> of a file under <d>/.claude/rules/.
func ClaudeRulesDir(rel string) (string, bool) { return claudeRulesDir(rel) }

// claudeRulesDir returns <d> of a file under <d>/.claude/rules/ ("" for
// the root), false when rel is not below such a directory.
func claudeRulesDir(rel string) (string, bool) {
	if strings.HasPrefix(rel, claudeRules) {
		return "", true
	}
	if i := strings.Index(rel, "/"+claudeRules); i >= 0 {
		return rel[:i], true
	}
	return "", false
}

// FileStyle is the style a file of src is read with: an agents source
// reads AGENTS.md files in its own style and Claude Code's files in the
// claude style; every other source reads its files in its own style.
func FileStyle(rel string, src Source) string {
	if src.Style == StyleAgents && lowerBase(rel) != "agents.md" && isClaudeFile(rel, lowerBase(rel)) {
		return StyleClaude
	}
	return src.Style
}

// IsLocalOnly reports the files that are personal and never leave the
// machine: Claude Code's CLAUDE.local.md (read as a private entry).
func IsLocalOnly(rel string) bool { return lowerBase(rel) == "claude.local.md" }

// claudeScope returns the directory a Claude Code file governs ("" for
// the root) and whether it is a path-scoped rule of .claude/rules.
func claudeScope(rel string) (dir string, rule bool) {
	if d, ok := claudeRulesDir(rel); ok && !strings.EqualFold(path.Base(rel), "claude.local.md") {
		return d, true
	}
	dir = path.Dir(rel)
	if dir == "." || dir == "/" {
		dir = ""
	}
	if dir == ".claude" {
		return "", false
	}
	if strings.HasSuffix(dir, "/.claude") {
		return strings.TrimSuffix(dir, "/.claude"), false
	}
	return dir, false
}

// subtree is the pattern of a directory's subtree ("**" for the root).
func subtree(dir string) string {
	if dir == "" {
		return "**"
	}
	return dir + "/**"
}

// anchor makes a .claude/rules pattern relative to <d> repo-relative.
func anchor(dir, p string) string {
	neg := strings.HasPrefix(p, "!")
	p = strings.TrimPrefix(p, "!")
	p = strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/")
	if dir != "" {
		p = dir + "/" + p
	}
	if neg {
		return "!" + p
	}
	return p
}

// maxImports bounds the imports read from one file.
const maxImports = 100

// readImports lists the @path imports of a rule file's body (bodyLine is
// its first file line) as links of type imports, targets repo-relative
// paths resolved against the file's directory. Imports in code (fenced
// or indented blocks, code spans), headings and HTML are not imports, as
// in Claude Code. @~/… and absolute paths, and paths leaving the
// repository, are left out with an info diagnostic.
func readImports(b *builder, body string, bodyLine int) []TypedLink {
	if strings.IndexByte(body, '@') < 0 {
		return nil
	}
	doc := parseMarkdown([]byte(body), bodyLine)
	var out []TypedLink
	for _, tl := range doc.textLines(doc.blocks()) {
		if strings.IndexByte(tl.text, '@') < 0 {
			continue
		}
		for _, tok := range importTokens(maskCode(tl.text)) {
			target, why := resolveImport(b.rel, tok)
			if why != "" {
				b.diags = append(b.diags, Diagnostic{File: b.rel, Line: tl.line, Severity: "info", Code: CodeIgnoredImport,
					Message: "import @" + tok + " " + why + "; kontext reads only files inside the repository, so it is ignored"})
				continue
			}
			if target == "" || target == b.rel || len(out) >= maxImports {
				continue
			}
			dup := false
			for _, l := range out {
				dup = dup || l.Target == target
			}
			if !dup {
				out = append(out, TypedLink{Type: LinkImports, Target: target, Text: "@" + tok})
			}
		}
	}
	return out
}

// maskCode blanks the code spans and inline HTML comments of one line.
func maskCode(s string) string {
	if strings.IndexByte(s, '`') < 0 && !strings.Contains(s, "<!--") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); {
		switch {
		case b[i] == '`':
			n := 0
			for i+n < len(b) && b[i+n] == '`' {
				n++
			}
			end := closingRun(b, i+n, n)
			if end < 0 {
				i += n // no closing run: the backticks are literal
				continue
			}
			for k := i; k < end+n; k++ {
				b[k] = ' '
			}
			i = end + n
		case strings.HasPrefix(string(b[i:]), "<!--"):
			end := strings.Index(string(b[i+4:]), "-->")
			stop := len(b)
			if end >= 0 {
				stop = i + 4 + end + 3
			}
			for k := i; k < stop; k++ {
				b[k] = ' '
			}
			i = stop
		default:
			i++
		}
	}
	return string(b)
}

// closingRun finds a run of exactly n backticks at or after from.
func closingRun(b []byte, from, n int) int {
	for i := from; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		m := 0
		for i+m < len(b) && b[i+m] == '`' {
			m++
		}
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// importTokens are the @tokens of a line that name a file: "@" at the
// start of the line or after a space or an opening bracket, then a path
// whose last segment has an extension (AGENTS.md, package.json) or a
// home (~/) or absolute path. Mentions (@alice) and npm scopes
// (@types/node) are not imports.
func importTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '@' || (i > 0 && !strings.ContainsRune(" \t([{\"'", rune(s[i-1]))) {
			continue
		}
		j := i + 1
		for j < len(s) && !strings.ContainsRune(" \t`()[]{}<>\"',;|*", rune(s[j])) {
			j++
		}
		tok := strings.TrimRight(s[i+1:j], ".:!?")
		i = j - 1
		if tok == "" || strings.Contains(tok, "://") || strings.ContainsRune(tok, '@') {
			continue
		}
		if strings.HasPrefix(tok, "~/") || hasExtension(tok) {
			out = append(out, tok)
		}
	}
	return out
}

// hasExtension reports whether the last segment of p is a file name with
// an extension that starts with a letter ("x.md", not "v1.2" or ".env").
func hasExtension(p string) bool {
	seg := p[strings.LastIndexByte(p, '/')+1:]
	dot := strings.LastIndexByte(seg, '.')
	if dot <= 0 || dot == len(seg)-1 {
		return false
	}
	c := seg[dot+1]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// resolveImport resolves tok against rel's directory: the repo-relative
// target, or why it is not followed.
func resolveImport(rel, tok string) (string, string) {
	switch {
	case strings.HasPrefix(tok, "~/"):
		return "", "names a file in the user's home directory"
	case strings.HasPrefix(tok, "/") || (len(tok) > 2 && tok[1] == ':' && (tok[2] == '/' || tok[2] == '\\')):
		return "", "is an absolute path"
	}
	t := path.Join(path.Dir(rel), tok)
	if t == ".." || strings.HasPrefix(t, "../") {
		return "", "leaves the repository"
	}
	return t, ""
}

// ImportsOnly reports whether e's file holds nothing but @path imports
// (front matter, HTML comments and blank lines aside): such a file is an
// alias of the entry its first import names, when that is an entry.
func ImportsOnly(e *Entry) bool {
	if len(e.Links) == 0 || e.Links[0].Type != LinkImports {
		return false
	}
	t := normalizeText(e.Markdown)
	if fm, found, closed := splitFrontmatter(t); found {
		if !closed {
			return false
		}
		t = fm.body
	}
	for {
		i := strings.Index(t, "<!--")
		if i < 0 {
			break
		}
		end := strings.Index(t[i+4:], "-->")
		if end < 0 {
			t = t[:i]
			break
		}
		t = t[:i] + " " + t[i+4+end+3:]
	}
	n := 0
	for _, f := range strings.Fields(t) {
		if len(f) < 2 || f[0] != '@' {
			return false
		}
		n++
	}
	return n > 0
}
