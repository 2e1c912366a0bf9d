package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kontext/kontext/internal/benchcorpus"
)

// prRows measures the pull-request formats on a 3,000-file change over
// 1,000 entries: `ci --format sarif` and `review --format markdown`
// against `kontext api entries.governing` with the same 3,000 paths, whole
// process, warm, interleaved (the median of pairwise ratios, wall and
// CPU).
func prRows(bin, tmp string) ([]row, []string) {
	dir := filepath.Join(tmp, "pr-1000")
	check(os.MkdirAll(dir, 0o755))
	_, err := benchcorpus.Repo(dir, 1000)
	check(err)
	base := strings.TrimSpace(gitOut(dir, "rev-parse", "HEAD"))
	paths := make([]string, 0, 3000)
	for i := 0; i < 3000; i++ {
		m := (i * 7) % 1000
		var p string
		switch i % 3 {
		case 0, 1:
			p = fmt.Sprintf("src/m%d/s%d/c%d.go", m, m%5, i)
		default:
			p = fmt.Sprintf("lib/p%d/c%d.go", i%200, i)
		}
		paths = append(paths, p)
	}
	gov := commitChange(bin, dir, paths, "a change of 3,000 files")
	sarif := []string{bin, "-C", dir, "ci", "--format", "sarif", "--base", base}
	md := []string{bin, "-C", dir, "review", "--format", "markdown", "--base", base}
	for _, c := range [][]string{gov, sarif, md} {
		timeCmd(c) // warm: the snapshot and the commit index are stored
	}
	var rows []row
	for _, c := range []struct {
		name string
		args []string
	}{{"`kontext ci --format sarif --base B`", sarif}, {"`kontext review --format markdown --base B`", md}} {
		ours, ref, ratio, cpu := pairs(9, c.args, gov)
		rows = append(rows, row{
			workload: c.name + " whole process, warm, 3,000 changed files, 1,000 entries",
			ours:     ms(ours), reference: ms(ref) + " (`kontext api entries.governing`, same 3,000 paths)",
			ratio: fmt.Sprintf("%.2f× (CPU %.2f×)", ratio, cpu), budget: "≤ 1.5×", pass: ratio <= 1.5,
		})
	}
	return rows, []string{"pull-request rows: the change is one commit of 3,000 files (2,000 governed by the corpus's entries), base = its parent; the repository is packed (git gc) as a CI clone is; ratios are medians of 9 interleaved pairs"}
}

// commitChange writes a small Go file at each path, commits them as one
// change, packs the repository (as a CI clone is) and returns the
// reference command: `kontext api entries.governing` with the same paths.
func commitChange(bin, dir string, paths []string, msg string) []string {
	for _, p := range paths {
		f := filepath.Join(dir, filepath.FromSlash(p))
		check(os.MkdirAll(filepath.Dir(f), 0o755))
		check(os.WriteFile(f, []byte("package x\n"), 0o644))
	}
	gitOut(dir, "add", "-A")
	gitOut(dir, "commit", "-q", "-m", msg)
	gitOut(dir, "gc", "-q")
	in, err := json.Marshal(map[string]any{"paths": paths})
	check(err)
	return []string{bin, "-C", dir, "api", "entries.governing", string(in)}
}

func gitOut(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=Bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "git %s: %v\n%s", strings.Join(args, " "), err, out)
		os.Exit(1)
	}
	return string(out)
}

// driftRows measures `ci --format github` where every entry governs the
// whole change: 1,000 conventions governing src/**/*.go, a 3,000-file
// change of .go files, all of them drifted. The report holds one finding
// per entry, so its time and memory grow with the findings it prints, not
// with entries × files: against `kontext api entries.governing` with the
// same 3,000 paths (whose answer does hold every match), interleaved, with
// ci's peak RSS.
func driftRows(bin, tmp string) ([]row, []string) {
	dir := filepath.Join(tmp, "drift-1000")
	check(os.MkdirAll(filepath.Join(dir, ".ai", "conventions"), 0o755))
	for i := 0; i < 1000; i++ {
		body := fmt.Sprintf("---\nstatus: active\npaths: [\"src/**/*.go\"]\n---\n# Go rule %d\n\nRule %d for every Go file.\n", i, i)
		check(os.WriteFile(filepath.Join(dir, ".ai", "conventions", fmt.Sprintf("go-%04d.md", i)), []byte(body), 0o644))
	}
	gitOut(dir, "init", "-q", "-b", "main")
	gitOut(dir, "add", "-A")
	gitOut(dir, "commit", "-q", "-m", "1,000 rules over src/**/*.go")
	base := strings.TrimSpace(gitOut(dir, "rev-parse", "HEAD"))
	paths := make([]string, 0, 3000)
	for i := 0; i < 3000; i++ {
		paths = append(paths, fmt.Sprintf("src/m%d/c%d.go", i%100, i))
	}
	gov := commitChange(bin, dir, paths, "a change of 3,000 Go files")
	ci := []string{bin, "-C", dir, "ci", "--format", "github", "--base", base}
	for _, c := range [][]string{gov, ci} {
		timeCmd(c) // warm: the snapshot and the commit index are stored
	}
	p := pairsRSS(5, nil, ci, gov)
	return []row{{
		workload: "`kontext ci --format github --base B` whole process, warm, 1,000 entries governing `src/**/*.go`, 3,000 changed files (1,000 drift findings, 12 lines printed)",
		ours:     fmt.Sprintf("%s, %.1f MiB RSS", ms(p.a), p.rssA), reference: ms(p.b) + " (`kontext api entries.governing`, same 3,000 paths)",
		ratio: ratios(p), budget: "≤ 1.5×, < 200 MiB RSS", pass: p.ratio <= 1.5 && p.rssA < 200,
	}}, []string{"drift row: every entry governs every changed file (3,000,000 entry-file pairs); ci writes one finding per entry; ratios are medians of 5 interleaved pairs"}
}
