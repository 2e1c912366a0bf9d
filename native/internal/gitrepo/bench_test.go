package gitrepo

import (
	"context"
	"testing"

	"github.com/kontext/kontext/internal/gittest"
)

// BenchmarkRepo measures the engine.Git reads that go through the git
// layer on a generated 2,000-commit repository (gittest.Generate), each on
// a freshly opened Repo as a CLI call would: a diff across the whole
// history, a merge base 100 commits back, the whole tree with contents, a
// file at an old commit and ChangedSince.
func BenchmarkRepo(b *testing.B) {
	r := gittest.Generate(b, 2000)
	head := r.Git("rev-parse", "HEAD")
	first := r.Git("rev-list", "--max-parents=0", "HEAD")
	old := r.Git("rev-parse", "HEAD~100")
	ctx := context.Background()
	open := func(b *testing.B) *Repo {
		repo, err := Open(r.Dir)
		if err != nil {
			b.Fatal(err)
		}
		return repo
	}
	for _, bc := range []struct {
		name string
		run  func(*Repo) error
	}{
		{"Diff", func(repo *Repo) error { _, err := repo.Diff(ctx, first, head); return err }},
		{"MergeBase", func(repo *Repo) error { _, err := repo.MergeBase(ctx, head, old); return err }},
		{"Tree", func(repo *Repo) error { _, err := repo.Tree(ctx, head, []string{""}, nil); return err }},
		{"FileAt", func(repo *Repo) error { _, _, err := repo.FileAt(ctx, old, "src/d3/m4/f5.go"); return err }},
		{"ChangedSince", func(repo *Repo) error { _, err := repo.ChangedSince(ctx, old); return err }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := bc.run(open(b)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
