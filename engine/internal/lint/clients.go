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
// without being asked (always or auto-attached), from the file's style
// and name alone: the loading rules the findings use until the engine
// answers per client (docs/cli.md lists it with its sources).
//
//   - AGENTS.md: Codex (the chain from the root), Cursor (root and
//     nested), the Copilot coding agent (the nearest one).
//   - CLAUDE.md: Claude Code; the Copilot coding agent reads the root one.
//   - .claude/rules: Claude Code.
//   - .cursor/rules/*.mdc and .cursorrules: Cursor, when the rule is
//     always applied or has globs (a rule with only a description is the
//     agent's choice, one with neither is manual).
//   - .github/copilot-instructions.md and *.instructions.md: Copilot (chat
//     and coding agent) and Copilot code review, unless excludeAgent names it.
func StyleLoads(file, style string, paths []string, extra map[string]any) []Load {
	base := strings.ToLower(path.Base(file))
	root := path.Dir(file) == "."
	var out []Load
	switch style {
	case "agents":
		switch base {
		case "agents.md", "agents.override.md":
			out = append(out, Load{Client: "codex"}, Load{Client: "cursor"}, Load{Client: "copilot", Nearest: "AGENTS.md"})
		case "claude.md":
			out = append(out, Load{Client: "claude"})
			if root {
				out = append(out, Load{Client: "copilot"})
			}
		case "gemini.md":
			out = append(out, Load{Client: "gemini"})
		}
	case "claude":
		out = append(out, Load{Client: "claude"})
	case "cursor":
		if len(paths) > 0 {
			out = append(out, Load{Client: "cursor"})
		}
	case "copilot":
		ex := strings.ToLower(strings.TrimSpace(str(extra["excludeAgent"])))
		if ex != "coding-agent" && ex != "cloud-agent" {
			out = append(out, Load{Client: "copilot"})
		}
		if ex != "code-review" {
			out = append(out, Load{Client: "copilot-review"})
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
