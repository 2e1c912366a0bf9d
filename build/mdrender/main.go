// Command mdrender renders Markdown from stdin to an HTML page on stdout
// with goldmark and GitHub's table extension, as a GitHub comment is shown:
// the console tests open kontext's pull-request comment with it in
// Chromium (web/test/prcomment.test.mjs). A test tool, never shipped.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

func main() {
	src, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mdrender:", err)
		os.Exit(1)
	}
	var body bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(src, &body); err != nil {
		fmt.Fprintln(os.Stderr, "mdrender:", err)
		os.Exit(1)
	}
	fmt.Printf("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>pull-request comment</title>\n"+
		"<style>body{font:14px sans-serif;max-width:1000px;margin:2em auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}</style>\n"+
		"</head><body>\n%s</body></html>\n", body.String())
}
