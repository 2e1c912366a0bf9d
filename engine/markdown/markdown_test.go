package markdown

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"heading and emphasis", "## Context\n\nWe *round* **per line**.\n", "<h2>Context</h2>\n<p>We <em>round</em> <strong>per line</strong>.</p>\n"},
		{"code span", "Use `cmd/export`.", "<p>Use <code>cmd/export</code>.</p>\n"},
		{"fenced code", "```go\nx := 1 < 2\n```\n", "<pre><code class=\"language-go\">x := 1 &lt; 2\n</code></pre>\n"},
		{"link", "[ok](https://example.com/a?b=1&c=2)", "<p><a href=\"https://example.com/a?b=1&amp;c=2\">ok</a></p>\n"},
		{"wiki link", "See [[2026-01-12-money]] and [[x-y|the label]].", "<p>See <a class=\"wikilink\" data-entry-id=\"2026-01-12-money\">2026-01-12-money</a> and <a class=\"wikilink\" data-entry-id=\"x-y\">the label</a>.</p>\n"},
		{"wiki link escaped", `[[a"><b>]]`, "<p><a class=\"wikilink\" data-entry-id=\"a&quot;&gt;&lt;b&gt;\">a&quot;&gt;&lt;b&gt;</a></p>\n"},
		{"long heading", "# " + strings.Repeat("a", maxParagraph), "<pre><code># " + strings.Repeat("a", maxParagraph) + "</code></pre>\n"},
		{"long paragraph", "x\n\n" + strings.Repeat("*a", maxParagraph), "<p>x</p>\n<pre><code>" + strings.Repeat("*a", maxParagraph) + "</code></pre>\n"},
		{"not a wiki link", "[[open and [x](y)", "<p>[[open and <a href=\"y\">x</a></p>\n"},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |\n", "<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n"},
		{"table header only, aligned", "x\n| a | b |\n|:-|-:|\n", "<p>x</p>\n<table>\n<thead>\n<tr>\n<th style=\"text-align:left\">a</th>\n<th style=\"text-align:right\">b</th>\n</tr>\n</thead>\n</table>\n"},
		{"strikethrough", "~~old~~ ~new~", "<p><del>old</del> <del>new</del></p>\n"},
		{"task list", "- [ ] a\n- [x] b\n", "<ul>\n<li><input disabled=\"\" type=\"checkbox\"> a</li>\n<li><input checked=\"\" disabled=\"\" type=\"checkbox\"> b</li>\n</ul>\n"},
		{"unsafe schemes lose their target", "[f](ftp://x) [j](JavaScript:x) [t](java&#9;script:x) [u](a&amp;b) <vbscript:x> [ok](HTTPS://x) [m](mailto:a@b) [r](a/b:c) [h](#x)",
			"<p><a href=\"\">f</a> <a href=\"\">j</a> <a href=\"\">t</a> <a href=\"a&amp;b\">u</a> <a href=\"\">vbscript:x</a> <a href=\"HTTPS://x\">ok</a> <a href=\"mailto:a@b\">m</a> <a href=\"a/b:c\">r</a> <a href=\"#x\">h</a></p>\n"},
		{"image", "![a *b*](https://x/i.png \"t\") ![c](javascript:x)", "<p><img src=\"https://x/i.png\" alt=\"a b\" title=\"t\"> <img src=\"\" alt=\"c\"></p>\n"},
		{"language class escaped", "```c++\nx\n```\n\n```{\"><x}\ny\n```\n", "<pre><code class=\"language-c++\">x\n</code></pre>\n<pre><code class=\"language-{&quot;&gt;&lt;x}\">y\n</code></pre>\n"},
		{"references", "&copy; &#x3C;b&#62; &#0; &amp;amp; &nosuch &#12345678; &", "<p>\u00a9 &lt;b&gt; \ufffd &amp;amp; &amp;nosuch &amp;#12345678; &amp;</p>\n"},
		{"autolink email", "<a@b.c>", "<p><a href=\"mailto:a@b.c\">a@b.c</a></p>\n"},
		{"bare autolinks", "www.example.com and https://x.y/z and <javascript:alert(1)>", "<p><a href=\"http://www.example.com\">www.example.com</a> and <a href=\"https://x.y/z\">https://x.y/z</a> and <a href=\"\">javascript:alert(1)</a></p>\n"},
		{"raw html dropped", "<div>\nx\n</div>\n\na <b>b</b>", "<!-- raw HTML omitted -->\n<p>a <!-- raw HTML omitted -->b<!-- raw HTML omitted --></p>\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Render(tc.in)
			if got.HTML != tc.want || got.Plain {
				t.Errorf("Render(%.80q) =\n%.200q (plain %v), want\n%.200q", tc.in, got.HTML, got.Plain, tc.want)
			}
		})
	}
}

