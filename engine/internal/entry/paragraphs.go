package entry

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// Paragraph is one block of prose of a rule file: a paragraph, or the
// text of one list item, with its lines as written (trimmed) and the file
// line of each. Headings, code blocks and HTML blocks are not paragraphs.
type Paragraph struct {
	Lines []string
	Line  []int // file line of each of Lines
}

// Text is the paragraph's lines joined by single spaces.
func (p Paragraph) Text() string { return strings.Join(p.Lines, " ") }

// Paragraphs returns the prose blocks of an entry's file (its Markdown
// after the frontmatter), in file order, read with the same block parser
// Parse uses: what is a paragraph here is a paragraph everywhere.
func Paragraphs(markdown string) []Paragraph {
	t := normalizeText(markdown)
	body, bodyLine := t, 1
	if fm, found, closed := splitFrontmatter(t); found && closed {
		body, bodyLine = fm.body, fm.bodyLine
	}
	doc := parseMarkdown([]byte(body), bodyLine)
	var out []Paragraph
	for _, n := range proseBlocks(doc.blocks()) {
		var p Paragraph
		for _, l := range doc.textLines([]ast.Node{n}) {
			p.Lines = append(p.Lines, l.text)
			p.Line = append(p.Line, l.line)
		}
		if len(p.Lines) > 0 {
			out = append(out, p)
		}
	}
	return out
}
