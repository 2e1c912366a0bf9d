package native

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestContractNested pins what crosses a repository boundary: a write
// routed into a nested repository (repository in the result), its receipt
// found from the outer repository, and governing's boundaries.
func TestContractNested(t *testing.T) {
	dir := writeRepo(t)
	lib := filepath.Join(dir, "lib")
	testrepo.Git(t, dir, "init", "-q", "-b", "main", "lib")
	testrepo.Git(t, lib, "commit", "-q", "--allow-empty", "-m", "init")
	ctx := context.Background()
	stage := `{"operation_id":"nested-1","entry":{"kind":"convention","title":"Lib logs with slog","body":"Use slog.\n","paths":["lib/**/*.go"]}}`
	checkGolden(t, "nested_stage", dir, Request(ctx, dir, "drafts.stage", []byte(stage)))
	checkGolden(t, "nested_stage_replay", dir, Request(ctx, dir, "drafts.stage", []byte(stage)))
	checkGolden(t, "nested_operations_get", dir, Request(ctx, dir, "operations.get", []byte(`{"operation_id":"nested-1"}`)))
	checkGolden(t, "nested_governing", dir, Request(ctx, dir, "entries.governing", []byte(`{"paths":["lib/a/b.go","src/x.go","lib"],"history":false}`)))
}
