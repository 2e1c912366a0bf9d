package review

import (
	"io/fs"
	"os"
	"os/exec"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestAssetsUpToDate rebuilds the console and the engine and compares them
// with the committed assets: a change to web/ or the engine without
// `make assets` would ship a console that does not match the binary.
func TestAssetsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wasm engine and the console bundle")
	}
	cmd := exec.Command("go", "run", "./build/webbundle", "-assets", "-check")
	cmd.Dir = testrepo.Root()
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestEmbeddedConsole: the binary's embedded assets are the whole console,
// not a placeholder.
func TestEmbeddedConsole(t *testing.T) {
	t.Setenv("KONTEXT_ASSETS", "")
	for _, name := range []string{"web/index.html", "web/style.css", "web/app.js", "engine/kontext.wasm.gz"} {
		data, err := fs.ReadFile(Assets(), name)
		if err != nil || len(data) == 0 {
			t.Errorf("embedded %s: %v (%d bytes)", name, err, len(data))
		}
	}
	raw, err := wasmGz(Assets())
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 1<<20 {
		t.Errorf("embedded engine is %d bytes gzip: not a real build", len(raw))
	}
}
