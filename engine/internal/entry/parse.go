package entry

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Parse parses one file of src (rel is repo-relative, "/"-separated). It
// returns the entry, or nil when the file is not an entry; then diags holds
// an error-severity diagnostic (bad_frontmatter, too_large when
// len(data) > MaxFileSize, not_utf8). Warnings (missing_status, bad_date,
// bad_value, unknown_kind…) and infos (ignored_import) come with an entry.
// It never panics.
func Parse(rel string, data []byte, src Source) (*Entry, []Diagnostic) {
	b := parse(rel, data, src)
	if b.failed {
		return nil, b.diags
	}
	return b.e, b.diags
}

// FieldLine returns the file line (1-based) that the parsed value of a
// single-value field (status, date, verify, …) was read from: the
// frontmatter key, the kontext comment line, or, in an ADR, the status
// heading, section line or "Status:" bullet. 0 when the file states none
// (or is not an entry). An in-place edit changes exactly that line.
func FieldLine(rel string, data []byte, src Source, key string) int {
	b := parse(rel, data, src)
	if b.failed {
		return 0
	}
	return b.lines[key]
}

func parse(rel string, data []byte, src Source) *builder {
	src.Style = FileStyle(rel, src)
	b := newBuilder(rel, data, src)
	// The size check comes first: nothing else may touch a huge file.
	if len(data) > MaxFileSize {
		b.fail(CodeTooLarge, 0, fmt.Sprintf("file is %d bytes, more than the %d-byte limit", len(data), MaxFileSize))
		return b
	}
	if !utf8.Valid(data) {
		b.fail(CodeNotUTF8, 0, "file is not valid UTF-8")
		return b
	}
	t := normalizeText(string(data))
	switch src.Style {
	case StyleADR:
		parseADR(b, t)
	case StyleCursor, StyleCopilot, StyleAgents, StyleClaude:
		parseRuleFile(b, t)
	default:
		parseFrontmatterStyle(b, t)
	}
	return b
}

// normalizeText drops a byte-order mark and CRLF line ends, so that the
// parsers see one line convention (Markdown keeps the exact text).
func normalizeText(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	if strings.Contains(s, "\r") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s
}

// builder accumulates one entry and its diagnostics. Raw values are stored
// as they are set (later sources override earlier ones) and validated once
// in finish, so a value that is overridden never produces a warning.
type builder struct {
	rel    string
	src    Source
	e      *Entry
	diags  []Diagnostic
	failed bool
	conv   *yconv

	lines     map[string]int // file line of each field, for diagnostics
	kindRaw   string
	reviewRaw string
	visRaw    string
	verifyRaw string
	hasVerify bool
}

func newBuilder(rel string, data []byte, src Source) *builder {
	kind := src.Kind
	if k, ok := NormalizeKind(kind); ok {
		kind = k
	}
	return &builder{
		rel: rel, src: src, conv: &yconv{}, lines: map[string]int{},
		e: &Entry{
			Kind: kind, File: rel, Markdown: string(data), Style: src.Style,
			ReadOnly: src.ReadOnly, Extra: map[string]any{},
		},
	}
}

func (b *builder) fail(code string, line int, msg string) {
	b.failed = true
	b.diags = append(b.diags, Diagnostic{File: b.rel, Line: line, Severity: "error", Code: code, Message: msg})
}

func (b *builder) warn(code string, line int, msg string) {
	b.diags = append(b.diags, Diagnostic{File: b.rel, Line: line, Severity: "warning", Code: code, Message: msg})
}

// listKeys are the fields that are always arrays. (Word lists, not map
// literals: a map is built by code at start-up, which grew the WASM engine.)
const listKeys = "paths tags supersedes superseded_by extends commits"

// scalarKeys are the known single-value fields.
const scalarKeys = "id kind title status date summary visibility review_by checked verify"

