package review

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

var (
	styleLink   = regexp.MustCompile(`(?i)<link\b[^>]*\bhref=["']?(?:\./)?style\.css["']?[^>]*>`)
	appScript   = regexp.MustCompile(`(?is)<script\b[^>]*\bsrc=["']?(?:\./)?app\.js["']?[^>]*>\s*</script\s*>`)
	execImport  = regexp.MustCompile(`(?m)^[ \t]*import\s+["']\./wasm_exec\.js["'];?[^\n]*\n?`)
	staticImprt = regexp.MustCompile(`(?m)^[ \t]*import\s+(?:[\w*{}\s,]+\s+from\s+)?["'][^"']+["']`)
	topLevelDec = regexp.MustCompile(`(?m)^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:const|let|var|class|function\*?)\s+([A-Za-z_$][\w$]*)`)
	scriptClose = regexp.MustCompile(`(?i)</(script)`)
)

// SingleFile builds the one-file console: index.html with style.css
// inlined in <style>, a classic <script> with wasm_exec.js, a <script>
// setting window.__KONTEXT_BUNDLE__ and window.__KONTEXT_WASM_GZ_B64__,
// and one module <script> holding wasm/index.js without its wasm_exec.js
// import followed by app.js without its first line (the engine import).
// It opens from file:// with no server.
//
// bundleJSON must be JSON encoded with HTML escaping (encoding/json's
// default: <, > and & as \u003c…), so it cannot close the script.
func SingleFile(assets fs.FS, bundleJSON []byte) ([]byte, error) {
	if missing := Missing(assets); len(missing) > 0 {
		return nil, fmt.Errorf("the console assets are not built into this binary (missing %s): run make build, or set KONTEXT_ASSETS to a kontext checkout", strings.Join(missing, ", "))
	}
	read := func(name string) (string, error) {
		data, err := fs.ReadFile(assets, name)
		return string(data), err
	}
	page, err := read("web/index.html")
	if err != nil {
		return nil, err
	}
	css, err := read("web/style.css")
	if err != nil {
		return nil, err
	}
	execJS, err := read("engine/wasm_exec.js")
	if err != nil {
		return nil, err
	}
	indexJS, err := read("engine/index.js")
	if err != nil {
		return nil, err
	}
	appJS, err := read("web/app.js")
	if err != nil {
		return nil, err
	}
	gz, err := wasmGz(assets)
	if err != nil {
		return nil, err
	}

	if !execImport.MatchString(indexJS) {
		return nil, fmt.Errorf("engine/index.js has no `import \"./wasm_exec.js\"` line to remove")
	}
	indexJS = execImport.ReplaceAllString(indexJS, "")
	first, rest, _ := strings.Cut(appJS, "\n")
	if !strings.Contains(first, "import") || !strings.Contains(first, "loadEngine") {
		return nil, fmt.Errorf("web/app.js must start with `import { loadEngine } from \"./engine/index.js\";`, not %q", first)
	}
	appJS = rest
	if m := staticImprt.FindString(appJS); m != "" {
		return nil, fmt.Errorf("web/app.js imports another module (%s); the one-file console inlines a single module", strings.TrimSpace(m))
	}
	if dup := clashes(indexJS, appJS); len(dup) > 0 {
		return nil, fmt.Errorf("web/app.js declares %s at top level, as engine/index.js does; they share one module in the one-file console", strings.Join(dup, ", "))
	}

	if !htmlSafeJSON(bundleJSON) {
		return nil, fmt.Errorf("the bundle is not HTML-safe JSON")
	}
	var data bytes.Buffer
	data.WriteString("<script>window.__KONTEXT_BUNDLE__ = ")
	data.Write(bytes.TrimSpace(bundleJSON))
	data.WriteString(";\nwindow.__KONTEXT_WASM_GZ_B64__ = \"")
	data.WriteString(base64.StdEncoding.EncodeToString(gz))
	data.WriteString("\";</script>\n")

	scripts := "<script>\n" + scriptSafe(execJS) + "\n</script>\n" + data.String() +
		"<script type=\"module\">\n" + scriptSafe(indexJS) + "\n" + scriptSafe(appJS) + "\n</script>"
	style := "<style>\n" + styleSafe(css) + "\n</style>"

	if loc := styleLink.FindStringIndex(page); loc != nil {
		page = page[:loc[0]] + style + page[loc[1]:]
	} else if i := strings.Index(strings.ToLower(page), "</head>"); i >= 0 {
		page = page[:i] + style + "\n" + page[i:]
	} else {
		page = style + "\n" + page
	}
	if loc := appScript.FindStringIndex(page); loc != nil {
		page = page[:loc[0]] + scripts + page[loc[1]:]
	} else if i := strings.LastIndex(strings.ToLower(page), "</body>"); i >= 0 {
		page = page[:i] + scripts + "\n" + page[i:]
	} else {
		page += "\n" + scripts + "\n"
	}
	return []byte(page), nil
}

// scriptSafe keeps inlined JavaScript from ending its <script> element or
// entering the "escaped" parser state: `</script` becomes `<\/script` and
// `<!--` becomes `<\!--` (both only occur inside strings, templates and
// comments, where the escapes read as the same characters).
func scriptSafe(js string) string {
	js = scriptClose.ReplaceAllString(js, `<\/$1`)
	return strings.ReplaceAll(js, "<!--", `<\!--`)
}

// styleSafe keeps inlined CSS from ending its <style> element.
func styleSafe(css string) string {
	return regexp.MustCompile(`(?i)</(style)`).ReplaceAllString(css, `<\/$1`)
}

// htmlSafeJSON reports whether b contains nothing that could end a script
// element: no '<' at all (encoding/json escapes it as \u003c).
func htmlSafeJSON(b []byte) bool { return !bytes.ContainsRune(b, '<') }

// clashes lists the top-level names both modules declare.
func clashes(a, b string) []string {
	names := map[string]bool{}
	for _, m := range topLevelDec.FindAllStringSubmatch(a, -1) {
		names[m[1]] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range topLevelDec.FindAllStringSubmatch(b, -1) {
		if names[m[1]] && !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}
