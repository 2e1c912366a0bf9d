package entry

import (
	"path"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	"go.yaml.in/yaml/v3"
)

var (
	// "7. Title", "007. Title", "ADR 7: Title", "ADR-0007 - Title", "7) Title", "23 Logging".
	adrTitleRE = lazyRegexp(`(?i)^(adr[\s#_-]*)?#?(\d{1,9})(\s*[.:)]\s+|\s*[.:)]$|\s+[-–—:]\s+|\s+|$)(.*)$`)
	// "Status: Accepted", "* Status: accepted", "**Status:** Accepted".
	statusLineRE = lazyRegexp(`(?i)^(?:[-*+]\s+)?[*_]*status[*_]*\s*:\s*(.*)$`)
	// "Date: 2024-03-01", "* Date: …", "**Date:** …", and "Date 09/04/2018" without a colon.
	dateLineRE = lazyRegexp(`(?i)^(?:[-*+]\s+)?[*_]*date[*_]*(?:\s*:\s*(.*\S)|\s+(\d.*\S))\s*$`)
	// An inline Markdown link [text](dest "title"); the text may hold one
	// level of brackets ("[3. Mark [BETA] endpoints](0003-….md)").
	linkRE = lazyRegexp(`\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^()\s<>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
	// A supersede relation without a link: "Supersedes ADR-3", "Replaces: 3",
	// "Superceded by #8" (adr-tools' spelling).
	// "Superseded 19" and "Superseded: 19" (no "by") say the same as
	// "Superseded by 19".
	bareRelRE = lazyRegexp(`(?i)^(supersedes|supercedes|replaces|superseded\s+by|superceded\s+by|replaced\s+by|superseded|superceded)\s*:?\s*((?:adr[\s#_-]*)?#?(\d{1,9}))\b`)
	// The same with a record's id or file name: "Superseded by 0008-use-x.md".
	bareIDRelRE = lazyRegexp(`(?i)^(supersedes|supercedes|replaces|superseded\s+by|superceded\s+by|replaced\s+by|superseded|superceded)\s*:?\s*([A-Za-z0-9][\w.]*-[\w.-]*\w)\s*[.;]?\s*$`)
	// A date after a status word ("Superseded 2019-05-13") is no target.
	dateTargetRE = lazyRegexp(`^\d{1,4}[-/.]\d{1,2}(?:[-/.]\d{1,4})?\b`)
	// The leading number of a link text: "9. Use managed PostgreSQL", "ADR-0009".
	linkNumberRE = lazyRegexp(`(?i)^(?:adr[\s#_-]*)?#?(\d{1,9})\b`)
	kontextKeyRE = lazyRegexp(`^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$`)
)

// parseADR reads an adr-tools / Nygard / MADR file as it is written, messy
// variations included (README "Entry formats").
func parseADR(b *builder, t string) {
	e := b.e
	e.ID = StemID(b.rel)
	// Frontmatter (MADR 3+) is parsed first but applied last: its values
	// take precedence over what the body says.
	fmFields, body, bodyLine, ok := b.readFrontmatter(t)
	if !ok {
		return
	}
	fmHas := map[string]bool{}
	for _, f := range fmFields {
		fmHas[f.key] = true
	}

	doc := parseMarkdown([]byte(body), bodyLine)
	hs := doc.headings()
	blocks := doc.blocks()

	// Title: the first "# " heading; a file whose first block is a heading of
	// another level uses that one, unless it is the status section.
	title, hasTitle := firstHeading(hs, false)
	if !hasTitle && len(hs) > 0 && hs[0].index == 0 {
		if name, _ := headingName(hs[0].text); name != "status" {
			title, hasTitle = hs[0], true
		}
	}
	_, fileNum, hasFileNum := leadingNumber(e.ID)
	if hasFileNum {
		e.ADRNumber, e.HasADRNumber = fileNum, true
	}
	if hasTitle {
		e.Title = title.text
		if m := adrTitleRE().FindStringSubmatch(title.text); m != nil {
			n, nok := ParseADRNumber(m[2])
			// A bare "2024 roadmap" is a title, not ADR 2024: without "ADR"
			// or a separator, strip the number only when the file agrees.
			bare := m[1] == "" && strings.TrimSpace(m[3]) == ""
			if nok && (!bare || !hasFileNum || n == fileNum) {
				if rest := strings.TrimSpace(m[4]); rest != "" {
					e.Title = rest
				}
				if !hasFileNum {
					e.ADRNumber, e.HasADRNumber = n, true
				}
			}
		}
	}

	// Preamble: the blocks between the title and the next heading (Date:,
	// MADR "* Status:" bullets).
	start := 0
	if hasTitle {
		start = title.index + 1
	}
	var preamble []ast.Node
	for i := start; i < len(blocks); i++ {
		if _, isH := blocks[i].(*ast.Heading); isH {
			break
		}
		preamble = append(preamble, blocks[i])
	}
	preLines := doc.textLines(preamble)

	// The status section: "## Status" (any level, any case, emoji or colon
	// tolerated) up to the next heading of the same or a higher level.
	var secLines []textLine
	var headingStatus *textLine
	for k, h := range hs {
		if hasTitle && h.index == title.index {
			continue
		}
		name, value := headingName(h.text)
		if name != "status" {
			continue
		}
		if value != "" {
			headingStatus = &textLine{text: value, line: h.line}
		}
		end := len(blocks)
		for _, h2 := range hs[k+1:] {
			if h2.level <= h.level {
				end = h2.index
				break
			}
		}
		var sec []ast.Node
		for i := h.index + 1; i < end; i++ {
			if _, isH := blocks[i].(*ast.Heading); isH {
				break // a sub-heading ends the status words
			}
			sec = append(sec, blocks[i])
		}
		secLines = doc.textLines(sec)
		break
	}

	// Status: the heading's own value, else the first status line of the
	// section, else a "Status:" line anywhere outside code.
	allLines := doc.textLines(blocks)
	var statusLine *textLine
	switch {
	case headingStatus != nil:
		statusLine = headingStatus
	default:
		for i := range secLines {
			if raw, ok := statusCandidate(secLines[i].text); ok {
				statusLine = &textLine{text: raw, line: secLines[i].line}
				break
			}
		}
		if statusLine == nil {
			for _, l := range allLines {
				if m := statusLineRE().FindStringSubmatch(stripLead(l.text)); m != nil {
					if raw, ok := statusCandidate(m[1]); ok {
						statusLine = &textLine{text: raw, line: l.line}
						break
					}
				}
			}
		}
	}
	if statusLine != nil {
		b.setString("status", statusLine.text, statusLine.line)
	}

	// Date: the first Date line of the preamble or status section, else of
	// the whole document.
	for _, group := range [][]textLine{preLines, secLines, allLines} {
		found := false
		for _, l := range group {
			if m := dateLineRE().FindStringSubmatch(l.text); m != nil {
				raw := m[1]
				if raw == "" {
					raw = m[2]
				}
				raw = strings.TrimSpace(strings.Trim(strings.TrimSpace(stripComment(raw)), "*_"))
				if raw != "" && !strings.HasPrefix(raw, "[") && !strings.HasPrefix(raw, "{") { // not a template placeholder
					b.setString("date", raw, l.line)
					found = true
					break
				}
			}
		}
		if found {
			break
		}
	}

	// Relations: link lines of the preamble, the status section and the
	// status line itself (also kept in extra.links as before), then MADR's
	// "## Links" bullets and "More Information" lines.
	rels := relationLines{}
	// Outside the status section only lines that start with a relation word
	// count, so prose such as "This ADR builds on [3](…)" is not a link.
	for _, l := range preLines {
		rels.add(l.text, true, true)
	}
	for _, l := range secLines {
		rels.add(l.text, false, true)
	}
	if statusLine != nil {
		rels.add(statusLine.text, false, true)
	}
	for _, name := range []string{"links", "more information"} {
		for _, l := range doc.textLines(sectionBlocks(hs, blocks, name)) {
			// MADR 2's Links bullets are all links ("* Relates to […]"); in
			// More Information only a line starting with a relation word is.
			rels.add(l.text, name != "links", false)
		}
	}
	// MADR front matter "status: superseded by ADR-0008" (or a link).
	for _, f := range fmFields {
		if f.key == "status" && f.node != nil && f.node.Kind == yaml.ScalarNode {
			rels.add(f.node.Value, false, false)
		}
	}
	if rels.sup != nil {
		b.setList("supersedes", rels.sup, 0)
	}
	if rels.supBy != nil {
		b.setList("superseded_by", rels.supBy, 0)
	}
	if len(rels.extra) > 0 {
		e.Extra["links"] = rels.extra
	}
	e.Links = rels.typed
	readBulletMeta(b, preLines)

	// kontext metadata comment, then frontmatter: later wins.
	for _, hb := range doc.htmlBlocks() {
		fields, ok := kontextBlock(hb.text, hb.line)
		if !ok {
			continue
		}
		if !b.applyFields(fields, true, "kontext metadata") {
			return
		}
		break
	}
	if !b.applyFields(fmFields, true, "frontmatter") {
		return
	}

	// Body: everything but the title heading when the title came from it.
	if hasTitle && !fmHas["title"] {
		body = withoutRange(doc.src, title.start, title.end)
	}
	if e.Title == "" {
		e.Title = e.ID
	}
	e.placeholder = !e.HasADRNumber && !fmHas["title"] && (!hasTitle || IsPlaceholderTitle(title.text))
	if iso, ok := DatePrefix(e.ID); ok && e.DateRaw == "" {
		e.Date = iso // log4brains names records by date; date_raw stays null
	}
	e.Body = trimBlankLines(body)
	b.finish(false)
}

// relationWords start the relation lines accepted outside a status section.
const relationWords = "supersedes superseded replaces replaced supercedes superceded " +
	"amends amended clarifies clarified reverts reverted extends extended " +
	"relates related refines refined deprecates deprecated depends"

// headingName returns a heading's lower-cased name without emoji, numbering
// or trailing colon ("📌 Status:" → "status"), and the value of a
// "Status: Accepted" heading.
func headingName(h string) (name, value string) {
	s := stripLead(h)
	if m := statusLineRE().FindStringSubmatch(s); m != nil {
		return "status", strings.TrimSpace(m[1])
	}
	s = strings.TrimRight(s, " :*_")
	return strings.ToLower(s), ""
}

// stripLead drops leading characters that are not letters or digits:
// bullets, emoji, emphasis, brackets.
func stripLead(s string) string {
	return strings.TrimLeftFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// statusCandidate reports whether a status-section line states the status
// and returns it as written. Lines that only relate to other ADRs
// ("Supersedes [3]…", "Amends …") and Date lines are not the status; a
// "Superseded by [9](…)" or "Reverted by […]" line is.
func statusCandidate(line string) (string, bool) {
	s := strings.TrimSpace(line)
	if m := statusLineRE().FindStringSubmatch(stripLead(s)); m != nil {
		s = strings.TrimSpace(m[1])
	}
	if dateLineRE().MatchString(s) {
		return "", false
	}
	if rel, _, ok := parseRelation(s); ok {
		if first, _, _ := strings.Cut(rel, " "); !oneOf(knownStatuses, first) {
			return "", false
		}
	}
	raw := strings.TrimSpace(strings.Trim(s, "*_"))
	if raw == "" || CanonicalStatus(raw) == "" {
		return "", false
	}
	return raw, true
}

// relTarget is one target of a relation line: the target as the file
// names it (a file stem, an ADR number, an id) and the text as written.
type relTarget struct {
	id, text string
	// elsewhere: the link's file lies in another directory than the
	// record's (a document such as ../../scenarios/x.md), so it names no
	// record of this log for a typed link.
	elsewhere bool
}

// parseRelation reads a relation line: a few words followed by one or more
// links ("Superseded by [9. …](0009-….md)"), or a supersede relation with a
// bare ADR number or id. The relation is lower-cased, with adr-tools'
// "superceded by"/"supercedes" read as "superseded by"/"supersedes", and a
// bare "Superseded [20](…)" / "Superseded: 20" as "superseded by".
func parseRelation(line string) (rel string, targets []relTarget, ok bool) {
	s := stripLead(strings.TrimSpace(line))
	if m := statusLineRE().FindStringSubmatch(s); m != nil {
		s = stripLead(m[1])
	}
	locs := linkRE().FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		if m := bareIDRelRE().FindStringSubmatch(s); m != nil && !isADRNumber(m[2]) && !dateTargetRE().MatchString(m[2]) {
			id := m[2]
			if strings.HasSuffix(strings.ToLower(id), ".md") {
				id = StemID(id)
			}
			return normalizeRel(m[1]), []relTarget{{id: id, text: m[2]}}, true
		}
		if m := bareRelRE().FindStringSubmatch(s); m != nil && !dateTargetRE().MatchString(s[len(m[0])-len(m[3]):]) {
			return normalizeRel(m[1]), []relTarget{{id: m[3], text: m[2]}}, true
		}
		return "", nil, false
	}
	prefix := strings.TrimSpace(strings.Trim(strings.TrimSpace(s[:locs[0][0]]), "*_:"))
	if !isRelationPrefix(prefix) {
		return "", nil, false
	}
	words := strings.Fields(strings.ToLower(prefix))
	for len(words) > 1 && words[len(words)-1] == "adr" {
		words = words[:len(words)-1] // "Supersedes ADR [3](…)"
	}
	if len(words) == 0 || len(words) > 4 {
		return "", nil, false
	}
	for _, loc := range locs {
		text := s[loc[2]:loc[3]]
		if t := linkTarget(text, s[loc[4]:loc[5]]); t != "" {
			dup := false
			for _, x := range targets {
				dup = dup || x.id == t
			}
			if !dup {
				targets = append(targets, relTarget{id: t, text: text, elsewhere: inOtherDir(s[loc[4]:loc[5]])})
			}
		}
	}
	if len(targets) == 0 {
		return "", nil, false
	}
	return normalizeRel(strings.Join(words, " ")), targets, true
}

// isADRNumber reports whether s is only an ADR number ("ADR-3", "#3").
func isADRNumber(s string) bool {
	_, ok := ParseADRNumber(s)
	return ok
}

// normalizeRel lower-cases a relation phrase and spells supersession one
// way.
func normalizeRel(rel string) string {
	r := strings.Join(strings.Fields(strings.ToLower(rel)), " ")
	switch r {
	case "supercedes":
		return "supersedes"
	case "superceded by", "superseded", "superceded":
		// "⌛️ Superseded [20](0020-x.md)": the status word followed by a
		// link, without "by", names the newer record.
		return "superseded by"
	}
	return r
}

// inOtherDir reports a link destination that is a file path with a
// directory part ("../../docs/x.md", "guides/x.md"; not "./0003-x.md").
func inOtherDir(dest string) bool {
	if i := strings.IndexAny(dest, "#?"); i >= 0 {
		dest = dest[:i]
	}
	if dest == "" || strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") {
		return false
	}
	return path.Dir(path.Clean(dest)) != "."
}

// linkTarget turns a link into a target: the stem of the target file, or,
// when the link points at no file (an empty or in-page destination), the
// ADR number of its text. A link to a web page is no record.
func linkTarget(text, dest string) string {
	d := dest
	if i := strings.IndexAny(d, "#?"); i >= 0 {
		d = d[:i]
	}
	isURL := strings.Contains(d, "://") || strings.HasPrefix(d, "mailto:")
	if d != "" {
		base := path.Base(d)
		ext := strings.ToLower(path.Ext(base))
		if (ext == ".md" || ext == ".markdown" || ext == ".html" || (ext == "" && !isURL)) && base != "." && base != "/" && base != ".." {
			if id := StemID(base); id != "" {
				return id
			}
		}
	}
	text = strings.TrimSpace(text)
	if isURL && !(len(text) > 3 && strings.EqualFold(text[:3], "adr")) {
		return "" // a web page; "[ADR-16](https://…/16)" still names ADR 16
	}
	if m := linkNumberRE().FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// kontextBlock parses a "<!-- kontext … -->" comment: one "key: value" per
// line, each value read as YAML (a flow list, a quoted or plain scalar) and
// kept as plain text when it is not valid YAML ("src/**").
func kontextBlock(html string, line int) ([]yamlField, bool) {
	s := strings.TrimSpace(html)
	if !strings.HasPrefix(s, "<!--") {
		return nil, false
	}
	s = strings.TrimSpace(s[len("<!--"):])
	if len(s) < len("kontext") || !strings.EqualFold(s[:len("kontext")], "kontext") {
		return nil, false
	}
	s = s[len("kontext"):]
	if s != "" && (unicode.IsLetter(rune(s[0])) || unicode.IsDigit(rune(s[0]))) {
		return nil, false // "<!-- kontextual …" is another comment
	}
	if i := strings.LastIndex(s, "-->"); i >= 0 {
		s = s[:i]
	}
	var out []yamlField
	for i, l := range strings.Split(s, "\n") {
		m := kontextKeyRE().FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		out = append(out, yamlField{key: m[1], node: lineValue(m[2]), line: line + i})
	}
	return out, true
}

// lineValue reads one value of a kontext comment.
func lineValue(v string) *yaml.Node {
	v = strings.TrimSpace(v)
	if v == "" {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	var doc yaml.Node
	if err := safeUnmarshal([]byte(v), &doc); err == nil && len(doc.Content) == 1 {
		n := doc.Content[0]
		if n.Kind == yaml.ScalarNode || n.Kind == yaml.SequenceNode {
			return n
		}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

func appendUnique(list []string, vals ...string) []string {
	for _, v := range vals {
		dup := false
		for _, x := range list {
			if x == v {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, v)
		}
	}
	return list
}

func containsLink(list []Link, l Link) bool {
	for _, x := range list {
		if x == l {
			return true
		}
	}
	return false
}

// isRelationPrefix reports whether s looks like a relation phrase: a
// letter, then at most 60 letters, spaces or hyphens. (A regexp with a
// repeated \p{L} class costs milliseconds to compile at start-up.)
func isRelationPrefix(s string) bool {
	n := 0
	for i, r := range s {
		switch {
		case unicode.IsLetter(r):
		case i > 0 && (r == ' ' || r == '-'):
		default:
			return false
		}
		n++
	}
	return n >= 1 && n <= 61
}
