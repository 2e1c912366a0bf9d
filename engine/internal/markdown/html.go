package markdown

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// The HTML writer walks goldmark's AST itself instead of linking goldmark's
// renderer (renderer/html, the goldmark package, the extensions'
// renderers), which would cost the WASM engine more than the rest of this
// package. For the node kinds below it writes what goldmark's renderer
// writes with its default options (no raw HTML, no attributes;
// parity_test.go compares them), except that link and image targets are
// kept only for http, https, mailto, relative references and #fragments
// (goldmark keeps every scheme but a few), a code block's language becomes
// a class only when it is a plain token, and named character references
// are left for the browser (see namedRef). Nodes of any other kind write
// only their children.

// htmlWriter writes the HTML of one document.
type htmlWriter struct {
	bytes.Buffer
	src []byte
}

func (w *htmlWriter) node(n ast.Node, entering bool) (ast.WalkStatus, error) {
	switch n := n.(type) {
	case *ast.Document:
	case *ast.Paragraph:
		w.pair(entering, "<p>", "</p>\n")
	case *ast.Heading:
		level := string(rune('0' + min(max(n.Level, 1), 6)))
		w.pair(entering, "<h"+level+">", "</h"+level+">\n")
	case *ast.ThematicBreak:
		w.pair(entering, "<hr>\n", "")
	case *ast.CodeBlock:
		w.codeBlock(n, entering, nil)
	case *ast.FencedCodeBlock:
		w.codeBlock(n, entering, n.Language(w.src))
	case *ast.Blockquote:
		w.pair(entering, "<blockquote>\n", "</blockquote>\n")
	case *ast.List:
		w.list(n, entering)
	case *ast.ListItem:
		if !entering {
			w.WriteString("</li>\n")
			break
		}
		w.WriteString("<li>")
		if fc := n.FirstChild(); fc != nil && fc.Kind() != ast.KindTextBlock {
			w.WriteByte('\n')
		}
	case *ast.TextBlock:
		if !entering && n.NextSibling() != nil && n.FirstChild() != nil {
			w.WriteByte('\n')
		}
	case *ast.HTMLBlock:
		// Raw HTML is never markup: a comment stands where it was.
		if entering || n.HasClosure() {
			w.WriteString("<!-- raw HTML omitted -->\n")
		}
	case *ast.RawHTML:
		if entering {
			w.WriteString("<!-- raw HTML omitted -->")
		}
		return ast.WalkSkipChildren, nil
	case *ast.Text:
		if entering {
			w.text(n)
		}
	case *ast.String:
		if entering {
			w.string(n)
		}
	case *ast.CodeSpan:
		if entering {
			w.codeSpan(n)
		}
		return ast.WalkSkipChildren, nil
	case *ast.Emphasis:
		if n.Level == 2 {
			w.pair(entering, "<strong>", "</strong>")
		} else {
			w.pair(entering, "<em>", "</em>")
		}
	case *ast.Link:
		if !entering {
			w.WriteString("</a>")
			break
		}
		w.WriteString(`<a href="`)
		w.url(urlEscape(n.Destination))
		w.WriteByte('"')
		w.title(n.Title)
		w.WriteByte('>')
	case *ast.AutoLink:
		if entering {
			w.autoLink(n)
		}
		return ast.WalkSkipChildren, nil
	case *ast.Image:
		if entering {
			w.image(n)
		}
		return ast.WalkSkipChildren, nil
	case *node:
		return w.gfm(n, entering), nil
	}
	return ast.WalkContinue, nil
}

// pair writes open when entering the node and close when leaving it.
func (w *htmlWriter) pair(entering bool, open, close string) {
	if entering {
		w.WriteString(open)
	} else {
		w.WriteString(close)
	}
}

func (w *htmlWriter) codeBlock(n ast.Node, entering bool, lang []byte) {
	if !entering {
		w.WriteString("</code></pre>\n")
		return
	}
	w.WriteString("<pre><code")
	if lang != nil && safeLanguage(lang) {
		w.WriteString(` class="language-`)
		w.Write(lang)
		w.WriteByte('"')
	}
	w.WriteByte('>')
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		w.raw(seg.Value(w.src))
	}
}

// safeLanguage reports whether a fenced code block's info word is a plain
// token (go, c++, objective-c, shell-session, …) fit for a class name.
func safeLanguage(lang []byte) bool {
	if len(lang) == 0 || len(lang) > 64 {
		return false
	}
	for _, c := range lang {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || bytes.IndexByte([]byte("+-_.#"), c) >= 0) {
			return false
		}
	}
	return true
}

