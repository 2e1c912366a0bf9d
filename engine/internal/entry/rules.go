package entry

import (
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

var ruleKeyRE = lazyRegexp(`^([A-Za-z_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*)|\s*$)`)

// ruleField is one frontmatter key of a rule file, read leniently.
type ruleField struct {
	key    string
	str    string   // scalar value (or the folded text of a block)
	list   []string // list value
	isList bool
	folded bool // the value spans several source lines
}

// parseRuleFile reads the agent rule-file styles (cursor, copilot, agents,
// claude) as read-only conventions.
func parseRuleFile(b *builder, t string) {
	e := b.e
	style := b.src.Style
	e.ID = ruleID(b.rel)
	e.ReadOnly = true
	e.Extra["source_style"] = style

	body, bodyLine := t, 1
	fm, found, closed := splitFrontmatter(t)
	var fields []ruleField
	if found {
		if !closed {
			b.fail(CodeBadFrontmatter, 1, "frontmatter starts with --- but has no closing --- line")
			return
		}
		fields = lenientFields(fm.yaml)
		body, bodyLine = fm.body, fm.bodyLine
	}

	claudeDir, claudeRule := "", false
	if style == StyleClaude {
		claudeDir, claudeRule = claudeScope(b.rel)
	}
	var patterns []string
	always := false
	descTitle := "" // a one-line description short enough to be the title
	for _, f := range fields {
		switch strings.ToLower(f.key) {
		case "description":
			if f.isList {
				e.Summary = strings.Join(f.list, " ")
			} else {
				e.Summary = f.str
				if d := strings.TrimSpace(f.str); !f.folded && d != "" && !strings.Contains(d, "\n") && len([]rune(d)) <= maxDescTitle {
					descTitle = d
				}
			}
		case "title":
			e.Title = f.str
		case "globs", "applyto":
			if style == StyleClaude {
				// Claude Code scopes by paths only; another tool's keys in
				// a shared file are kept as they are.
				e.Extra[f.key] = fieldValue(f)
				continue
			}
			patterns = append(patterns, fieldPatterns(f)...)
		case "paths":
			if !claudeRule {
				e.Extra[f.key] = fieldValue(f)
				continue
			}
			for _, p := range fieldPatterns(f) {
				patterns = append(patterns, anchor(claudeDir, p))
			}
		case "alwaysapply":
			always = strings.EqualFold(f.str, "true")
			e.Extra[f.key] = always
		default:
			e.Extra[f.key] = fieldValue(f)
		}
	}

	switch {
	case style == StyleClaude && claudeRule && len(patterns) > 0:
		e.Paths = patterns
	case style == StyleClaude:
		// CLAUDE.md, .claude/CLAUDE.md, and a rule without paths, which
		// always applies: the directory's subtree.
		e.Paths = []string{subtree(claudeDir)}
	case style == StyleAgents:
		// Every AGENTS.md governs its own directory subtree.
		if dir := path.Dir(b.rel); dir == "." || dir == "/" || dir == "" {
			e.Paths = []string{"**"}
		} else {
			e.Paths = []string{dir + "/**"}
		}
	case always:
		// alwaysApply governs everything; its globs do not narrow it.
		e.Paths = []string{"**"}
		if len(patterns) > 0 {
			globs := make([]any, len(patterns))
			for i, p := range patterns {
				globs[i] = p
			}
			e.Extra["globs"] = globs
		}
	case len(patterns) == 0 && repoWide(b.rel, style):
		e.Paths = []string{"**"}
	default:
		e.Paths = patterns
	}

	if e.Title == "" && style == StyleCursor && descTitle != "" {
		// A Cursor rule's description says what it is; its first heading
		// is often a generic "# Implementation".
		e.Title = descTitle
	}
	importText, importLine := body, bodyLine // before the title heading is cut
	if e.Title == "" {
		doc := parseMarkdown([]byte(body), bodyLine)
		// A Cursor title is only ever a level-1 heading.
		if h, ok := firstHeading(doc.headings(), style != StyleCursor); ok {
			e.Title = h.text
			body = withoutRange(doc.src, h.start, h.end)
		}
	}
	if e.Title == "" {
		e.Title = ruleFallbackTitle(b.rel, style)
	}
	e.Body = trimBlankLines(body)
	e.Status = "active"
	e.Visibility = "team"
	if style == StyleClaude && IsLocalOnly(b.rel) {
		e.Visibility = "private"
	}
	if style == StyleClaude || style == StyleAgents {
		e.Links = readImports(b, importText, importLine)
	}
	b.fillSlices()
}

// fieldPatterns are the globs of a key: a list, or a string of
// comma-separated globs.
func fieldPatterns(f ruleField) []string {
	vals := f.list
	if !f.isList {
		vals = []string{f.str}
	}
	var out []string
	for _, v := range vals {
		out = append(out, splitPatterns(v)...)
	}
	return out
}

// fieldValue is an unknown rule-file key's value for extra.
func fieldValue(f ruleField) any {
	if !f.isList {
		return f.str
	}
	l := make([]any, len(f.list))
	for i, s := range f.list {
		l[i] = s
	}
	return l
}

// maxDescTitle is the longest Cursor description used as the title.
const maxDescTitle = 100

// ruleID is the repo-relative path without its extension; a dot file
// such as .cursorrules keeps its name.
func ruleID(rel string) string {
	base := path.Base(rel)
	if ext := path.Ext(base); ext != "" && ext != base {
		return strings.TrimSuffix(rel, ext)
	}
	return rel
}

// repoWide reports the rule files that govern the whole repository when
// they name no paths: Cursor's legacy .cursorrules and Copilot's
// .github/copilot-instructions.md.
func repoWide(rel, style string) bool {
	base := strings.ToLower(path.Base(rel))
	return (style == StyleCursor && base == ".cursorrules") || (style == StyleCopilot && base == "copilot-instructions.md")
}

// ruleFallbackTitle names a rule file without a heading.
func ruleFallbackTitle(rel, style string) string {
	base := path.Base(rel)
	switch style {
	case StyleClaude:
		if b := strings.ToLower(base); b != "claude.md" && b != "claude.local.md" {
			break
		}
		if dir := path.Dir(rel); dir != "." && dir != "" {
			return base + " (" + dir + "/)"
		}
		return base
	case StyleAgents:
		if dir := path.Dir(rel); dir != "." && dir != "" {
			return base + " (" + dir + "/)"
		}
		return base
	case StyleCopilot:
		const suf = ".instructions.md"
		if len(base) > len(suf) && strings.EqualFold(base[len(base)-len(suf):], suf) {
			return base[:len(base)-len(suf)]
		}
	}
	return StemID(base)
}

// lenientFields reads rule-file frontmatter line by line. Cursor writes
// "globs: **/*.ts", which is not valid YAML (a leading * is an alias), so a
// YAML parser cannot be trusted with it. Supported: "key: value", quoted
// values, flow lists "[a, b]", block lists ("- a" lines) and block scalars
// ("|" / ">").
func lenientFields(src string) []ruleField {
	lines := strings.Split(src, "\n")
	var out []ruleField
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		m := ruleKeyRE().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := ruleField{key: m[1]}
		v := strings.TrimSpace(m[2])
		// Indented continuation lines belong to this key.
		var cont []string
		for i+1 < len(lines) {
			n := lines[i+1]
			tn := strings.TrimSpace(n)
			if tn != "" && !strings.HasPrefix(n, " ") && !strings.HasPrefix(n, "\t") && !strings.HasPrefix(tn, "- ") && tn != "-" {
				break
			}
			cont = append(cont, n)
			i++
		}
		switch {
		case v == "" || v == "|" || v == ">" || v == "|-" || v == ">-":
			var items, text []string
			for _, c := range cont {
				tc := strings.TrimSpace(c)
				if tc == "" {
					continue
				}
				if v == "" && (strings.HasPrefix(tc, "- ") || tc == "-") {
					items = append(items, unquote(strings.TrimSpace(strings.TrimPrefix(tc, "-"))))
				} else {
					text = append(text, tc)
				}
			}
			switch {
			case len(items) > 0:
				f.list, f.isList = items, true
			case strings.HasPrefix(v, "|"):
				f.str = strings.Join(text, "\n")
				f.folded = len(text) > 1
			default:
				f.str = strings.Join(text, " ")
				f.folded = len(text) > 1
			}
		case strings.HasPrefix(v, "["):
			f.list, f.isList = flowList(v), true
		default:
			// A plain scalar may continue on indented lines (YAML folds them).
			parts := []string{unquote(v)}
			for _, c := range cont {
				if tc := strings.TrimSpace(c); tc != "" {
					parts = append(parts, tc)
				}
			}
			f.str = strings.Join(parts, " ")
			f.folded = len(parts) > 1
		}
		out = append(out, f)
	}
	return out
}

