package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// wikiLink is a [[target|label]] link to an entry.
type wikiLink struct {
	ast.BaseInline
	target, label []byte
}

var kindWikiLink = ast.NewNodeKind("WikiLink")

func (n *wikiLink) Kind() ast.NodeKind { return kindWikiLink }

func (n *wikiLink) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// wikiLinkHTML writes a wiki link as <a class="wikilink"
// data-entry-id="id">label</a>.
type wikiLinkHTML struct{}

func (wikiLinkHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindWikiLink, func(w util.BufWriter, _ []byte, an ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			n := an.(*wikiLink)
			_, _ = w.WriteString(`<a class="wikilink" data-entry-id="`)
			_, _ = w.Write(util.EscapeHTML(n.target))
			_, _ = w.WriteString(`">`)
			_, _ = w.Write(util.EscapeHTML(n.label))
			_, _ = w.WriteString(`</a>`)
		}
		return ast.WalkSkipChildren, nil
	})
}

// wikiLinkParser runs before goldmark's link parser (priority 200) on '['
// and takes only a complete [[…]] on the current line; anything else falls
// through to the link parser.
type wikiLinkParser struct{}

func (*wikiLinkParser) Trigger() []byte { return []byte{'['} }

func (*wikiLinkParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	if !bytes.HasPrefix(line, []byte("[[")) {
		return nil
	}
	end := bytes.Index(line[2:], []byte("]]"))
	if end <= 0 {
		return nil
	}
	inner := line[2 : 2+end]
	if bytes.ContainsAny(inner, "[]\n") {
		return nil
	}
	target, label := inner, []byte(nil)
	if bar := bytes.IndexByte(inner, '|'); bar >= 0 {
		target, label = inner[:bar], inner[bar+1:]
	}
	target, label = bytes.TrimSpace(target), bytes.TrimSpace(label)
	if len(target) == 0 {
		return nil
	}
	if len(label) == 0 {
		label = target
	}
	block.Advance(2 + end + 2)
	return &wikiLink{target: target, label: label}
}
