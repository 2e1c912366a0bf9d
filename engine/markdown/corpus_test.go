package markdown

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpus is ordinary Markdown: the demo repository's files and
// cases for every node kind.
func corpus(t *testing.T) map[string]string {
	corpus := map[string]string{
		"blocks":        "# H1\n\nSetext\n===\n\n### H3 *em* `code`\n\n---\n\n> quote\n> > nested\n\n    indented code <x>\n\n```go title\nfunc f() { return a < b && c > d }\n```\n\n~~~\nplain fence\n~~~\n",
		"lists":         "- a\n- b\n  - c\n\n1. one\n2. two\n\n3) three\n4) four\n\n- loose\n\n- items\n\n  with paragraphs\n\n* [ ] task\n* [x] done\n",
		"ordered start": "7. seven\n8. eight\n\n0. zero\n",
		"inline":        "Text with *em*, _em_, **strong**, __strong__, ***both***, `code`, ``co`de``, ~~del~~, ~one~.\nSoft break\nhard break  \nand\\\nbackslash break.\n",
		"escapes":       "\\*not em\\* \\[x\\] \\\\ a < b > c & d \"q\" 'a' &amp; &lt; &#35; &#x41; &#0; &copy; &hellip; &nosuch; & ;\n",
		"links":         "[text](https://example.com/a?b=1&c=2 \"Title & <x>\") [rel](docs/x.md) [frag](#sec) [mail](mailto:a@b.c) [empty]() [sp](<a b>)\n\n[ref][r] [r] [collapsed][]\n\n[r]: https://example.com/ref \"ref title\"\n",
		"autolinks":     "<https://example.com/x?y=1&z=2> <mailto:x@y.z> <user@example.com>\n",
		"images":        "![alt *em* `c`](https://example.com/i.png \"t\") ![](rel/i.png)\n",
		"wiki":          "See [[2026-01-12-money]] and [[x-y|the label]] and [[ a | b ]].\n",
		"raw html":      "<div>\nblock\n</div>\n\ninline <b>b</b> <!-- c --> text\n\n<script>\nx()\n</script>\n",
		"tables":        "| a | b | c | d |\n|:--|--:|:-:|---|\n| 1 | 2 | 3 | 4 |\n| *x* | `y` | [z](#z) |\n| e | f | g | h | i |\n\nText before\n| h |\n| - |\n| b \\| c |\n\na | b\n--|--\nc | d\n",
		"pipes in code": "| `a\\|b` | `c` \\| d |\n|---|---|\n| `\\|` | x |\n\n`e\\|f` outside a table\n",
		"not tables":    "| a | b |\n|---|\n\n|x|\n\n| a |\n|:-:-|\n",
		"unicode":       "Ünïcødé — “quotes” 日本語 *強調* emoji 🎉\n",
		"nul":           "a\x00b `c\x00d`\n",
		"code spans":    "`a\nb` `` ` `` ` x `\n",
		"entities":      "&ouml; &#x1F600; &#1234567; &#xD800; &#99999999; &#x110000;\n",
	}
	root := filepath.Join("..", "..", "testdata", "demo")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := os.ReadFile(path)
		corpus[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return corpus
}
