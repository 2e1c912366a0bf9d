package kb

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// overlayHeader opens an overlay that kontext creates.
const overlayHeader = `# Paths for entries whose files kontext does not edit (ADR logs kept by
# other tools, agent rule files). Keys are entry ids, or repository-relative
# files for rule files; each list of globs adds to the paths the file
# declares. Written by kontext paths add|remove (drafts.set_paths).
version = 1

[paths]
`

// SetOverlayKey returns the overlay text with key's globs set to globs
// (the key's line removed when globs is empty). Everything else keeps its
// bytes: the key's assignment is replaced in place, a new key goes into
// the [paths] table (in sorted position when the table is sorted), and an
// absent overlay is created in the canonical form. When the text is laid
// out in a way this edit cannot follow (an inline paths table, dotted
// keys), the overlay is written anew in the canonical form and rewritten
// is true. The result always parses back to the intended globs.
func SetOverlayKey(text []byte, key string, globs []string) (out []byte, rewritten bool, err error) {
	var before *Overlay
	if len(text) > 0 {
		var diags []string
		o, ds := ParseOverlay(OverlayFile, text)
		for _, d := range ds {
			if d.Severity == "error" {
				diags = append(diags, d.Message)
			}
		}
		if o == nil {
			return nil, false, fmt.Errorf("the overlay is not valid (%s); fix it first", strings.Join(diags, "; "))
		}
		before = o
	}
	want := func(res []byte) bool {
		o, _ := ParseOverlay(OverlayFile, res)
		if o == nil || !slices.Equal(o.Globs[key], globs) || (len(globs) == 0 && slices.Contains(o.Keys, key)) {
			return false
		}
		if before != nil {
			for _, k := range before.Keys {
				if k != key && !slices.Equal(o.Globs[k], before.Globs[k]) {
					return false
				}
			}
		}
		return true
	}
	if edited, ok := editOverlay(string(text), key, globs); ok && want([]byte(edited)) {
		return []byte(edited), false, nil
	}
	all := map[string][]string{}
	if before != nil {
		for _, k := range before.Keys {
			all[k] = before.Globs[k]
		}
	}
	all[key] = globs
	res := []byte(FormatOverlay(all))
	if !want(res) {
		return nil, false, fmt.Errorf("the overlay does not read back as written")
	}
	return res, before != nil, nil
}

