package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// GFM tables. (GFM strikethrough is not parsed: ~~text~~ stays text; the
// parser cost more of the WASM engine's 2 MiB budget than is left.)
// Goldmark's extension package is not imported: importing it links goldmark's whole HTML renderer (its package
// initialisation builds the default Markdown converter), which the WASM
// engine cannot afford.

// tableTransformer turns a paragraph whose lines hold a header row and a
// delimiter row ("| a | b |" then "|---|:-:|") into a table; the lines
// before the header stay a paragraph, the lines after it are body rows.
type tableTransformer struct{}

func (*tableTransformer) Transform(node *ast.Paragraph, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	lines := node.Lines()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		aligns := delimiterRow(seg.Value(src))
		if aligns == nil {
			continue
		}
		header := tableRow(src, lines.At(i-1), aligns, true)
		if header == nil {
			return
		}
		table := newNode(kindTable)
		header.kind = kindTableHead
		table.AppendChild(table, header)
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, tableRow(src, lines.At(j), aligns, false))
		}
		parent := node.Parent()
		parent.InsertAfter(parent, node, table)
		if i == 1 {
			parent.RemoveChild(parent, node)
			return
		}
		lines.SetSliced(0, i-1)
		// The paragraph's last line no longer ends it: drop its newline.
		last := lines.At(i - 2)
		last = last.TrimRightSpace(src)
		lines.Set(i-2, last)
		node.SetLines(lines)
		return
	}
}

// delimiterRow returns the column alignments of a delimiter row ("left",
// "right", "center" or ""), or nil when line is not one.
func delimiterRow(line []byte) []string {
	line = bytes.TrimSpace(line)
	for _, c := range line {
		if c != '|' && c != '-' && c != ':' && c != ' ' && c != '\t' {
			return nil
		}
	}
	cells := splitRow(line)
	if cells == nil {
		return nil
	}
	aligns := make([]string, 0, len(cells))
	for _, r := range cells {
		// A cell is -+ with an optional ':' at either end.
		c := bytes.TrimSpace(line[r[0]:r[1]])
		if len(c) == 0 {
			return nil
		}
		left, right := c[0] == ':', c[len(c)-1] == ':'
		dashes := c
		if left {
			dashes = dashes[1:]
		}
		if right && len(dashes) > 0 {
			dashes = dashes[:len(dashes)-1]
		}
		if len(dashes) == 0 || bytes.IndexByte(dashes, ':') >= 0 {
			return nil
		}
		align := ""
		switch {
		case left && right:
			align = "center"
		case left:
			align = "left"
		case right:
			align = "right"
		}
		aligns = append(aligns, align)
	}
	return aligns
}

// splitRow returns the byte ranges of a row's cells: the line split on
// pipes that are not backslash-escaped, without the optional leading and
// trailing pipe. It returns nil for a line without any pipe.
func splitRow(line []byte) [][2]int {
	var cells [][2]int
	start, pipes := 0, 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			pipes++
			if i > 0 || start > 0 {
				cells = append(cells, [2]int{start, i})
			}
			start = i + 1
		}
	}
	if pipes == 0 {
		return nil
	}
	if len(bytes.TrimSpace(line[start:])) > 0 {
		cells = append(cells, [2]int{start, len(line)})
	}
	return cells
}

// tableRow parses one row into len(aligns) cells (missing ones empty,
// extra ones dropped). A header row must have exactly that many cells,
// else it is nil.
func tableRow(src []byte, seg text.Segment, aligns []string, header bool) *node {
	cols := len(aligns)
	seg = seg.TrimLeftSpace(src)
	seg = seg.TrimRightSpace(src)
	line := seg.Value(src)
	cells := splitRow(line)
	if cells == nil && !header {
		cells = [][2]int{{0, len(line)}}
	}
	if header && len(cells) != cols {
		return nil
	}
	row := newNode(kindTableRow)
	for i := 0; i < cols; i++ {
		cell := newNode(kindTableCell)
		cell.align = aligns[i]
		if i < len(cells) {
			c := text.NewSegment(seg.Start+cells[i][0], seg.Start+cells[i][1])
			c = c.TrimLeftSpace(src)
			cell.Lines().Append(c.TrimRightSpace(src))
		}
		row.AppendChild(row, cell)
	}
	return row
}