func (w *htmlWriter) list(n *ast.List, entering bool) {
	tag := "ul"
	if n.IsOrdered() {
		tag = "ol"
	}
	if !entering {
		w.WriteString("</" + tag + ">\n")
		return
	}
	w.WriteString("<" + tag)
	if n.IsOrdered() && n.Start != 1 {
		w.WriteString(` start="` + strconv.Itoa(n.Start) + `"`)
	}
	w.WriteString(">\n")
}

func (w *htmlWriter) text(n *ast.Text) {
	value := n.Segment.Value(w.src)
	if n.IsRaw() {
		w.raw(value)
		return
	}
	w.escaped(value)
	if n.HardLineBreak() {
		w.WriteString("<br>\n")
	} else if n.SoftLineBreak() {
		w.WriteByte('\n')
	}
}

func (w *htmlWriter) string(n *ast.String) {
	if n.IsRaw() || n.IsCode() {
		w.raw(n.Value)
	} else {
		w.escaped(n.Value)
	}
}

func (w *htmlWriter) codeSpan(n *ast.CodeSpan) {
	// In a table cell, "\|" is a pipe that does not end the cell (GFM).
	inCell := false
	for p := n.Parent(); p != nil && !inCell; p = p.Parent() {
		inCell = p.Kind() == kindTableCell
	}
	w.WriteString("<code>")
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		var value []byte
		switch c := c.(type) {
		case *ast.Text:
			value = c.Segment.Value(w.src)
		case *ast.String:
			value = c.Value
		}
		// A line ending inside a code span is a space.
		nl := len(value) > 0 && value[len(value)-1] == '\n'
		if nl {
			value = value[:len(value)-1]
		}
		for inCell {
			i := bytes.Index(value, []byte(`\|`))
			if i < 0 {
				break
			}
			w.raw(value[:i])
			value = value[i+1:]
		}
		w.raw(value)
		if nl {
			w.WriteByte(' ')
		}
	}
	w.WriteString("</code>")
}

func (w *htmlWriter) autoLink(n *ast.AutoLink) {
	w.WriteString(`<a href="`)
	url := percentEncode(n.URL(w.src))
	if n.AutoLinkType == ast.AutoLinkEmail && !hasPrefixFold(url, "mailto:") {
		url = append([]byte("mailto:"), url...)
	}
	w.url(url)
	w.WriteString(`">`)
	w.raw(n.Label(w.src))
	w.WriteString("</a>")
}

// image writes an <img> whose alt is the image's text. The console never
// loads it (it shows the alt text); its target obeys the link rules.
func (w *htmlWriter) image(n *ast.Image) {
	w.WriteString(`<img src="`)
	w.url(urlEscape(n.Destination))
	w.WriteString(`" alt="`)
	w.texts(n)
	w.WriteByte('"')
	w.title(n.Title)
	w.WriteByte('>')
}

// texts writes the text under n without markup (an image's alt).
func (w *htmlWriter) texts(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.String:
			w.string(c)
		case *ast.Text:
			w.text(c)
		default:
			w.texts(c)
		}
	}
}

func (w *htmlWriter) title(title []byte) {
	if title != nil {
		w.WriteString(` title="`)
		w.escaped(title)
		w.WriteByte('"')
	}
}

// gfm writes this package's own nodes: wiki links and tables.
func (w *htmlWriter) gfm(n *node, entering bool) ast.WalkStatus {
	switch n.kind {
	case kindWikiLink:
		if entering {
			w.WriteString(`<a class="wikilink" data-entry-id="`)
			w.raw(n.target)
			w.WriteString(`">`)
			w.raw(n.label)
			w.WriteString(`</a>`)
		}
		return ast.WalkSkipChildren
	case kindTable:
		w.pair(entering, "<table>\n", "</table>\n")
	case kindTableHead:
		if entering {
			w.WriteString("<thead>\n<tr>\n")
			break
		}
		w.WriteString("</tr>\n</thead>\n")
		if n.NextSibling() != nil {
			w.WriteString("<tbody>\n")
		}
	case kindTableRow:
		if entering {
			w.WriteString("<tr>\n")
			break
		}
		w.WriteString("</tr>\n")
		if n.NextSibling() == nil {
			w.WriteString("</tbody>\n")
		}
	case kindTableCell:
		tag := "td"
		if p := n.Parent(); p != nil && p.Kind() == kindTableHead {
			tag = "th"
		}
		if !entering {
			w.WriteString("</" + tag + ">\n")
			break
		}
		w.WriteString("<" + tag)
		if n.align != "" {
			w.WriteString(` style="text-align:` + n.align + `"`)
		}
		w.WriteByte('>')
	}
	return ast.WalkContinue
}

