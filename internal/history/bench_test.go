package history

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kontext/kontext/internal/git/gittest"
)

// genRepo makes a repository of exactly commits commits with git
// fast-import (10,000 `git commit` calls would take minutes): ~1,000 files
// in nested directories, 1–4 files changed per commit, an occasional add
// and delete, and every ~50 commits a 5-commit side branch merged back
// with a merge commit. The result is repacked like a gc'ed repository.
func genRepo(tb testing.TB, commits int) *repo {
	tb.Helper()
	r := newRepo(tb)
	rng := rand.New(rand.NewPCG(1, uint64(commits)))
	var s bytes.Buffer
	mark, made, ts := 0, 0, int64(1767225600)
	version := 0
	contents := map[string]string{} // path → latest content
	var mainTip int
	emit := func(path string) {
		c := contents[path]
		fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", path, len(c), c)
	}
	blob := func(path string) {
		version++
		contents[path] = fmt.Sprintf("%s version %d\n", path, version)
		emit(path)
	}
	commit := func(ref string, from int, merge int, msg string, body func()) int {
		mark++
		made++
		ts += 60
		fmt.Fprintf(&s, "commit %s\nmark :%d\ncommitter Ada <ada@example.com> %d +0000\ndata %d\n%s\n", ref, mark, ts, len(msg), msg)
		if from > 0 {
			fmt.Fprintf(&s, "from :%d\n", from)
		}
		if merge > 0 {
			fmt.Fprintf(&s, "merge :%d\n", merge)
		}
		body()
		s.WriteByte('\n')
		return mark
	}
	path := func(top, mid, f int) string { return fmt.Sprintf("src/d%d/m%d/f%d.go", top, mid, f) }
	mainTip = commit("refs/heads/main", 0, 0, "initial", func() {
		for a := 0; a < 10; a++ {
			for b := 0; b < 10; b++ {
				for c := 0; c < 10; c++ {
					blob(path(a, b, c))
				}
			}
		}
	})
	var added []string
	for made < commits {
		if made%50 == 49 && commits-made >= 7 {
			// A side branch touching src/d9 only (main never does), merged
			// back with the side's files in the merge tree.
			side, changed := mainTip, map[string]bool{}
			for i := 0; i < 5; i++ {
				side = commit("refs/heads/side", side, 0, fmt.Sprintf("side %d", made), func() {
					p := path(9, rng.IntN(10), rng.IntN(10))
					changed[p] = true
					blob(p)
				})
			}
			mainTip = commit("refs/heads/main", mainTip, side, fmt.Sprintf("merge side at %d", made), func() {
				for _, p := range slices.Sorted(maps.Keys(changed)) {
					emit(p) // the side's content: main never touches src/d9
				}
			})
			continue
		}
		mainTip = commit("refs/heads/main", mainTip, 0, fmt.Sprintf("change %d", made), func() {
			for i := rng.IntN(4); i >= 0; i-- {
				blob(path(rng.IntN(9), rng.IntN(10), rng.IntN(10)))
			}
			switch {
			case made%17 == 0:
				p := fmt.Sprintf("src/d%d/new%d/g%d.go", rng.IntN(9), made%13, made)
				added = append(added, p)
				blob(p)
			case made%23 == 0 && len(added) > 0:
				fmt.Fprintf(&s, "D %s\n", added[0])
				added = added[1:]
			}
		})
	}
	r.Run(s.Bytes(), "fast-import", "--quiet")
	r.Git("repack", "-a", "-d", "-q")
	r.Git("reset", "-q", "--hard", "main")
	return r
}

// BenchmarkCommitIndex measures a cold Build (empty cache, fresh storage:
// a new process), a warm one (everything cached) and git log on the same
// repository, best of three each. The spec's budget: cold ≤ 3× git log.
func BenchmarkCommitIndex(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("commits=%d", n), func(b *testing.B) {
			t0 := time.Now()
			r := genRepo(b, n)
			gen := time.Since(t0)
			head := r.Git("rev-parse", "HEAD")
			cacheDir := filepath.Join(r.GitDir(), "kontext")
			build := func() (time.Duration, *Index) {
				st := gittest.Storage(b, r.GitDir())
				t0 := time.Now()
				ix, err := Build(context.Background(), st, r.GitDir(), head, 0)
				d := time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				st.Close()
				return d, ix
			}
			gitlog := func() time.Duration {
				cmd := exec.Command("git", "log", "--no-merges", "--name-only", "--format=%H")
				cmd.Dir = r.Dir
				t0 := time.Now()
				if out, err := cmd.Output(); err != nil || len(out) == 0 {
					b.Fatal(err)
				}
				return time.Since(t0)
			}
			gitlog() // warm the page cache for both sides
			best := func(f func() time.Duration) time.Duration {
				d := f()
				for i := 0; i < 2; i++ {
					d = min(d, f())
				}
				return d
			}
			b.ResetTimer()
			var cold, warm, logt time.Duration
			for i := 0; i < b.N; i++ {
				cold = best(func() time.Duration {
					if err := os.RemoveAll(cacheDir); err != nil {
						b.Fatal(err)
					}
					d, ix := build()
					if len(ix.Commits) != n {
						b.Fatalf("%d commits walked, want %d", len(ix.Commits), n)
					}
					return d
				})
				warm = best(func() time.Duration { d, _ := build(); return d })
				logt = best(gitlog)
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(cold), "cold-ms")
			b.ReportMetric(ms(warm), "warm-ms")
			b.ReportMetric(ms(logt), "gitlog-ms")
			b.ReportMetric(ms(cold)/ms(logt), "ratio-x")
			b.ReportMetric(ms(gen), "gen-ms")
		})
	}
}
