package engine_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

// TestWithoutBoundaries: governing names the nested repositories of its
// paths, and leaves them out, without asking the finder, inside
// engine.WithoutBoundaries; the entries answered are the same.
func TestWithoutBoundaries(t *testing.T) {
	e, _ := memEngine(t, map[string]string{
		".ai/decisions/2026-01-10-use-cron.md": "---\nstatus: accepted\ndate: 2026-01-10\npaths: [\"src/**\"]\n---\n# Use cron\n\nBody.\n",
	})
	var asked [][]string
	e.UseBoundaryFinder(func(_ billy.Filesystem, paths []string) []api.Boundary {
		asked = append(asked, paths)
		return []api.Boundary{{Path: "src/lib/x.go", Repository: "src/lib", RepositoryPath: "x.go"}}
	})
	in := &api.GoverningInput{Paths: []string{"src/a.go", "src/lib/x.go"}}
	ctx := context.Background()
	with, err := e.Governing(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || len(with.Boundaries) != 1 || with.Boundaries[0].Repository != "src/lib" {
		t.Fatalf("governing: finder asked %v, boundaries %+v", asked, with.Boundaries)
	}
	without, err := e.Governing(engine.WithoutBoundaries(ctx), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || without.Boundaries != nil {
		t.Fatalf("without boundaries: finder asked %v, boundaries %+v", asked, without.Boundaries)
	}
	ids := func(r *api.GoverningResult) []string {
		var out []string
		for _, en := range r.Entries {
			out = append(out, en.ID)
		}
		return out
	}
	if got, want := ids(without), ids(with); len(want) != 1 || !reflect.DeepEqual(got, want) {
		t.Fatalf("entries without boundaries %v, with %v", got, want)
	}
}