// FormatOverlay is the canonical overlay text of globs by key (keys
// sorted, keys without globs left out).
func FormatOverlay(globs map[string][]string) string {
	keys := make([]string, 0, len(globs))
	for k, g := range globs {
		if len(g) > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(overlayHeader)
	for _, k := range keys {
		b.WriteString(overlayLine(k, globs[k], "\n"))
	}
	return b.String()
}

func overlayLine(key string, globs []string, nl string) string {
	q := make([]string, len(globs))
	for i, g := range globs {
		q[i] = tomlString(g)
	}
	return tomlString(key) + " = [" + strings.Join(q, ", ") + "]" + nl
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// assignment is one key = value of the overlay text: its table, its key,
// the offset where its line starts and where its value ends.
type assignment struct {
	table      string
	key        string
	start, end int // start of the line; end just after the value
	lineEnd    int // just after the newline that ends the value's line
}

// editOverlay sets key in the text's [paths] table; ok is false when the
// layout is not one it can edit in place.
func editOverlay(text, key string, globs []string) (string, bool) {
	nl := "\n"
	if strings.Contains(text, "\r\n") {
		nl = "\r\n"
	}
	if strings.TrimSpace(text) == "" {
		if len(globs) == 0 {
			return text, true
		}
		return strings.ReplaceAll(overlayHeader, "\n", nl) + overlayLine(key, globs, nl), true
	}
	as, header, ok := scanOverlay(text)
	if !ok {
		return "", false
	}
	var inPaths []assignment
	for _, a := range as {
		if a.table == "" && a.key == "paths" || strings.HasPrefix(a.key, "paths.") && a.table == "" {
			return "", false // an inline or dotted paths table
		}
		if a.table == "paths" {
			inPaths = append(inPaths, a)
		}
	}
	for _, a := range inPaths {
		if a.key != key {
			continue
		}
		if len(globs) == 0 {
			return text[:a.start] + text[a.lineEnd:], true
		}
		line := text[a.start:a.end]
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		return text[:a.start] + indent + strings.TrimSuffix(overlayLine(key, globs, nl), nl) + text[a.end:], true
	}
	if len(globs) == 0 {
		return text, true
	}
	add := overlayLine(key, globs, nl)
	if header < 0 {
		if !strings.HasSuffix(text, "\n") {
			text += nl
		}
		return text + nl + "[paths]" + nl + add, true
	}
	if len(inPaths) == 0 {
		return text[:header] + add + text[header:], true
	}
	sorted := slices.IsSortedFunc(inPaths, func(a, b assignment) int { return strings.Compare(a.key, b.key) })
	if sorted {
		for _, a := range inPaths {
			if a.key > key {
				return text[:a.start] + add + text[a.start:], true
			}
		}
	}
	last := inPaths[len(inPaths)-1]
	at := last.lineEnd
	if at == len(text) && !strings.HasSuffix(text, "\n") {
		return text + nl + strings.TrimSuffix(add, nl), true
	}
	return text[:at] + add + text[at:], true
}

// scanOverlay finds the assignments of a TOML text and the offset just
// after the [paths] header line (-1 when there is none). ok is false for
// what it does not follow (array tables, multi-line strings outside
// values it can skip, a header it cannot read).
func scanOverlay(text string) (as []assignment, header int, ok bool) {
	header = -1
	table := ""
	for p := 0; p < len(text); {
		eol := strings.IndexByte(text[p:], '\n')
		lineEnd := len(text)
		if eol >= 0 {
			lineEnd = p + eol + 1
		}
		t := strings.TrimSpace(text[p:lineEnd])
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
			p = lineEnd
			continue
		case strings.HasPrefix(t, "[["):
			return nil, 0, false
		case strings.HasPrefix(t, "["):
			close := strings.IndexByte(t, ']')
			if close < 0 {
				return nil, 0, false
			}
			name := strings.TrimSpace(t[1:close])
			if k, ok := unquoteKey(name); ok {
				name = k
			}
			table = name
			if table == "paths" {
				header = lineEnd
			}
			p = lineEnd
			continue
		}
		k, rest, found := cutKey(text[p:lineEnd])
		if !found {
			return nil, 0, false
		}
		valStart := lineEnd - len(rest)
		end, ok := valueEnd(text, valStart)
		if !ok {
			return nil, 0, false
		}
		le := strings.IndexByte(text[end:], '\n')
		after := len(text)
		if le >= 0 {
			after = end + le + 1
		}
		as = append(as, assignment{table: table, key: k, start: p, end: end, lineEnd: after})
		p = after
	}
	return as, header, true
}

// cutKey reads `key =` at the start of line (a bare, "basic" or 'literal'
// key; a dotted key is returned whole) and returns the text after "=".
func cutKey(line string) (key, rest string, ok bool) {
	s := strings.TrimLeft(line, " \t")
	var raw string
	switch {
	case strings.HasPrefix(s, `"`):
		i := 1
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) {
			return "", "", false
		}
		raw, s = s[:i+1], s[i+1:]
	case strings.HasPrefix(s, "'"):
		i := strings.IndexByte(s[1:], '\'')
		if i < 0 {
			return "", "", false
		}
		raw, s = s[:i+2], s[i+2:]
	default:
		i := strings.IndexByte(s, '=')
		if i < 0 {
			return "", "", false
		}
		raw, s = strings.TrimSpace(s[:i]), s[i:]
	}
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, "=") {
		// a dotted key after a quoted part: keep it whole, it is not ours
		i := strings.IndexByte(s, '=')
		if i < 0 {
			return "", "", false
		}
		return raw + strings.TrimSpace(s[:i]), s[i+1:], true
	}
	k, ok := unquoteKey(raw)
	if !ok {
		return "", "", false
	}
	return k, s[1:], true
}

func unquoteKey(raw string) (string, bool) {
	switch {
	case strings.HasPrefix(raw, `"`):
		k, err := strconv.Unquote(raw)
		return k, err == nil
	case strings.HasPrefix(raw, "'") && strings.HasSuffix(raw, "'") && len(raw) >= 2:
		return raw[1 : len(raw)-1], true
	}
	return raw, raw != ""
}

// valueEnd returns the offset just after the value that starts at (or
// after blanks from) p: an array spanning lines, a string, or a scalar up
// to a comment or the end of the line.
func valueEnd(text string, p int) (int, bool) {
	for p < len(text) && (text[p] == ' ' || text[p] == '\t') {
		p++
	}
	if p >= len(text) {
		return 0, false
	}
	if strings.HasPrefix(text[p:], `"""`) || strings.HasPrefix(text[p:], "'''") {
		q := text[p : p+3]
		i := strings.Index(text[p+3:], q)
		if i < 0 {
			return 0, false
		}
		return p + 3 + i + 3, true
	}
	depth := 0
	for i := p; i < len(text); i++ {
		switch c := text[i]; c {
		case '"':
			i++
			for i < len(text) && text[i] != '"' && text[i] != '\n' {
				if text[i] == '\\' {
					i++
				}
				i++
			}
		case '\'':
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return 0, false
			}
			i += j + 1
		case '#':
			if depth == 0 {
				return len(strings.TrimRight(text[:i], " \t")), i > p
			}
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case '\n', '\r':
			if depth == 0 {
				return len(strings.TrimRight(text[:i], " \t")), true
			}
		}
		if i >= len(text) {
			return 0, false
		}
	}
	if depth != 0 {
		return 0, false
	}
	return len(strings.TrimRight(text, " \t\r\n")), true
}
