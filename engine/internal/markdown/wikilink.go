package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

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
	n := newNode(kindWikiLink)
	n.target, n.label = target, label
	return n
}