// applyYAML stores one metadata field. In ADR files (adr) the id and kind
// come from the file name and the source, so those keys are kept in extra.
// The error is fatal (alias bomb).
func (b *builder) applyYAML(f yamlField, adr bool) error {
	key := f.key
	switch {
	case oneOf(listKeys, key):
		vals, ok, err := b.conv.strings(f.node)
		if err != nil {
			return err
		}
		if !ok {
			b.warn(CodeBadValue, f.line, fmt.Sprintf("%s: items must be single values; others were ignored", key))
		}
		b.setList(key, vals, f.line)
		return nil
	case oneOf(scalarKeys, key) && !(adr && (key == "id" || key == "kind")):
		s, isNull, ok, err := b.conv.scalar(f.node)
		if err != nil {
			return err
		}
		if !ok {
			b.warn(CodeBadValue, f.line, fmt.Sprintf("%s must be a single value; ignored", key))
			return nil
		}
		if isNull {
			return nil
		}
		b.setString(key, s, f.line)
		return nil
	}
	v, err := b.conv.value(f.node, 0, false)
	if err != nil {
		return err
	}
	b.e.Extra[key] = v
	return nil
}

// setString stores a known single-value field as written.
func (b *builder) setString(key, raw string, line int) {
	e := b.e
	v := strings.TrimSpace(raw)
	if key != "verify" && v == "" {
		return
	}
	b.lines[key] = line
	switch key {
	case "id":
		e.ID = v
	case "kind":
		b.kindRaw = v
	case "title":
		e.Title = v
	case "status":
		e.StatusRaw = v
	case "date":
		e.DateRaw = v
	case "summary":
		e.Summary = v
	case "visibility":
		b.visRaw = v
	case "review_by":
		b.reviewRaw = v
	case "checked":
		e.Checked = v
	case "verify":
		b.verifyRaw, b.hasVerify = strings.TrimRight(raw, "\n"), true
	}
}

// setList stores a list field.
func (b *builder) setList(key string, vals []string, line int) {
	b.lines[key] = line
	e := b.e
	switch key {
	case "paths":
		e.Paths = vals
	case "tags":
		e.Tags = vals
	case "supersedes":
		e.Supersedes = vals
	case "superseded_by":
		e.SupersededBy = vals
	case "extends":
		e.Extends = vals
	case "commits":
		e.Commits = vals
	}
}

// finish validates the stored raw values and fills defaults. defaultStatus
// is false for ADR files, whose missing status is reported instead.
func (b *builder) finish(defaultStatus bool) {
	e := b.e
	if b.kindRaw != "" {
		if k, ok := NormalizeKind(b.kindRaw); ok {
			e.Kind = k
		} else {
			b.warn(CodeUnknownKind, b.lines["kind"], fmt.Sprintf("unknown kind %q; read as %q", b.kindRaw, e.Kind))
		}
	}
	if e.StatusRaw != "" {
		e.Status = CanonicalStatus(e.StatusRaw)
	}
	if e.Status == "" {
		if defaultStatus {
			e.Status = DefaultStatus(e.Kind)
		} else {
			b.warn(CodeMissingStatus, b.lines["status"], "no status found (no ## Status section or Status: line)")
		}
	}
	if e.DateRaw != "" {
		if d, ok := ParseDate(e.DateRaw); ok {
			e.Date = d
		} else {
			b.warn(CodeBadDate, b.lines["date"], fmt.Sprintf("date %q is not a date", e.DateRaw))
		}
	}
	if b.reviewRaw != "" {
		if d, ok := ParseDate(b.reviewRaw); ok {
			e.ReviewBy = d
			if e.Date != "" && d < e.Date {
				b.warn(CodeBadDate, b.lines["review_by"], fmt.Sprintf("review_by %s is before date %s", d, e.Date))
			}
		} else {
			b.warn(CodeBadDate, b.lines["review_by"], fmt.Sprintf("review_by %q is not a date", b.reviewRaw))
		}
	} else if b.src.ReviewAfter != "" && e.Date != "" {
		if d, err := AddReviewAfter(e.Date, b.src.ReviewAfter); err == nil {
			e.ReviewBy = d
		} else {
			b.warn(CodeBadValue, 0, "review_after: "+err.Error())
		}
	}
	if b.hasVerify {
		v := strings.TrimSpace(b.verifyRaw)
		switch {
		case strings.ContainsAny(v, "\n\r"):
			b.warn(CodeBadValue, b.lines["verify"], "verify must be one line; ignored")
		case utf8.RuneCountInString(v) > 500:
			b.warn(CodeBadValue, b.lines["verify"], "verify is longer than 500 characters; ignored")
		default:
			e.Verify = v
		}
	}
	e.Visibility = "team"
	if b.visRaw != "" {
		switch v := strings.ToLower(b.visRaw); v {
		case "team", "private":
			e.Visibility = v
		default:
			b.warn(CodeBadValue, b.lines["visibility"], fmt.Sprintf("visibility %q is not team or private; read as team", b.visRaw))
		}
	}
	b.fillSlices()
}