// flowList reads "[a, 'b', "c"]"; items may be unquoted globs YAML rejects.
func flowList(v string) []string {
	var n yaml.Node
	if err := safeUnmarshal([]byte(v), &n); err == nil && len(n.Content) == 1 && n.Content[0].Kind == yaml.SequenceNode {
		var out []string
		ok := true
		for _, it := range n.Content[0].Content {
			if it.Kind != yaml.ScalarNode {
				ok = false
				break
			}
			out = append(out, it.Value)
		}
		if ok {
			return out
		}
	}
	inner := strings.TrimSpace(strings.TrimPrefix(v, "["))
	inner = strings.TrimSuffix(inner, "]")
	var out []string
	for _, p := range splitPatterns(inner) {
		out = append(out, unquote(p))
	}
	return out
}

// unquote strips one pair of matching quotes, using YAML's rules for the
// escapes inside.
func unquote(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		var n yaml.Node
		if err := safeUnmarshal([]byte(v), &n); err == nil && len(n.Content) == 1 && n.Content[0].Kind == yaml.ScalarNode {
			return n.Content[0].Value
		}
		return v[1 : len(v)-1]
	}
	return v
}

// splitPatterns splits a comma-separated glob list. Commas inside brace
// groups ("**/*.{ts,tsx}") or character classes belong to their pattern.
// A bare directory ("web/") governs its subtree ("web/**").
func splitPatterns(s string) []string {
	var out []string
	depthBrace, depthBracket := 0, 0
	startIdx := 0
	add := func(p string) {
		p = unquote(strings.TrimSpace(p))
		if p == "" {
			return
		}
		if strings.HasSuffix(p, "/") {
			p += "**"
		}
		out = append(out, p)
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // an escaped character is never a separator
		case '{':
			depthBrace++
		case '}':
			if depthBrace > 0 {
				depthBrace--
			}
		case '[':
			depthBracket++
		case ']':
			if depthBracket > 0 {
				depthBracket--
			}
		case ',':
			if depthBrace == 0 && depthBracket == 0 {
				add(s[startIdx:i])
				startIdx = i + 1
			}
		}
	}
	if startIdx <= len(s) {
		add(s[startIdx:])
	}
	return out
}
