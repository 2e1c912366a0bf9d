package review

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"sync"
)

// The two tags of web/index.html that load files; the one-file console
// puts the files' contents in their place.
const (
	styleTag  = `<link rel="stylesheet" href="./style.css">`
	scriptTag = `<script type="module" src="./app.js"></script>`
)

// SingleFile builds the one-file console from the built console (web/app.js
// is one self-contained ES module: the console and the engine's JS, bundled
// by build/webbundle): index.html with style.css inlined in place of its
// stylesheet link, and in place of its app.js tag a <script> setting
// window.__KONTEXT_BUNDLE__ and window.__KONTEXT_WASM_GZ_B64__ followed by
// the module itself. It opens from file:// with no server.
//
// bundleJSON must be JSON encoded with HTML escaping (encoding/json's
// default: <, > and & as \u003c…), so it cannot close the script.
func SingleFile(assets fs.FS, bundleJSON []byte) ([]byte, error) {
	var buf bytes.Buffer
	err := WriteSingleFile(&buf, assets, func(w io.Writer) error {
		_, err := w.Write(bytes.TrimSpace(bundleJSON))
		return err
	})
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteSingleFile writes the page SingleFile builds to w, the bundle
// written in its place by writeBundle (HTML-safe JSON, no surrounding
// whitespace), so a large page is streamed to its file instead of being
// assembled and copied in memory. A bundle holding '<' fails the write.
func WriteSingleFile(w io.Writer, assets fs.FS, writeBundle func(w io.Writer) error) error {
	if missing := Missing(assets); len(missing) > 0 {
		return fmt.Errorf("the console assets are not built into this binary (missing %s): run make build, or set KONTEXT_ASSETS to a kontext checkout", strings.Join(missing, ", "))
	}
	page, err := fs.ReadFile(assets, "web/index.html")
	if err != nil {
		return err
	}
	if page, err = dropEarlyScript(page); err != nil {
		return err
	}
	css, err := fs.ReadFile(assets, "web/style.css")
	if err != nil {
		return err
	}
	app, err := fs.ReadFile(assets, "web/app.js")
	if err != nil {
		return err
	}
	at := map[string]int{}
	for _, tag := range []string{styleTag, scriptTag} {
		if n := bytes.Count(page, []byte(tag)); n != 1 {
			return fmt.Errorf("web/index.html has %d of the tag %s, want exactly one: the one-file console replaces it", n, tag)
		}
		at[tag] = bytes.Index(page, []byte(tag))
	}
	tags := []string{styleTag, scriptTag}
	if at[scriptTag] < at[styleTag] {
		tags[0], tags[1] = tags[1], tags[0]
	}

	bw := bufio.NewWriterSize(w, 256<<10)
	replace := map[string]func() error{
		styleTag: func() error {
			bw.WriteString("<style>\n")
			bw.WriteString(styleSafe(string(css)))
			bw.WriteString("\n</style>")
			return nil
		},
		scriptTag: func() error {
			bw.WriteString("<script>window.__KONTEXT_BUNDLE__ = ")
			if err := writeBundle(htmlSafeWriter{bw}); err != nil {
				return err
			}
			bw.WriteString(";\nwindow.__KONTEXT_WASM_GZ_B64__ = \"")
			enc := base64.NewEncoder(base64.StdEncoding, bw)
			if err := copyWasmGz(enc, assets); err != nil {
				return err
			}
			enc.Close()
			bw.WriteString("\";</script>\n<script type=\"module\">\n")
			bw.WriteString(scriptSafe(string(app)))
			bw.WriteString("\n</script>")
			return nil
		},
	}
	done := 0
	for _, tag := range tags {
		bw.Write(page[done:at[tag]])
		if err := replace[tag](); err != nil {
			return err
		}
		done = at[tag] + len(tag)
	}
	bw.Write(page[done:])
	return bw.Flush()
}

// earlyScript opens the script of web/index.html that starts the engine's
// and the bundle's downloads on a served page; the one-file page carries
// both inline, so it drops the script.
const earlyScript = `<script id="kontext-early">`

// dropEarlyScript returns page without its early script (and the line
// break after it); a page without one is returned as it is.
func dropEarlyScript(page []byte) ([]byte, error) {
	i := bytes.Index(page, []byte(earlyScript))
	if i < 0 {
		return page, nil
	}
	n := bytes.Index(page[i:], []byte("</script>"))
	if n < 0 || bytes.Count(page, []byte(earlyScript)) != 1 {
		return nil, fmt.Errorf("web/index.html has a malformed or repeated %s: the one-file console drops exactly one", earlyScript)
	}
	end := i + n + len("</script>")
	if end < len(page) && page[end] == '\n' {
		end++
	}
	return append(page[:i:i], page[end:]...), nil
}

// htmlSafeWriter refuses bytes that could end a script element: any '<'
// (encoding/json escapes it as \u003c).
type htmlSafeWriter struct{ w io.Writer }

func (h htmlSafeWriter) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '<') >= 0 {
		return 0, fmt.Errorf("the bundle is not HTML-safe JSON")
	}
	return h.w.Write(p)
}

// scriptSafe keeps inlined JavaScript from ending its <script> element or
// entering the "escaped" parser state: `</script` becomes `<\/script` and
// `<!--` becomes `<\!--` (both only occur inside strings, templates and
// comments, where the escapes read as the same characters).
func scriptSafe(js string) string {
	js = scriptClose().ReplaceAllString(js, `<\/$1`)
	return strings.ReplaceAll(js, "<!--", `<\!--`)
}

// styleSafe keeps inlined CSS from ending its <style> element.
func styleSafe(css string) string { return styleClose().ReplaceAllString(css, `<\/$1`) }

var (
	scriptClose = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)</(script)`) })
	styleClose  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)</(style)`) })
)
