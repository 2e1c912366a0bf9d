package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The large-history rows: `governing` with the whole history cached,
// `changed` between two tags and the cold history index, each as one
// whole process per call, interleaved with the git command doing the
// comparable work. The repository is KONTEXT_BENCH_REPO (a path to a
// large clone such as git/git, cloned locally into the cache so it is
// never written to) or else a synthetic ~80,000-commit history with
// merges and tags, built once with git fast-import and cached.

const syntheticCommits = 80000

// largeRepo returns the benchmark repository, a label saying which it is,
// the two tags `changed` compares and a path to ask about.
func largeRepo(cache string) (dir, label, short, tagA, tagB, path string) {
	if src := os.Getenv("KONTEXT_BENCH_REPO"); src != "" {
		dir = filepath.Join(cache, "bench-repo-"+filepath.Base(filepath.Clean(src)))
		if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
			// A local clone shares the object files by hard links where it
			// can; the knowledge base below is written into the clone, never
			// into the given repository.
			os.RemoveAll(dir)
			run(cache, "git", "clone", "-q", "--local", src, dir)
		}
		writeEntries(dir)
		tags := strings.Fields(string(run(dir, "git", "tag", "--sort=creatordate", "--merged", "HEAD")))
		if t := strings.Fields(os.Getenv("KONTEXT_BENCH_TAGS")); len(t) == 2 {
			tagA, tagB = t[0], t[1] // e.g. "v2.40.0 v2.45.0" on git/git
		} else if len(tags) < 2 {
			fmt.Fprintln(os.Stderr, "KONTEXT_BENCH_REPO has fewer than two tags: `changed` compares HEAD~2000 and HEAD")
			tagA, tagB = "HEAD~2000", "HEAD"
		} else {
			// Two tags some distance apart, like v2.40.0 → v2.45.0 on git/git.
			tagB = tags[len(tags)-1]
			tagA = tags[max(0, len(tags)-1-len(tags)/10)]
		}
		path = governedPath(dir)
		n := strings.TrimSpace(string(run(dir, "git", "rev-list", "--count", "HEAD")))
		name := filepath.Base(filepath.Clean(src))
		return dir, fmt.Sprintf("KONTEXT_BENCH_REPO %s (%s commits, 40 conventions written into a local clone)", name, commas(n)),
			fmt.Sprintf("%s, %s commits", name, commas(n)), tagA, tagB, path
	}
	dir = filepath.Join(cache, fmt.Sprintf("synthetic-%d-v1", syntheticCommits))
	if _, err := os.Stat(filepath.Join(dir, ".git", "kontext-bench-done")); err != nil {
		os.RemoveAll(dir)
		t0 := time.Now()
		generateHistory(dir, syntheticCommits)
		fmt.Fprintf(os.Stderr, "synthetic history: %d commits built in %s (cached in %s)\n", syntheticCommits, time.Since(t0).Round(time.Second), dir)
		check(os.WriteFile(filepath.Join(dir, ".git", "kontext-bench-done"), nil, 0o644))
	}
	return dir, fmt.Sprintf("synthetic history (%s commits with merges and tags, 40 committed conventions; set KONTEXT_BENCH_REPO to a large clone such as git/git to measure a real one)", commas(fmt.Sprint(syntheticCommits))),
		fmt.Sprintf("synthetic, %s commits", commas(fmt.Sprint(syntheticCommits))), "v1.10.0", "v1.15.0", "src/d7/m3/f5.c"
}

// governedPath is a file in the first directory that one of writeEntries'
// conventions governs (the middle one by name), so `governing` answers
// with an entry.
func governedPath(dir string) string {
	tops := strings.Fields(string(run(dir, "git", "ls-tree", "--name-only", "HEAD")))
	for i := 0; i < 40 && i < len(tops); i++ {
		files := strings.Fields(string(run(dir, "git", "ls-files", "--", tops[i]+"/")))
		if len(files) > 0 {
			return files[len(files)/2]
		}
	}
	files := strings.Fields(string(run(dir, "git", "ls-files")))
	return files[len(files)/2]
}

