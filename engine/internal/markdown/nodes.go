package markdown

import "github.com/yuin/goldmark/ast"

// node is every kind of node this package adds to goldmark's AST: wiki
// links and GFM tables (table, header, row, cell). One Go
// type serves them all because each node type costs the WASM engine its
// own copy of goldmark's base node methods.
type node struct {
	ast.BaseBlock
	kind   ast.NodeKind
	inline bool
	// align is a table cell's alignment: "left", "right", "center" or "".
	align string
	// target and label are a wiki link's entry id and text.
	target, label []byte
}

var (
	kindWikiLink  = ast.NewNodeKind("WikiLink")
	kindTable     = ast.NewNodeKind("Table")
	kindTableHead = ast.NewNodeKind("TableHeader")
	kindTableRow  = ast.NewNodeKind("TableRow")
	kindTableCell = ast.NewNodeKind("TableCell")
)

func newNode(kind ast.NodeKind) *node {
	return &node{kind: kind, inline: kind == kindWikiLink}
}

func (n *node) Kind() ast.NodeKind { return n.kind }

func (n *node) Type() ast.NodeType {
	if n.inline {
		return ast.TypeInline
	}
	return ast.TypeBlock
}

func (n *node) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }
