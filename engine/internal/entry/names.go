package entry

import (
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// File names and numbers: what the reads need of an entry file's name
// without parsing it.

// IsRecordFile reports whether rel (repo-relative path of a file under
// src.Dir) is a file this style reads at all. frontmatter/adr: *.md except
// README.md, index.md and templates (see SkipReason), case-insensitive;
// cursor: *.mdc; copilot: *.instructions.md; claude: Claude Code's files
// (see isClaudeFile); agents: the agent files AgentsName names and Claude
// Code's files.
func IsRecordFile(rel string, src Source) bool {
	base := lowerBase(rel)
	switch src.Style {
	case StyleCursor:
		return (strings.HasSuffix(base, ".mdc") && len(base) > len(".mdc")) || base == ".cursorrules"
	case StyleCopilot:
		return (strings.HasSuffix(base, ".instructions.md") && len(base) > len(".instructions.md")) || base == "copilot-instructions.md"
	case StyleAgents:
		return AgentsName(base) || isClaudeFile(rel, base)
	case StyleClaude:
		return isClaudeFile(rel, base)
	}
	if !strings.HasSuffix(base, ".md") || base == ".md" {
		return false
	}
	return SkipReason(rel, src) == ""
}

// AgentsName reports whether a lower-cased base name is an agent file the
// agents style reads: AGENTS.md, AGENTS.override.md (Codex's override of
// the AGENTS.md beside it), CLAUDE.md and GEMINI.md. Each governs its own
// directory's subtree.
func AgentsName(lowerBase string) bool {
	switch lowerBase {
	case "agents.md", "agents.override.md", "claude.md", "gemini.md":
		return true
	}
	return false
}

// lowerBase is strings.ToLower(path.Base(rel)) with "\\" read as "/".
// The names and checks of every listed file go through it: for plain ASCII
// names it stays clear of strings.ReplaceAll and strings.ToLower, large
// functions V8 would otherwise optimise during a WASM engine's first read,
// competing with it for the CPU (docs/architecture.md, "V8's tiers").
func lowerBase(rel string) string {
	if strings.IndexByte(rel, '\\') >= 0 {
		rel = strings.ReplaceAll(rel, "\\", "/")
	}
	return lowerASCII(baseName(rel))
}

// baseName is path.Base(p). Not inlined, nor its loop (lastSlash): a loop
// inlined into a larger function charges V8's tiering budget at that
// function's size for every byte (docs/architecture.md, "V8's tiers"),
// and the names of every listed file go through here.
//
//go:noinline
func baseName(p string) string {
	if p == "" || p[len(p)-1] == '/' {
		return path.Base(p)
	}
	return p[lastSlash(p)+1:]
}

// lastSlash is strings.LastIndexByte(p, '/'), out of line (see baseName).
//
//go:noinline
func lastSlash(p string) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return i
		}
	}
	return -1
}

// lowerASCII is strings.ToLower(s), without a call for a string that has
// no upper-case or non-ASCII byte (see lowerBase). Not inlined (see
// baseName).
//
//go:noinline
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}

// StemID returns the file stem of rel: its base name without the last
// extension ("docs/adr/0007-use-postgres.md" → "0007-use-postgres"), the id
// of frontmatter- and ADR-style entries.
func StemID(rel string) string {
	base := path.Base(strings.ReplaceAll(rel, "\\", "/"))
	if ext := path.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// ParseADRNumber reads an ADR number as users and links write it: "7",
// "0007", "ADR-7", "adr-0007", "ADR7", "ADR 7", "#7".
func ParseADRNumber(s string) (int, bool) {
	t := strings.TrimSpace(s)
	if len(t) >= 3 && strings.EqualFold(t[:3], "adr") {
		t = strings.TrimLeft(t[3:], "\t\n\f\r _#-")
	} else {
		t = strings.TrimPrefix(t, "#")
	}
	if len(t) == 0 || len(t) > 9 {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(t)
	return n, err == nil
}

// DatePrefix reads the 8-digit YYYYMMDD- prefix log4brains names its
// records with ("20241201-use-x" → "2024-12-01"); false when stem does not
// start with a valid date so written.
func DatePrefix(stem string) (string, bool) {
	if len(stem) < 9 || stem[8] != '-' {
		return "", false
	}
	for i := 0; i < 8; i++ {
		if stem[i] < '0' || stem[i] > '9' {
			return "", false
		}
	}
	iso := stem[:4] + "-" + stem[4:6] + "-" + stem[6:8]
	if _, err := time.Parse("2006-01-02", iso); err != nil {
		return "", false
	}
	return iso, true
}

// leadingNumber returns the digits a file stem starts with ("0007-x" →
// "0007", 7), also after an "adr-" prefix. Date-named stems
// (2024-03-01-x) have no ADR number: their digits are a year.
func leadingNumber(stem string) (string, int, bool) {
	s := stem
	if len(s) > 3 && strings.EqualFold(s[:3], "adr") {
		s = strings.TrimLeft(s[3:], "-_ #")
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 9 {
		return "", 0, false
	}
	if _, ok := ParseDate(s); ok && isoDateLen(s) > 0 {
		return "", 0, false
	}
	if _, ok := DatePrefix(s); ok {
		return "", 0, false // log4brains' 20241201-x: a date, not ADR 20241201
	}
	if i < len(s) && unicode.IsLetter(rune(s[i])) {
		// "3d-rendering" is a name, not ADR 3.
		return "", 0, false
	}
	n, _ := strconv.Atoi(s[:i])
	return s[:i], n, true
}