// writeEntries puts a small knowledge base (40 conventions over the
// repository's top-level directories) into a clone's working tree.
func writeEntries(dir string) {
	tops := strings.Fields(string(run(dir, "git", "ls-tree", "--name-only", "HEAD")))
	check(os.MkdirAll(filepath.Join(dir, ".ai", "conventions"), 0o755))
	for i := 0; i < 40; i++ {
		top := tops[i%len(tops)]
		body := fmt.Sprintf("---\nstatus: active\ndate: 2026-01-01\npaths: [\"%s/**\", \"%s\", \"**/*.h\"]\n---\n# Convention %d\n\nKeep %s tidy.\n", top, top, i, top)
		check(os.WriteFile(filepath.Join(dir, ".ai", "conventions", fmt.Sprintf("c-%02d.md", i)), []byte(body), 0o644))
	}
}

// generateHistory writes a history of n commits with git fast-import:
// 4,000 files in two directory levels, 1–3 files changed per commit, a
// 3-commit side branch merged back every 50 commits, an annotated tag
// every 5,000 commits and a committed knowledge base of 40 conventions,
// one of them revised every 1,000 commits.
func generateHistory(dir string, n int) {
	check(os.MkdirAll(dir, 0o755))
	run(dir, "git", "init", "-q", "-b", "main")
	cmd := exec.Command("git", "fast-import", "--quiet", "--depth=50")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	in, err := cmd.StdinPipe()
	check(err)
	cmd.Stderr = os.Stderr
	check(cmd.Start())
	w := bufio.NewWriterSize(in, 1<<20)
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	mark, made, ts := 0, 0, int64(1577836800)
	path := func() string { return fmt.Sprintf("src/d%d/m%d/f%d.c", rng.IntN(20), rng.IntN(20), rng.IntN(10)) }
	entry := func(i, rev int) string {
		return fmt.Sprintf("---\nstatus: active\ndate: 2026-01-01\npaths: [\"src/d%d/**\", \"src/d%d/m%d/*.c\"]\n---\n# Convention %d\n\nRevision %d: keep src/d%d tidy.\n", i%20, (i+3)%20, i%20, i, rev, i%20)
	}
	file := func(p, content string) { fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", p, len(content), content) }
	commit := func(ref string, from, merge int, msg string, body func()) int {
		mark++
		made++
		ts += 60
		fmt.Fprintf(w, "commit %s\nmark :%d\nauthor Ada <ada@example.com> %d +0000\ncommitter Ada <ada@example.com> %d +0000\ndata %d\n%s\n", ref, mark, ts, ts, len(msg), msg)
		if from > 0 {
			fmt.Fprintf(w, "from :%d\n", from)
		}
		if merge > 0 {
			fmt.Fprintf(w, "merge :%d\n", merge)
		}
		body()
		w.WriteByte('\n')
		return mark
	}
	tip := commit("refs/heads/main", 0, 0, "initial", func() {
		for a := 0; a < 20; a++ {
			for b := 0; b < 20; b++ {
				for c := 0; c < 10; c++ {
					file(fmt.Sprintf("src/d%d/m%d/f%d.c", a, b, c), fmt.Sprintf("int f%d_%d_%d;\n", a, b, c))
				}
			}
		}
		for i := 0; i < 40; i++ {
			file(fmt.Sprintf(".ai/conventions/c-%02d.md", i), entry(i, 0))
		}
	})
	nextTag := 5000
	for made < n {
		switch {
		case made%50 == 49 && n-made >= 4:
			side := tip
			for i := 0; i < 3; i++ {
				side = commit("refs/heads/side", side, 0, fmt.Sprintf("side work %d", made), func() {
					file(path(), fmt.Sprintf("side %d\n", made))
				})
			}
			tip = commit("refs/heads/main", tip, side, fmt.Sprintf("Merge side work at %d", made), func() {})
		default:
			tip = commit("refs/heads/main", tip, 0, fmt.Sprintf("change %d", made), func() {
				for i := rng.IntN(3); i >= 0; i-- {
					file(path(), fmt.Sprintf("change %d.%d\n", made, i))
				}
				if made%1000 == 0 {
					k := made / 1000 % 40
					file(fmt.Sprintf(".ai/conventions/c-%02d.md", k), entry(k, made))
				}
			})
		}
		if made >= nextTag {
			fmt.Fprintf(w, "tag v1.%d.0\nfrom :%d\ntagger Ada <ada@example.com> %d +0000\ndata 7\nrelease\n", nextTag/5000, tip, ts)
			nextTag += 5000
		}
	}
	check(w.Flush())
	check(in.Close())
	check(cmd.Wait())
	run(dir, "git", "pack-refs", "--all")
	run(dir, "git", "reset", "-q", "--hard", "main")
}

// largeHistoryRows measures the three rows on the large repository.
func largeHistoryRows(bin, cache string) ([]row, []string) {
	dir, label, short, tagA, tagB, path := largeRepo(cache)
	var rows []row
	notes := []string{"large history: " + label + "; load average before: " + loadAvg()}
	commitCache := filepath.Join(gitDir(dir), "kontext", "cache", "commits")

	// governing, history cached: a first --json call (the entries given a
	// look, below) builds and stores the commit index; the human command
	// (what a hook calls) reads none of it.
	restore := withLooks(dir)
	defer func() { restore() }()
	runQuiet(dir, bin, "governing", "--json", path)
	restore()
	g := pairsRSS(9, nil, []string{bin, "-C", dir, "governing", path}, []string{"git", "-C", dir, "rev-parse", "HEAD"})
	rows = append(rows, row{
		workload: "`kontext governing <path>` whole process on a large history, commit index cached (" + short + ")",
		ours:     fmt.Sprintf("%s, %.1f MiB RSS", ms(g.a), g.rssA), reference: ms(g.b) + " (`git rev-parse HEAD`)",
		ratio: ratios(g), budget: "≤ 10× git, < 30 MiB RSS", pass: g.ratio <= 10 && g.rssA < 30,
	})
	// --json with entries as written (no look: their history fields are
	// null, so the answer reads no history), then with a checked date on
	// each (since counts from it: the cached commit index is read).
	gj := pairsRSS(9, nil, []string{bin, "-C", dir, "governing", "--json", path}, []string{"git", "-C", dir, "rev-parse", "HEAD"})
	notes = append(notes, fmt.Sprintf("`governing --json` on that history, entries without a look (no ledger line or checked date: no history field to fill, the commit index is not read): %s, %.1f MiB RSS; %.1f× `git rev-parse HEAD` (CPU %.1f×)",
		ms(gj.a), gj.rssA, gj.ratio, gj.cpuRatio))
	restore = withLooks(dir)
	gl := pairsRSS(9, nil, []string{bin, "-C", dir, "governing", "--json", path}, []string{"git", "-C", dir, "rev-parse", "HEAD"})
	notes = append(notes, fmt.Sprintf("`governing --json` on that history, entries with a checked date (reads the cached commit index to fill since): %s, %.1f MiB RSS; %.1f× `git rev-parse HEAD` (CPU %.1f×)",
		ms(gl.a), gl.rssA, gl.ratio, gl.cpuRatio))

	// changed between two tags. kontext reads the knowledge base committed
	// in each (a clone without one still resolves both tags and reads
	// both trees' knowledge directories); git diff compares whole trees.
	c := pairsRSS(9, nil, []string{bin, "-C", dir, "changed", tagA, tagB}, []string{"git", "-C", dir, "diff", "--name-only", tagA, tagB})
	rows = append(rows, row{
		workload: fmt.Sprintf("`kontext changed %s %s` whole process (%s)", tagA, tagB, short),
		ours:     ms(c.a), reference: ms(c.b) + " (`git diff --name-only`)",
		ratio: ratios(c), budget: "≤ 2× git", pass: c.ratio <= 2,
	})

	// The same range by abbreviated shas: resolved from the pack indexes.
	shortA := strings.TrimSpace(string(run(dir, "git", "rev-parse", "--short=7", tagA+"^{commit}")))
	shortB := strings.TrimSpace(string(run(dir, "git", "rev-parse", "--short=7", tagB+"^{commit}")))
	cs := pairsRSS(9, nil, []string{bin, "-C", dir, "changed", shortA, shortB}, []string{"git", "-C", dir, "diff", "--name-only", shortA, shortB})
	rows = append(rows, row{
		workload: fmt.Sprintf("`kontext changed <sha7> <sha7>` whole process, the same tags by abbreviated sha (%s)", short),
		ours:     fmt.Sprintf("%s, %.1f MiB RSS", ms(cs.a), cs.rssA), reference: ms(cs.b) + " (`git diff --name-only`)",
		ratio: ratios(cs), budget: "≤ 2× git", pass: cs.ratio <= 2,
	})

	// The cold history index: the commit cache removed before each call
	// (the entries still have their look, so --json reads history); the
	// default [index] max_commits is 5,000.
	h := pairsRSS(9, func() { check(os.RemoveAll(commitCache)) },
		[]string{bin, "-C", dir, "governing", "--json", path}, []string{"git", "-C", dir, "log", "-n", "5000", "--name-only"})
	rows = append(rows, row{
		workload: "history index, cold, 5,000 commits, whole process (`kontext governing --json`, commit cache removed before each call; native/internal/git reader; " + short + ")",
		ours:     ms(h.a), reference: ms(h.b) + " (`git log -n 5000 --name-only`)",
		ratio: ratios(h), budget: "≤ 1.2× git log", pass: h.ratio <= 1.2,
	})
	restore()
	notes = append(notes, "large history: load average after: "+loadAvg())
	return rows, notes
}

// withLooks gives every convention of the benchmark's knowledge base a
// checked date (a look, from which since counts) in the working tree; the
// function it returns puts the files back as they were (once; later calls
// do nothing).
func withLooks(dir string) (restore func()) {
	files, err := filepath.Glob(filepath.Join(dir, ".ai", "conventions", "*.md"))
	check(err)
	orig := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		check(err)
		orig[f] = data
		looked := strings.Replace(string(data), "---\n", "---\nchecked: 2025-06-01\n", 1)
		check(os.WriteFile(f, []byte(looked), 0o644))
	}
	return func() {
		for f, data := range orig {
			check(os.WriteFile(f, data, 0o644))
		}
		orig = nil
	}
}

