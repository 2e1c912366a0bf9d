package entry

import (
	"sort"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/kontext/kontext/engine/internal/nesting"
)

// mdDoc is a Markdown text parsed by goldmark plus what is needed to map
// nodes back to source lines. Only block structure is used: it tells
// headings, sections, paragraphs and code blocks apart, so that e.g. a
// "Status:" line inside a fenced example is never read as the status.
type mdDoc struct {
	src        []byte
	root       ast.Node
	lineStarts []int // byte offset of each line start
	firstLine  int   // file line number of src's first line
}

// heading is a top-level heading of a document.
type heading struct {
	node       *ast.Heading
	index      int // position among the document's top-level blocks
	level      int
	text       string // as written, without the # markers
	start, end int    // byte range of the whole heading (incl. setext underline and newline)
	line       int    // file line
}

// textLine is one line of a paragraph (never of code or HTML).
type textLine struct {
	text string // trimmed
	line int    // file line
}

// blockParser knows CommonMark's block structure only. Inline parsing is
// left out on purpose: nothing here needs emphasis or links as nodes, and
// goldmark's delimiter processing is quadratic on inputs like "*a*a*a…",
// which a 1 MiB file must not be able to exploit. Goldmark parsers are safe
// for concurrent use.
// Built at first use: package initialisation stays free for the calls that
// parse nothing (a warm snapshot).
var blockParser = sync.OnceValue(buildBlockParser)

func buildBlockParser() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))
}

func parseMarkdown(src []byte, firstLine int) *mdDoc {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &mdDoc{src: src, root: parseBlocks(src), lineStarts: starts, firstLine: firstLine}
}

// parseBlocks runs goldmark. A panic inside it must not take Parse down:
// the text is then read as having no structure.
func parseBlocks(src []byte) (root ast.Node) {
	defer func() {
		if recover() != nil {
			root = ast.NewDocument()
		}
	}()
	return blockParser().Parse(text.NewReader(capNesting(src)))
}

// maxPrefix bounds the run of container markers (">", list markers,
// indentation) a line may start with before goldmark sees it. Goldmark's
// block parser is quadratic in the nesting a single line opens (a 1 MiB line
// of ">" takes minutes); no real entry nests anywhere near this deep.
const maxPrefix = 128

// capNesting caps the container nesting of src at maxPrefix (offsets and
// line numbers unchanged, so positions map back onto src).
func capNesting(src []byte) []byte { return nesting.Cap(src, maxPrefix) }

// lineIndex returns the 0-based line of byte offset off.
func (d *mdDoc) lineIndex(off int) int {
	return sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > off }) - 1
}

// lineEnd returns the offset just past line i's newline (or the text end).
func (d *mdDoc) lineEnd(i int) int {
	if i+1 < len(d.lineStarts) {
		return d.lineStarts[i+1]
	}
	return len(d.src)
}

// fileLine maps a byte offset to a 1-based file line.
func (d *mdDoc) fileLine(off int) int { return d.firstLine + d.lineIndex(off) }

// blocks returns the top-level blocks.
func (d *mdDoc) blocks() []ast.Node {
	var out []ast.Node
	for c := d.root.FirstChild(); c != nil; c = c.NextSibling() {
		out = append(out, c)
	}
	return out
}

// headings returns the document's top-level headings that have text.
func (d *mdDoc) headings() []heading {
	var out []heading
	for i, b := range d.blocks() {
		h, ok := b.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		lines := h.Lines()
		var parts []string
		for j := 0; j < lines.Len(); j++ {
			seg := lines.At(j)
			parts = append(parts, strings.TrimSpace(string(seg.Value(d.src))))
		}
		txt := strings.TrimSpace(strings.Join(parts, " "))
		if txt == "" {
			continue
		}
		first := d.lineIndex(lines.At(0).Start)
		last := d.lineIndex(lines.At(lines.Len() - 1).Start)
		if !d.isATX(first) {
			last++ // setext: the underline belongs to the heading
		}
		out = append(out, heading{
			node: h, index: i, level: h.Level, text: txt,
			start: d.lineStarts[first], end: d.lineEnd(last), line: d.firstLine + first,
		})
	}
	return out
}

// isATX reports whether line i starts (after up to three spaces) with '#'.
func (d *mdDoc) isATX(i int) bool {
	s := d.src[d.lineStarts[i]:d.lineEnd(i)]
	for k := 0; k < len(s) && k < 4; k++ {
		if s[k] == '#' {
			return true
		}
		if s[k] != ' ' {
			return false
		}
	}
	return false
}

// textLines returns the paragraph lines of the given blocks and their
// descendants, in order. Code blocks and HTML blocks are skipped (their
// content is an example or a comment, never metadata), and so are headings.
func (d *mdDoc) textLines(nodes []ast.Node) []textLine {
	var out []textLine
	for _, n := range proseBlocks(nodes) {
		lines := n.Lines()
		for j := 0; j < lines.Len(); j++ {
			seg := lines.At(j)
			t := strings.TrimSpace(string(seg.Value(d.src)))
			if t != "" {
				out = append(out, textLine{text: t, line: d.fileLine(seg.Start)})
			}
		}
	}
	return out
}

// proseBlocks returns the paragraphs and list-item text blocks among nodes
// and their descendants, in order; code, HTML and headings are left out.
func proseBlocks(nodes []ast.Node) []ast.Node {
	var out []ast.Node
	// Iterative walk: nesting depth is attacker-controlled.
	stack := make([]ast.Node, 0, len(nodes))
	for i := len(nodes) - 1; i >= 0; i-- {
		stack = append(stack, nodes[i])
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch n.Kind() {
		case ast.KindFencedCodeBlock, ast.KindCodeBlock, ast.KindHTMLBlock, ast.KindHeading:
			continue
		case ast.KindParagraph, ast.KindTextBlock:
			out = append(out, n)
			continue
		}
		if n.Type() != ast.TypeBlock {
			continue
		}
		var kids []ast.Node
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			kids = append(kids, c)
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return out
}

// htmlBlocks returns the text of every HTML block (at any depth), with the
// file line it starts on.
func (d *mdDoc) htmlBlocks() []textLine {
	var out []textLine
	stack := []ast.Node{d.root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if hb, ok := n.(*ast.HTMLBlock); ok {
			var sb strings.Builder
			lines := hb.Lines()
			for j := 0; j < lines.Len(); j++ {
				seg := lines.At(j)
				sb.Write(seg.Value(d.src))
			}
			if hb.HasClosure() {
				cl := hb.ClosureLine
				sb.Write(cl.Value(d.src))
			}
			line := d.firstLine
			if lines.Len() > 0 {
				line = d.fileLine(lines.At(0).Start)
			}
			out = append(out, textLine{text: sb.String(), line: line})
			continue
		}
		if n.Type() != ast.TypeBlock && n.Type() != ast.TypeDocument {
			continue
		}
		var kids []ast.Node
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			kids = append(kids, c)
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return out
}

// withoutRange returns src with [start,end) cut out.
func withoutRange(src []byte, start, end int) string {
	return string(src[:start]) + string(src[end:])
}

// trimBlankLines drops leading blank lines and trailing whitespace, keeping
// the first line's indentation (it may be an indented code block).
func trimBlankLines(s string) string {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			break
		}
		s = s[i+1:]
	}
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return strings.TrimRight(s, " \t\n")
}

// firstHeading returns the first top-level heading of level 1, or of any
// level when anyLevel is set.
func firstHeading(hs []heading, anyLevel bool) (heading, bool) {
	for _, h := range hs {
		if anyLevel || h.level == 1 {
			return h, true
		}
	}
	return heading{}, false
}