// url writes an escaped link target (already URL-escaped), or nothing
// when it is not safe to follow: the console shows such a link as text.
func (w *htmlWriter) url(url []byte) {
	if safeURL(url) {
		w.Write(util.EscapeHTML(url))
	}
}

// safeURL reports whether url (percent-encoded) is an http, https or
// mailto URL, a #fragment or a relative reference. A space, control
// character or backslash (which percent-encoding leaves none of) makes it
// unsafe: browsers ignore some of them inside a scheme.
func safeURL(url []byte) bool {
	colon := -1
	for i, c := range url {
		if c <= ' ' || c == 0x7f || c == '\\' {
			return false
		}
		if c == ':' && colon < 0 {
			colon = i
		}
		if (c == '/' || c == '?' || c == '#') && colon < 0 {
			return true // relative: no scheme before the path, query or fragment
		}
	}
	return colon < 0 || hasPrefixFold(url, "http:") || hasPrefixFold(url, "https:") || hasPrefixFold(url, "mailto:")
}

// hasPrefixFold reports whether s starts with prefix (lower-case ASCII),
// ignoring case.
func hasPrefixFold(s []byte, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// raw writes s escaped, as it is (code, URLs already resolved).
func (w *htmlWriter) raw(s []byte) {
	n := 0
	for i, c := range s {
		if e := util.EscapeHTMLByte(c); e != nil {
			w.Write(s[n:i])
			w.Write(e)
			n = i + 1
		}
	}
	w.Write(s[n:])
}

// escaped writes Markdown text escaped: a backslash before punctuation is
// dropped, and character references (&copy; &#123;) are kept for the
// browser (see charRef).
func (w *htmlWriter) escaped(s []byte) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && util.IsPunct(s[i+1]):
			i++
			w.raw(s[i : i+1])
		case c == '&':
			if size := charRef(s[i:]); size > 0 {
				w.Write(s[i : i+size])
				i += size - 1
			} else {
				w.WriteString("&amp;")
			}
		default:
			w.raw(s[i : i+1])
		}
	}
}

// charRef returns the length of the character reference ("&copy;",
// "&#123;", "&#x1F;") at the start of s, or 0. Render writes references
// as they are, for the browser to resolve: goldmark's table of HTML5
// entity names would cost the WASM engine more than this whole package.
// The longest name ("&CounterClockwiseContourIntegral;") bounds the
// search for ';', so text full of '&' stays linear.
func charRef(s []byte) int {
	end := bytes.IndexByte(s[:min(len(s), 40)], ';')
	if end < 2 {
		return 0
	}
	name := s[1:end]
	if name[0] == '#' {
		name = name[1:]
		if len(name) > 0 && (name[0] == 'x' || name[0] == 'X') {
			name = name[1:]
		}
		if len(name) == 0 || len(name) > 7 {
			return 0
		}
	}
	for _, c := range name {
		if !util.IsAlphaNumeric(c) {
			return 0
		}
	}
	return end + 1
}

// urlEscape is a link target as goldmark resolves it (backslash escapes
// dropped, &amp; resolved, then percent-encoded), except that other
// character references stay literal text of the URL (see charRef).
func urlEscape(dest []byte) []byte {
	out := make([]byte, 0, len(dest))
	for i := 0; i < len(dest); i++ {
		if dest[i] == '\\' && i+1 < len(dest) && util.IsPunct(dest[i+1]) {
			i++ // the escaped character itself is appended below
		} else if bytes.HasPrefix(dest[i:], []byte("&amp;")) {
			i += len("&amp") // the ';' is skipped, '&' appended
			out = append(out, '&')
			continue
		}
		out = append(out, dest[i])
	}
	return percentEncode(out)
}

// urlSafe holds the bytes a URL keeps as they are.
const urlSafe = "!#$&'()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~"

// percentEncode encodes what a URL cannot hold as it is (spaces, quotes,
// angle brackets, non-ASCII bytes) as %XX, like goldmark's util.URLEscape,
// which would link net/url into the WASM engine.
func percentEncode(v []byte) []byte {
	const hex = "0123456789ABCDEF"
	out := make([]byte, 0, len(v))
	for i, c := range v {
		if strings.IndexByte(urlSafe, c) >= 0 || c == '%' && i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]) {
			out = append(out, c)
		} else {
			out = append(out, '%', hex[c>>4], hex[c&15])
		}
	}
	return out
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
