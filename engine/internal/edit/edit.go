// Package edit owns byte-exact edits of entry files: it changes one
// metadata line (a frontmatter key or a line of an ADR's kontext comment
// block) and leaves every other byte of the file as it was.
package edit

import (
	"fmt"
	"strings"
)

// canonical is the key order kontext writes frontmatter in; unknown keys
// come after all of these.
var canonical = []string{"title", "status", "date", "summary", "paths", "tags", "supersedes",
	"superseded_by", "extends", "visibility", "review_by", "checked", "verify", "commits"}

func rank(key string) int {
	for i, k := range canonical {
		if k == key {
			return i
		}
	}
	return len(canonical)
}

// SetFrontmatter sets key to the scalar value in a frontmatter-style file:
// the existing top-level line is rewritten in place, or a new line is
// inserted at the key's canonical position among the keys present. A file
// without frontmatter gets one. Nothing else changes.
func SetFrontmatter(text, key, value string) (string, error) {
	nl := lineEnding(text)
	lines := strings.SplitAfter(text, "\n")
	start := 0
	if len(lines) > 0 && strings.HasPrefix(lines[0], "\ufeff") {
		start = 0 // the BOM stays on the first line
	}
	if len(lines) == 0 || strings.TrimRight(strings.TrimPrefix(lines[0], "\ufeff"), "\r\n") != "---" {
		return "---" + nl + key + ": " + value + nl + "---" + nl + text, nil
	}
	end := -1
	for i := start + 1; i < len(lines); i++ {
		if t := strings.TrimRight(lines[i], "\r\n"); t == "---" || t == "..." {
			end = i
			break
		}
	}
	if end < 0 {
		return "", fmt.Errorf("the frontmatter has no closing --- line")
	}
	insertAt := end
	for i := start + 1; i < end; i++ {
		l := lines[i]
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || l[0] == '-' {
			continue // continuation lines, comments, list items
		}
		k, _, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if k == key {
			ending := lineEndingOf(l)
			lines[i] = key + ": " + value + ending
			return strings.Join(lines, ""), nil
		}
		if insertAt == end && rank(k) > rank(key) {
			insertAt = i
		}
	}
	line := key + ": " + value + nl
	out := append([]string{}, lines[:insertAt]...)
	out = append(out, line)
	out = append(out, lines[insertAt:]...)
	return strings.Join(out, ""), nil
}

// SetADRMeta sets key in the kontext comment block of an ADR-style file
// (`<!-- kontext` … `-->`), adding the block after the Date line (or the
// title) when there is none.
func SetADRMeta(text, key, value string) (string, error) {
	nl := lineEnding(text)
	lines := strings.SplitAfter(text, "\n")
	open, close := -1, -1
	inFence := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if open < 0 && (t == "<!-- kontext" || strings.HasPrefix(t, "<!-- kontext ") && !strings.HasSuffix(t, "-->")) {
			open = i
			continue
		}
		if open >= 0 && t == "-->" {
			close = i
			break
		}
	}
	if open >= 0 && close > open {
		for i := open + 1; i < close; i++ {
			k, _, ok := strings.Cut(lines[i], ":")
			if ok && strings.TrimSpace(k) == key {
				lines[i] = key + ": " + value + lineEndingOf(lines[i])
				return strings.Join(lines, ""), nil
			}
		}
		out := append([]string{}, lines[:close]...)
		out = append(out, key+": "+value+nl)
		out = append(out, lines[close:]...)
		return strings.Join(out, ""), nil
	}
	// No block: add one after the Date line, else after the title.
	at := -1
	for i, l := range lines {
		t := strings.ToLower(strings.TrimSpace(l))
		if strings.HasPrefix(t, "date:") || strings.HasPrefix(t, "date ") {
			at = i
			break
		}
	}
	if at < 0 {
		for i, l := range lines {
			if strings.HasPrefix(l, "# ") {
				at = i
				break
			}
		}
	}
	block := nl + "<!-- kontext" + nl + key + ": " + value + nl + "-->" + nl
	if at < 0 {
		return "<!-- kontext" + nl + key + ": " + value + nl + "-->" + nl + nl + text, nil
	}
	if !strings.HasSuffix(lines[at], "\n") {
		lines[at] += nl
	}
	out := append([]string{}, lines[:at+1]...)
	out = append(out, block)
	out = append(out, lines[at+1:]...)
	return strings.Join(out, ""), nil
}

// SetADRStatus replaces the first line of an ADR's status section (outside
// code fences) with line; nothing else changes.
func SetADRStatus(text, line string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	inFence, inStatus := false, false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if strings.HasPrefix(t, "#") {
			if inStatus {
				break
			}
			name := strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "#")))
			name = strings.TrimSpace(strings.TrimRight(name, ":"))
			inStatus = name == "status"
			continue
		}
		if inStatus && t != "" {
			lines[i] = line + lineEndingOf(l)
			return strings.Join(lines, ""), nil
		}
	}
	return "", fmt.Errorf("no status line in a ## Status section")
}

func lineEnding(text string) string {
	if strings.Contains(text, "\r\n") {
		return "\r\n"
	}
	return "\n"
}

func lineEndingOf(l string) string {
	switch {
	case strings.HasSuffix(l, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(l, "\n"):
		return "\n"
	}
	return ""
}
