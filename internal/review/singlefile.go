package review

import (
	"bytes"
	"encoding/base64"
	"fmt"
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
	if missing := Missing(assets); len(missing) > 0 {
		return nil, fmt.Errorf("the console assets are not built into this binary (missing %s): run make build, or set KONTEXT_ASSETS to a kontext checkout", strings.Join(missing, ", "))
	}
	page, err := fs.ReadFile(assets, "web/index.html")
	if err != nil {
		return nil, err
	}
	css, err := fs.ReadFile(assets, "web/style.css")
	if err != nil {
		return nil, err
	}
	app, err := fs.ReadFile(assets, "web/app.js")
	if err != nil {
		return nil, err
	}
	gz, err := wasmGz(assets)
	if err != nil {
		return nil, err
	}
	if !htmlSafeJSON(bundleJSON) {
		return nil, fmt.Errorf("the bundle is not HTML-safe JSON")
	}
	for _, tag := range []string{styleTag, scriptTag} {
		if n := bytes.Count(page, []byte(tag)); n != 1 {
			return nil, fmt.Errorf("web/index.html has %d of the tag %s, want exactly one: the one-file console replaces it", n, tag)
		}
	}

	var scripts bytes.Buffer
	scripts.WriteString("<script>window.__KONTEXT_BUNDLE__ = ")
	scripts.Write(bytes.TrimSpace(bundleJSON))
	scripts.WriteString(";\nwindow.__KONTEXT_WASM_GZ_B64__ = \"")
	scripts.WriteString(base64.StdEncoding.EncodeToString(gz))
	scripts.WriteString("\";</script>\n<script type=\"module\">\n")
	scripts.WriteString(scriptSafe(string(app)))
	scripts.WriteString("\n</script>")
	style := "<style>\n" + styleSafe(string(css)) + "\n</style>"

	out := strings.Replace(string(page), styleTag, style, 1)
	out = strings.Replace(out, scriptTag, scripts.String(), 1)
	return []byte(out), nil
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

// htmlSafeJSON reports whether b contains nothing that could end a script
// element: no '<' at all (encoding/json escapes it as \u003c).
func htmlSafeJSON(b []byte) bool { return !bytes.ContainsRune(b, '<') }