// fillSlices makes every list non-nil: outputs always carry arrays.
func (b *builder) fillSlices() {
	e := b.e
	for _, p := range []*[]string{&e.Paths, &e.Tags, &e.Supersedes, &e.SupersededBy, &e.Extends, &e.Commits} {
		if *p == nil {
			*p = []string{}
		}
	}
	if e.Extra == nil {
		e.Extra = map[string]any{}
	}
	if e.Links == nil {
		e.Links = []TypedLink{}
	}
}

// readFrontmatter splits off and parses a YAML frontmatter block. It
// returns its fields (not yet applied), the body and the body's first file
// line; ok is false when the file is not an entry (the error diagnostic is
// recorded).
func (b *builder) readFrontmatter(t string) (fields []yamlField, body string, bodyLine int, ok bool) {
	fm, found, closed := splitFrontmatter(t)
	if !found {
		return nil, t, 1, true
	}
	if !closed {
		b.fail(CodeBadFrontmatter, 1, "frontmatter starts with --- but has no closing --- line")
		return nil, "", 0, false
	}
	fields, dups, err := parseYAMLFields(fm.yaml, fm.startLine, b.conv)
	if err != nil {
		line := fm.startLine
		if ey, ok := err.(*errYAML); ok {
			line = ey.line
		}
		b.fail(CodeBadFrontmatter, line, "invalid frontmatter: "+err.Error())
		return nil, "", 0, false
	}
	for _, d := range dups {
		b.warn(CodeBadValue, d.line, fmt.Sprintf("key %q appears twice; the first value is used", d.key))
	}
	return fields, fm.body, fm.bodyLine, true
}

// applyFields stores frontmatter fields; false when the file turned out not
// to be an entry (alias bomb).
func (b *builder) applyFields(fields []yamlField, adr bool, what string) bool {
	for _, f := range fields {
		if err := b.applyYAML(f, adr); err != nil {
			b.fail(CodeBadFrontmatter, f.line, "invalid "+what+": "+err.Error())
			return false
		}
	}
	return true
}

// parseFrontmatterStyle reads the default style: YAML frontmatter (optional:
// a plain Markdown file is an entry with every default) and a Markdown body.
func parseFrontmatterStyle(b *builder, t string) {
	fields, body, bodyLine, ok := b.readFrontmatter(t)
	if !ok || !b.applyFields(fields, false, "frontmatter") {
		return
	}
	e := b.e
	if e.ID == "" {
		e.ID = StemID(b.rel)
	}
	if e.Title == "" {
		doc := parseMarkdown([]byte(body), bodyLine)
		if h, ok := firstHeading(doc.headings(), false); ok {
			e.Title = h.text
			body = withoutRange(doc.src, h.start, h.end)
		}
	}
	if e.Title == "" {
		e.Title = e.ID
	}
	e.Body = trimBlankLines(body)
	b.finish(true)
}
