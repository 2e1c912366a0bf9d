package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/internal/entry"
)

func TestZZDebugFacts(t *testing.T) {
	root := os.Getenv("LINTDIR")
	if root == "" {
		t.Skip()
	}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			if fi != nil && fi.IsDir() && (fi.Name() == "node_modules" || fi.Name() == ".git") {
				return filepath.SkipDir
			}
			return nil
		}
		b := strings.ToLower(filepath.Base(p))
		if !(b == "agents.md" || b == "claude.md" || strings.HasSuffix(b, ".mdc") || strings.HasSuffix(b, ".instructions.md") || b == "copilot-instructions.md" || b == ".cursorrules") {
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, para := range entry.Paragraphs(string(data)) {
			for i, l := range para.Lines {
				for _, f := range lineFacts(l) {
					fmt.Printf("%s:%d %s=%s | %s\n", strings.TrimPrefix(p, root), para.Line[i], f.key, f.value, l)
				}
			}
		}
		return nil
	})
}
