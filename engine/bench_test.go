package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/internal/benchcorpus"
)

// writeCorpus writes n frontmatter entries spread over the five kinds.
func writeCorpus(tb testing.TB, dir string, n int) {
	kinds := []string{"decisions", "conventions", "learnings", "incidents", "architecture"}
	for _, k := range kinds {
		if err := os.MkdirAll(filepath.Join(dir, ".ai", k), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		k := kinds[i%len(kinds)]
		status := "active"
		if k == "decisions" {
			status = "accepted"
		}
		text := fmt.Sprintf("---\nstatus: %s\ndate: 2026-01-%02d\nsummary: Synthetic entry %d about module %d\npaths: [\"src/mod%d/**\", \"src/mod%d/api/*.go\", \"!src/mod%d/testdata/**\"]\ntags: [mod%d, synthetic]\n---\n# Entry %d of module %d\n\nThe module %d keeps its invariants; see [[e-%05d]].\n\n## Why\n\nBecause synthetic workloads need bodies with a few words in them.\n",
			status, i%28+1, i, i%200, i%200, i%200, i%200, i%50, i, i%200, i%200, (i+1)%n)
		if err := os.WriteFile(filepath.Join(dir, ".ai", k, fmt.Sprintf("e-%05d.md", i)), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkParse measures parsing and indexing 10,000 entry files from
// disk with a cold engine (budget: 1 s), and entries.list on the unchanged
// snapshot with a warm one over go-billy's osfs (the warm budget, 30 ms,
// is measured on the engine a Go program embeds: native's
// BenchmarkWarmList).
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			writeCorpus(b, dir, n)
			ctx := context.Background()
			var cold, warm time.Duration
			for i := 0; i < b.N; i++ {
				e := engine.New(engine.Options{FS: osfs.New(dir, osfs.WithBoundOS()), Root: dir})
				t0 := time.Now()
				if _, err := e.Do(ctx, "entries.governing", []byte(`{"paths":["src/mod7/api/x.go"]}`)); err != nil {
					b.Fatal(err)
				}
				cold += time.Since(t0)
				t1 := time.Now()
				const reps = 5
				for j := 0; j < reps; j++ {
					if _, err := e.Do(ctx, "entries.list", []byte(`{"limit":100}`)); err != nil {
						b.Fatal(err)
					}
				}
				warm += time.Since(t1) / reps
			}
			b.ReportMetric(float64(cold.Microseconds())/1000/float64(b.N), "cold-ms")
			b.ReportMetric(float64(warm.Microseconds())/1000/float64(b.N), "warm-list-ms")
		})
	}
}

// governingCorpus is the governing workload of the WASM budget
// (internal/benchcorpus). The npm package's bench
// (wasm/bench/governing.mjs) runs the same corpus, written by
// BenchmarkGoverningOp to $KONTEXT_BENCH_CORPUS.
func governingCorpus(n int) (map[string]string, []string) { return benchcorpus.Governing(n) }

// BenchmarkGoverningOp measures a warm entries.governing request (1,000
// paths) through Engine.Request over the corpus on disk, in-process: the
// native side of the WASM ≤ 5× budget.
func BenchmarkGoverningOp(b *testing.B) {
	const n = 10000
	files, paths := governingCorpus(n)
	if out := os.Getenv("KONTEXT_BENCH_CORPUS"); out != "" {
		data, err := json.Marshal(map[string]any{"files": files, "paths": paths})
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	fs := osfs.New(dir, osfs.WithBoundOS())
	for name, text := range files {
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	e := engine.New(engine.Options{FS: fs, Root: dir})
	input, _ := json.Marshal(map[string]any{"paths": paths})
	ctx := context.Background()
	if out := e.Request(ctx, "entries.governing", input); !bytes.Contains(out[:40], []byte(`"ok":true`)) {
		b.Fatalf("governing failed: %.300s", out)
	}
	b.ResetTimer()
	var times []float64
	for i := 0; i < b.N; i++ {
		const reps = 5
		for j := 0; j < reps; j++ {
			t0 := time.Now()
			e.Request(ctx, "entries.governing", input)
			times = append(times, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	sort.Float64s(times)
	b.ReportMetric(times[len(times)/2], "warm-ms")
	b.ReportMetric(n, "entries")
}
