package bundle

import (
	"os"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestMain shares the demo repository between the tests (testrepo.M).
func TestMain(m *testing.M) {
	os.Exit(testrepo.M(m).Run())
}
