package entry

import (
	"path"
	"strings"
)

// Reasons a Markdown file in a source directory is not a record. Skipped
// files are listed (status.skipped), never reported as diagnostics.
const (
	SkipReadme      = "readme"
	SkipIndex       = "index"
	SkipTemplate    = "template file name"
	SkipTemplateDir = "under a templates folder"
	SkipPlaceholder = "title is a template placeholder"
)

// SkipReason says why a Markdown file of a frontmatter- or ADR-style source
// is not a record, or "" when it is one (rel is repo-relative, src the
// source it was found in). Templates are named template.md, *-template.md,
// adr-template*.md (MADR 4 ships adr-template-bare-minimal.md and friends)
// or 0000-…template…, or live under a templates/ folder below the source
// directory. A numbered record ("0012-template-engine.md") is never a
// template by name: every real record is written from one.
func SkipReason(rel string, src Source) string {
	if strings.IndexByte(rel, '\\') >= 0 {
		rel = strings.ReplaceAll(rel, "\\", "/")
	}
	base := lowerASCII(baseName(rel))
	switch base {
	case "readme.md":
		return SkipReadme
	case "index.md":
		return SkipIndex
	}
	if src.Style != StyleADR && src.Style != StyleFrontmatter && src.Style != "" {
		return ""
	}
	// Each folder below the source directory, without allocating: this
	// runs for every file of every listing.
	inner := rel
	if dir := strings.TrimSuffix(src.Dir, "/"); src.Dir != "" && src.Dir != "." &&
		len(rel) > len(dir) && rel[len(dir)] == '/' && rel[:len(dir)] == dir {
		inner = rel[len(dir)+1:]
	}
	if inTemplateDir(inner) {
		return SkipTemplateDir
	}
	stem := strings.TrimSuffix(base, ".md")
	if strings.HasPrefix(base, "0000-") && strings.Contains(base, "template") {
		return SkipTemplate // the classic "0000-template.md" of Nygard logs
	}
	if _, _, numbered := leadingNumber(stem); numbered {
		return ""
	}
	if stem == "template" || strings.HasSuffix(stem, "-template") || strings.HasPrefix(stem, "adr-template") {
		return SkipTemplate
	}
	return ""
}

// IsPlaceholderTitle reports whether an ADR's title is still its
// template's placeholder: "TITLE", "{short title of solved problem}",
// "[short title of solved problem and solution]", or empty after an HTML
// comment ("# <!-- short title … -->").
func IsPlaceholderTitle(title string) bool {
	t := strings.TrimSpace(title)
	if t == "" || t == "TITLE" || strings.EqualFold(t, "title") {
		return true
	}
	if (strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}")) || (strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]")) {
		inner := strings.ToLower(strings.TrimSpace(t[1 : len(t)-1]))
		return strings.HasPrefix(inner, "short title") || inner == "title"
	}
	return strings.HasPrefix(t, "<!--")
}

// inTemplateDir reports whether a folder of p (not its last element) is
// named templates or template, in any case. Not inlined: its loop over
// the folders would charge SkipReason's size per folder of every listed
// file (docs/architecture.md, "V8's tiers").
//
//go:noinline
func inTemplateDir(p string) bool {
	for rest, more := dirOf(p), true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, "/")
		if s := lowerASCII(seg); s == "templates" || s == "template" {
			return true
		}
	}
	return false
}

// dirOf is path.Dir(p), without path.Dir's path.Clean for a clean p (a
// listed path is; see lowerBase).
func dirOf(p string) string {
	i := lastSlash(p)
	if i < 0 {
		return "."
	}
	if d := p[:i]; CleanRel(d) {
		return d
	}
	return path.Dir(p)
}

// CleanRel reports whether p is a clean relative path: not empty, no
// empty, "." or ".." element, no leading "/" (path.Clean returns it
// unchanged and path.Join(p, name) is p + "/" + name for a file name).
// Not inlined (see baseName).
//
//go:noinline
func CleanRel(p string) bool {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if seg := p[start:i]; seg == "" || seg == "." || seg == ".." {
			return false
		}
		start = i + 1
	}
	return true
}