// Raw HTML never becomes markup and dangerous link targets are dropped.
func TestRenderDropsRawHTMLAndDangerousURLs(t *testing.T) {
	in := strings.Join([]string{
		"<script>window.__pwned=1</script>",
		"",
		"<img src=x onerror=\"alert(1)\">",
		"",
		"<div onclick=\"x()\">raw</div>",
		"",
		"inline <b>bold</b> <iframe src=\"javascript:alert(1)\"></iframe> <!-- c -->",
		"",
		"[js](javascript:alert(1)) [vb](vbscript:x) [file](file:///etc/passwd) [data](data:text/html,x) ![i](javascript:alert(1))",
		"<javascript:alert(1)>",
	}, "\n")
	out := strings.ToLower(Render(in).HTML)
	for _, bad := range []string{"<script", "<img src=\"x", "onerror", "<div", "<b>", "<iframe", "onclick", "href=\"javascript", "href=\"vbscript", "href=\"file", "href=\"data", "src=\"javascript"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "<a href=\"\">js</a>") {
		t.Errorf("the javascript: link keeps its text without a target:\n%s", out)
	}
}

// Hostile shapes goldmark is slow on still render; past MaxSize the text
// is shown as it is.
func TestRenderHostileInput(t *testing.T) {
	n := MaxSize - 16
	for name, in := range map[string]string{
		"backticks":     strings.Repeat("`", 3000),
		"backtick runs": strings.Repeat("` `` ", n/5),
		"blockquotes":   strings.Repeat(">", n),
		"quote lines":   strings.Repeat(strings.Repeat(">", 200)+" a\n", n/203),
		"lists":         strings.Repeat("1. ", n/3),
		"emphasis":      strings.Repeat("*a", n/2),
		"brackets":      strings.Repeat("[", n),
		"wiki":          strings.Repeat("[[a", n/3),
		"links":         strings.Repeat("[a](", n/4),
		"raw html":      strings.Repeat("<a ", n/3),
		"ampersands":    strings.Repeat("&", n-1) + ";",
		"references":    strings.Repeat("&#x41", n/5),
		"tildes":        strings.Repeat("~a", n/2),
		"pipes":         strings.Repeat("|", 2000) + "\n" + strings.Repeat("|-", 1000) + "\n" + strings.Repeat("| a ", n/8),
		"table rows":    "| a | b |\n|---|---|\n" + strings.Repeat("|x|\n", n/4-8),
	} {
		if got := Render(in); got.Plain || got.HTML == "" {
			t.Errorf("%s: plain %v, %d bytes", name, got.Plain, len(got.HTML))
		}
	}
	big := strings.Repeat("<script>x</script>", MaxSize/18+1)
	got := Render(big)
	if !got.Plain || !strings.HasPrefix(got.HTML, "<pre><code>&lt;script&gt;") || strings.Contains(got.HTML, "<script") {
		t.Errorf("oversized text: plain %v, %.60q", got.Plain, got.HTML)
	}
}
