package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kontext/kontext/internal/benchcorpus"
)

// costRows measures context.cost against entries.governing on the same
// 3,000 paths (issue 43's budget: ≤ 1.5×): whole processes, warm, on the
// 1,000-entry corpus with agent files added — AGENTS.md at the root and
// in 50 modules, CLAUDE.md at the root and in 20, two Cursor rules and
// Copilot's instructions — so every client has files to load. cost
// answers for all six clients; governing runs without history, as cost
// does.
func costRows(bin, tmp string) ([]row, []string) {
	dir := filepath.Join(tmp, "cost-1000")
	check(os.MkdirAll(dir, 0o755))
	_, err := benchcorpus.Repo(dir, 1000)
	check(err)
	files := map[string]string{
		"AGENTS.md":                               "# Corpus\n\nRun the checks before a commit.\n",
		"CLAUDE.md":                               "# Corpus for Claude\n\n@AGENTS.md\n\nPrefer small commits.\n",
		".cursor/rules/always.mdc":                "---\nalwaysApply: true\n---\n# Always\n\nWrite tests first.\n",
		".cursor/rules/go.mdc":                    "---\nglobs: src/**/*.go\n---\n# Go\n\nWrap errors.\n",
		".github/copilot-instructions.md":         "# Copilot\n\nGo modules.\n",
		".github/instructions/go.instructions.md": "---\napplyTo: \"**/*.go\"\n---\n# Go\n\nWrap errors.\n",
	}
	for m := 0; m < 50; m++ {
		files[fmt.Sprintf("src/m%d/AGENTS.md", m*40)] = fmt.Sprintf("# Module %d\n\nModule %d keeps its invariants.\n", m*40, m*40)
	}
	for m := 0; m < 20; m++ {
		files[fmt.Sprintf("src/m%d/CLAUDE.md", m*100+7)] = fmt.Sprintf("# Module %d for Claude\n\nAsk before changing the schema.\n", m*100+7)
	}
	for f, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		check(os.MkdirAll(filepath.Dir(p), 0o755))
		check(os.WriteFile(p, []byte(text), 0o644))
	}
	run(dir, bin, "setup")
	run(dir, "git", "add", "-A")
	run(dir, "git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "agent files")
	paths := make([]string, 0, 3000)
	for i := 0; i < 3000; i++ {
		m := (i * 7) % 2000
		switch i % 3 {
		case 0:
			paths = append(paths, fmt.Sprintf("src/m%d/s%d/h%d.go", m, i%5, i))
		case 1:
			paths = append(paths, fmt.Sprintf("src/m%d/f%d.go", m, i))
		default:
			paths = append(paths, fmt.Sprintf("docs/p%d.x%d", i, i%7))
		}
	}
	costIn, err := json.Marshal(map[string]any{"paths": paths})
	check(err)
	govIn, err := json.Marshal(map[string]any{"paths": paths, "history": false})
	check(err)
	cost := []string{bin, "-C", dir, "api", "context.cost", string(costIn)}
	gov := []string{bin, "-C", dir, "api", "entries.governing", string(govIn)}
	settleSecond()
	timeCmd(gov)
	timeCmd(gov)
	timeCmd(cost)
	c, g, ratio, cpu := pairs(15, cost, gov)
	return []row{{
		workload:  "`context.cost` of 3,000 paths, every client (6), whole process, warm, 1,000 entries + 76 agent files",
		ours:      ms(c),
		reference: ms(g) + " (`entries.governing`, same paths, history false)",
		ratio:     fmt.Sprintf("%.2f× (CPU %.2f×)", ratio, cpu),
		budget:    "≤ 1.5× governing",
		pass:      ratio <= 1.5,
	}}, []string{"context.cost counts tokens as bytes/4: no tokenizer module is in the packages the project may use"}
}
