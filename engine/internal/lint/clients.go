package lint

import (
	"path"
	"slices"
	"strings"
)

// Load is how one client puts a file into context, as far as the
// findings need it.
type Load struct {
	Client string
	// Nearest: of the files with the same Nearest group the client loads
	// only the one nearest the working file (Copilot's AGENTS.md), so two
	// of them are never in context together.
	Nearest string
}

// StyleLoads is the small table of which client reads which rule file
// without being asked (always or auto-attached), from the file's name and
// style alone: the loading rules the findings use until the engine
// answers per client (docs/cli.md lists it with its sources).
//
//   - AGENTS.md (and AGENTS.override.md): Codex (the chain from the root),
//     Cursor (root and nested), the Copilot coding agent (the nearest one).
//   - CLAUDE.md, .claude/CLAUDE.md, .claude/rules: Claude Code; the
//     Copilot coding agent reads the root CLAUDE.md too.
//   - GEMINI.md: Gemini CLI.
//   - .cursor/rules/*.mdc and .cursorrules: Cursor, when the rule is
//     always applied or has globs (a rule with only a description is the
//     agent's choice, one with neither is manual).
//   - .github/copilot-instructions.md and *.instructions.md: Copilot (chat
//     and coding agent) and Copilot code review, unless excludeAgent names it.
func StyleLoads(file, style string, paths []string, extra map[string]any) []Load {
	base := strings.ToLower(path.Base(file))
	switch {
	case base == "agents.md" || base == "agents.override.md":
		return []Load{{Client: "codex"}, {Client: "cursor"}, {Client: "copilot", Nearest: "AGENTS.md"}}
	case base == "claude.md":
		if strings.EqualFold(file, "CLAUDE.md") {
			return []Load{{Client: "claude"}, {Client: "copilot"}}
		}
		return []Load{{Client: "claude"}}
	case base == "claude.local.md":
		return nil // personal: never a team finding
	case strings.HasPrefix(file, ".claude/rules/") || strings.Contains(file, "/.claude/rules/"):
		return []Load{{Client: "claude"}}
	case base == "gemini.md":
		return []Load{{Client: "gemini"}}
	case style == "cursor":
		if len(paths) > 0 {
			return []Load{{Client: "cursor"}}
		}
	case style == "copilot":
		var out []Load
		ex := strings.ToLower(strings.TrimSpace(str(extra["excludeAgent"])))
		if ex != "coding-agent" && ex != "cloud-agent" {
			out = append(out, Load{Client: "copilot"})
		}
		if ex != "code-review" {
			out = append(out, Load{Client: "copilot-review"})
		}
		return out
	}
	return nil
}

// ImportLoads are the loads of a file read through an @path import of
// another (CLAUDE.md holding "@AGENTS.md"): only Claude Code follows
// imports, so only its loads of the importing file carry over.
func ImportLoads(file, style string, paths []string, extra map[string]any) []Load {
	var out []Load
	for _, l := range StyleLoads(file, style, paths, extra) {
		if l.Client == "claude" {
			out = append(out, l)
		}
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// Merge adds the loads of b whose client a does not name.
func Merge(a, b []Load) []Load {
	out := slices.Clone(a)
	for _, l := range b {
		if !slices.ContainsFunc(out, func(x Load) bool { return x.Client == l.Client }) {
			out = append(out, l)
		}
	}
	return out
}