// ratios formats the wall and CPU ratios (two decimals, so a fraction
// of the reference does not print as 0.0×).
func ratios(p pairResult) string { return fmt.Sprintf("%.2f× (CPU %.2f×)", p.ratio, p.cpuRatio) }

type pairResult struct {
	a, b, ratio, cpuRatio, rssA float64
}

// pairsRSS is pairs with a step before each call of a (not timed) and the
// median peak RSS of a in MiB; one untimed warm-up pair first.
func pairsRSS(n int, before func(), a, b []string) pairResult {
	var ta, tb, r, rc, rss []float64
	for i := -1; i < n; i++ {
		if before != nil {
			before()
		}
		x, xc, xr := rusageCmd(a)
		y, yc, _ := rusageCmd(b)
		if i < 0 {
			continue
		}
		ta, tb, rss = append(ta, x), append(tb, y), append(rss, xr)
		r, rc = append(r, x/y), append(rc, xc/max(yc, 0.1))
	}
	for _, s := range [][]float64{r, rc} {
		sort.Float64s(s)
	}
	if own := forkedRSS(a, before); len(own) > 0 {
		rss = own
	}
	return pairResult{median(ta), median(tb), r[len(r)/2], rc[len(rc)/2], median(rss)}
}

// forkedRSS measures args' peak RSS through GNU time, which forks the
// command from its own small process. A child that os/exec starts shares
// this (large) bench process's memory until it execs, and Linux counts
// that in its ru_maxrss, so a late row of a full run read about twice
// what the call peaks at. Nil when /usr/bin/time is missing.
func forkedRSS(args []string, before func()) []float64 {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return nil
	}
	var out []float64
	for i := 0; i < 3; i++ {
		if before != nil {
			before()
		}
		cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M"}, args...)...)
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			return nil
		}
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		kib, err := strconv.ParseFloat(lines[len(lines)-1], 64)
		if err != nil {
			return nil
		}
		out = append(out, kib/1024)
	}
	return out
}

// rusageCmd runs args (output discarded) and returns its wall and CPU
// milliseconds and its peak RSS in MiB.
func rusageCmd(args []string) (float64, float64, float64) {
	cmd := exec.Command(args[0], args[1:]...)
	var errb strings.Builder
	cmd.Stderr = &errb
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n%s", strings.Join(args, " "), err, errb.String())
		os.Exit(1)
	}
	wall := float64(time.Since(t0).Microseconds()) / 1000
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var rss float64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return wall, float64(cpu.Microseconds()) / 1000, rss
}

func runQuiet(dir string, args ...string) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n%s", strings.Join(args, " "), err, out)
		os.Exit(1)
	}
}

func gitDir(dir string) string { return filepath.Join(dir, ".git") }

// loadAvg is the 1, 5 and 15-minute load average.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// benchCache is where built repositories are kept between runs.
func benchCache() string {
	if d := os.Getenv("KONTEXT_BENCH_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "kontext-bench")
}
