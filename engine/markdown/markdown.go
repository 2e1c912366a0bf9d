// Package markdown renders entry bodies (Markdown) to HTML for display:
// CommonMark plus GitHub Flavored Markdown (tables, strikethrough, task
// lists, autolinks), by goldmark and its own HTML renderer.
//
// The output is safe to hand to a browser's HTML parser: raw HTML in the
// source is dropped (goldmark's renderer without its unsafe option writes
// a "raw HTML omitted" comment in its place), links and images keep their
// target only for http, https, mailto, relative references and #fragments
// (any other target becomes href="" and the console shows the link as
// text; an autolink to another scheme becomes such a link), and every
// text is escaped.
// [[id]] and [[id|label]] become <a class="wikilink" data-entry-id="id">,
// without an href: the caller decides where an entry lives.
//
// Rendering is bounded for hostile input: goldmark is quadratic in the
// container nesting of one line (capped here) and in the inline content of
// one block (a paragraph over maxParagraph is shown as preformatted text,
// without inline parsing); a text over MaxSize is shown as preformatted
// text altogether.
//
// The WASM engine (its render()) and the review console link this package;
// the engine's dispatcher and the native CLI do not, so a command-line call
// never initialises goldmark's extensions.
package markdown

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/kontext/kontext/engine/internal/nesting"
)

// MaxSize is the largest text Render parses as Markdown: the cost of the
// worst case grows with the number of maxParagraph blocks, and real entry
// bodies are a few KiB.
const MaxSize = 64 << 10

// maxParagraph is the largest paragraph whose inline content is parsed.
// Goldmark's link and delimiter handling is quadratic within one block
// ("[a](" or "*a" repeated); real paragraphs are far shorter.
const maxParagraph = 4 << 10

// maxPrefix bounds the run of container markers (">", list markers,
// indentation) one line may open. No real entry nests anywhere near this.
const maxPrefix = 64

// Result is a rendered text.
type Result struct {
	// HTML is the rendered fragment (no <html>/<body>).
	HTML string `json:"html"`
	// Plain is true when the text was too large to parse and HTML is the
	// escaped text in one <pre> element.
	Plain bool `json:"plain"`
}

// md is goldmark with its GFM extension, its HTML renderer (raw HTML
// omitted), [[id]] links (wikilink.go) and the link allow-list
// (safeLinks). Built at first use, not at package initialisation.
var md = sync.OnceValue(buildMd)

func buildMd() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithParser(parser.NewParser(
			parser.WithBlockParsers(blockParsers()...),
			parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
				util.Prioritized(&wikiLinkParser{}, 199))...),
			parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
				// Before link references (100) and tables (200) read the paragraph.
				util.Prioritized(&longParagraph{}, 10))...),
			parser.WithASTTransformers(util.Prioritized(safeLinks{}, 1000)),
		)),
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(wikiLinkHTML{}, 500))),
	)
}

// Render renders src. It never fails: a text goldmark cannot handle (a
// panic or an error inside it) is shown as preformatted text, like an
// oversized one.
func Render(src string) (res Result) {
	if len(src) > MaxSize {
		return plain(src)
	}
	defer func() {
		if recover() != nil {
			res = plain(src)
		}
	}()
	out, err := render(src)
	if err != nil {
		return plain(src)
	}
	return Result{HTML: out}
}

// render parses src and writes its HTML (a panic escapes it: Render
// recovers, the fuzz test must see it).
func render(src string) (string, error) {
	var out bytes.Buffer
	err := md().Convert(nesting.Cap([]byte(src), maxPrefix), &out)
	return out.String(), err
}

func plain(src string) Result {
	return Result{HTML: "<pre><code>" + string(util.EscapeHTML([]byte(src))) + "</code></pre>\n", Plain: true}
}

// safeLinks drops the target of every link and image whose target is not
// on the allow-list (safeURL), and turns an autolink to another scheme
// into a link without a target: goldmark's renderer only drops a few
// schemes it knows to be dangerous.
type safeLinks struct{}

func (safeLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var unsafe []*ast.AutoLink
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !safeURL(util.URLEscape(n.Destination, true)) {
				n.Destination = nil
			}
		case *ast.Image:
			if !safeURL(util.URLEscape(n.Destination, true)) {
				n.Destination = nil
			}
		case *ast.AutoLink:
			if n.AutoLinkType == ast.AutoLinkURL && !safeURL(util.URLEscape(n.URL(src), false)) {
				unsafe = append(unsafe, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unsafe {
		link := ast.NewLink()
		label := ast.NewString(n.Label(src))
		label.SetRaw(true) // written escaped, as it is
		link.AppendChild(link, label)
		n.Parent().ReplaceChild(n.Parent(), n, link)
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
	lower := bytes.ToLower(url)
	return colon < 0 || bytes.HasPrefix(lower, []byte("http:")) || bytes.HasPrefix(lower, []byte("https:")) || bytes.HasPrefix(lower, []byte("mailto:"))
}

// blockParsers are goldmark's, with ATX headings (the only parser
// triggered by '#') opened only on lines up to maxParagraph: a longer one
// is read as a paragraph, which longParagraph then shows as it is.
func blockParsers() []util.PrioritizedValue {
	out := parser.DefaultBlockParsers()
	for i, v := range out {
		if bp, ok := v.Value.(parser.BlockParser); ok && bytes.IndexByte(bp.Trigger(), '#') >= 0 {
			out[i].Value = &shortHeading{bp}
		}
	}
	return out
}

type shortHeading struct{ parser.BlockParser }

func (p *shortHeading) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	if line, _ := reader.PeekLine(); len(line) > maxParagraph {
		return nil, parser.NoChildren
	}
	return p.BlockParser.Open(parent, reader, pc)
}

// longParagraph turns a paragraph over maxParagraph into a code block: its
// text is shown as it is, and inline parsing never sees it.
type longParagraph struct{}

func (*longParagraph) Transform(node *ast.Paragraph, _ text.Reader, _ parser.Context) {
	lines := node.Lines()
	size := 0
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		size += seg.Stop - seg.Start
	}
	if size <= maxParagraph {
		return
	}
	code := ast.NewCodeBlock()
	code.SetLines(lines)
	node.Parent().ReplaceChild(node.Parent(), node, code)
}
