package match

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// GoverningWorkload builds the spec's governing benchmark corpus
// (the performance budgets of bench/results.md) deterministically from seed: `entries` sets with three
// patterns each on average — 60% literal-prefix ("dir/sub/**", "dir/*.ext",
// "dir/"), 20% exact files, 15% suffix ("**/*.ext", "**/*_word.ext",
// "**/name/**"), 5% negations — and 1,000 query paths, most under the
// generated directories and some naming the exact files.
func GoverningWorkload(entries int, seed uint64) ([]Set, []string) {
	r := rand.New(rand.NewPCG(seed, 0x6b6f6e74657874))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }

	syll := []string{"ba", "ko", "ri", "te", "mu", "la", "ne", "so", "vi", "da", "pe", "gu", "an", "or", "ex", "il"}
	words := make([]string, 300)
	seen := map[string]bool{}
	for i := range words {
		for {
			w := pick(syll) + pick(syll)
			if r.IntN(2) == 0 {
				w += pick(syll)
			}
			if !seen[w] {
				seen[w], words[i] = true, w
				break
			}
		}
	}
	exts := []string{"go", "rs", "ts", "tsx", "js", "py", "md", "sql", "yaml", "json", "proto", "sh", "css", "html", "toml"}
	roots := []string{"src", "lib", "pkg", "cmd", "internal", "services", "web", "api", "docs", "tools", "infra", "scripts"}

	dirs := make([]string, max(entries/4, 50))
	for i := range dirs {
		parts := []string{pick(roots)}
		for range 1 + r.IntN(3) {
			parts = append(parts, pick(words))
		}
		dirs[i] = strings.Join(parts, "/")
	}
	file := func() string { return pick(dirs) + "/" + pick(words) + "." + pick(exts) }
	files := make([]string, max(entries/2, 50))
	for i := range files {
		files[i] = file()
	}

	total := entries * 3
	kinds := make([]int, total) // 0 literal-prefix, 1 exact, 2 suffix, 3 negation
	nLit, nExact, nSuffix := total*60/100, total*20/100, total*15/100
	for i := range kinds {
		switch {
		case i < nLit:
			kinds[i] = 0
		case i < nLit+nExact:
			kinds[i] = 1
		case i < nLit+nExact+nSuffix:
			kinds[i] = 2
		default:
			kinds[i] = 3
		}
	}
	r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })

	raw := func(k int) string {
		switch k {
		case 0:
			switch r.IntN(10) {
			case 0, 1, 2, 3:
				return pick(dirs) + "/**"
			case 4:
				return pick(dirs) + "/"
			case 5, 6, 7, 8:
				return pick(dirs) + "/*." + pick(exts)
			default:
				return pick(dirs) + "/**/*_" + pick(words) + "." + pick(exts)
			}
		case 1:
			return pick(files)
		case 2:
			switch r.IntN(4) {
			case 0:
				return "**/*." + pick(exts)
			case 1:
				return "**/*_" + pick(words) + "." + pick(exts)
			default:
				return "**/" + pick(words) + "/**"
			}
		default:
			switch r.IntN(3) {
			case 0:
				return "!" + pick(dirs) + "/" + pick(words) + "/**"
			case 1:
				return "!**/*_test." + pick(exts)
			default:
				return "!" + pick(files)
			}
		}
	}
	sets := make([]Set, entries)
	for i := range sets {
		sets[i].Owner = i
		for _, k := range kinds[i*3 : i*3+3] {
			p, err := Compile(raw(k))
			if err != nil {
				panic(err)
			}
			sets[i].Patterns = append(sets[i].Patterns, p)
		}
	}

	paths := make([]string, 1000)
	for i := range paths {
		switch n := r.IntN(100); {
		case n < 20:
			paths[i] = pick(files)
		case n < 85:
			p := pick(dirs)
			for range r.IntN(3) {
				p += "/" + pick(words)
			}
			sep := "."
			if r.IntN(5) == 0 {
				sep = "_test."
			}
			paths[i] = p + "/" + pick(words) + sep + pick(exts)
		default:
			paths[i] = pick([]string{"vendor", "third_party", "README.md", "build"}) + "/" + pick(words) + "." + pick(exts)
		}
	}
	return sets, paths
}

// BenchmarkGoverning times, in one run, the naive per-pattern doublestar
// loop and the compiled index on the same workload, requires identical
// answers, and reports naive-ms, index-ms (per 1,000-path lookup),
// speedup-x and build-ms. Run with -benchtime 1x.
func BenchmarkGoverning(b *testing.B) {
	for _, entries := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("entries=%d", entries), func(b *testing.B) {
			sets, paths := GoverningWorkload(entries, 1)
			var naive, index, build time.Duration
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				ix := NewIndex(sets)
				build = time.Since(t0)

				t0 = time.Now()
				want := Naive(sets, paths)
				naive = time.Since(t0)

				if got := ix.Lookup(paths); !reflect.DeepEqual(got, want) {
					b.Fatal("index and naive answers differ")
				}
				// Repeat the index until the total is long enough to be stable.
				reps := 0
				t0 = time.Now()
				for reps < 20 || time.Since(t0) < 300*time.Millisecond {
					ix.Lookup(paths)
					reps++
				}
				index = time.Since(t0) / time.Duration(reps)
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(naive), "naive-ms")
			b.ReportMetric(ms(index), "index-ms")
			b.ReportMetric(float64(naive)/float64(index), "speedup-x")
			b.ReportMetric(ms(build), "build-ms")
		})
	}
}
