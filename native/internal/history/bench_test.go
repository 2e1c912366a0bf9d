package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kontext/kontext/internal/gittest"
)

// genRepo is gittest.Generate: the benchmark's repository shape.
func genRepo(tb testing.TB, commits int) *repo { return &repo{gittest.Generate(tb, commits)} }

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
