package markdown

import (
	"regexp"
	"strings"
	"testing"
)

// markup matches every tag and comment the renderer may produce, with the
// only attributes it writes.
var markup = regexp.MustCompile(`^(?:` +
	`<!-- raw HTML omitted -->|` +
	`</?(?:p|h[1-6]|blockquote|ul|li|pre|em|strong|del|table|thead|tbody|tr|th|td|code)>|` +
	`<(?:hr|br)>|<ol(?: start="\d+")?>|</ol>|` +
	`<code class="language-[^"<>]+">|` +
	`<input (?:checked="" )?disabled="" type="checkbox">|` +
	`<(?:th|td) style="text-align:(?:left|right|center)">|` +
	`<a href="([^"<>]*)"(?: title="[^"<>]*")?>|</a>|` +
	`<a class="wikilink" data-entry-id="[^"<>]*">|` +
	`<img src="([^"<>]*)" alt="[^"<>]*"(?: title="[^"<>]*")?>)`)

// checkMarkup fails when html holds markup the writer must never write:
// another element, another attribute, an unsafe link target.
func checkMarkup(t *testing.T, src, html string) {
	t.Helper()
	for i := strings.IndexByte(html, '<'); i >= 0; i = strings.IndexByte(html, '<') {
		html = html[i:]
		m := markup.FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("Render(%.200q): unexpected markup at %.80q", src, html)
		}
		for _, url := range m[1:] {
			if url != "" && !safeURL([]byte(strings.ReplaceAll(url, "&amp;", "&"))) {
				t.Fatalf("Render(%.200q): unsafe target %q", src, url)
			}
		}
		html = html[len(m[0]):]
	}
}

// FuzzRender: whatever the text, the writer does not panic and writes only
// the markup it knows, with safe targets.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"# h\n\n*a* **b** ~~c~~ `d` [e](f) ![g](h) <i@j.k> [[l|m]]\n",
		"| a | b |\n|:-|-:|\n| `c\\|d` | e |\n",
		"> q\n\n1. x\n2. y\n\n- z\n\n```go\ncode\n```\n",
		"<div>raw</div>\n\n<b>inline</b> &copy; &#x41; &#0; \\*",
		"[x](javascript:alert(1)) [y](java&#x09;script:z) <vbscript:x> ![i](data:text/html,x)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > MaxSize {
			return
		}
		checkMarkup(t, src, Render(src).HTML)
	})
}

// The writer's output over the hand-written and demo corpus is markup it
// knows (the fuzz property, on every run).
func TestRenderMarkup(t *testing.T) {
	for name, src := range corpus(t) {
		t.Run(name, func(t *testing.T) { checkMarkup(t, src, Render(src).HTML) })
	}
}
