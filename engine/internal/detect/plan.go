package detect

import (
	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine/internal/config"
)

// Plan is what setup's detection decides: the sources found (configured
// or new) and the configuration text with the new ones appended.
type Plan struct {
	Sources []Source
	Text    []byte // the configuration after appending
	Changed bool   // Text differs from the existing configuration
}

// PlanConfig detects the knowledge below fs's root and appends the new
// sources to the configuration: existing is the text of file (nil when
// there is none yet: then base is the text a new configuration starts
// from). roots are the absolute spellings of the root, for symlinks.
func PlanConfig(fs billy.Filesystem, roots []string, file string, existing, base []byte) (*Plan, error) {
	text := existing
	if text == nil {
		text = base
	}
	cfg, err := config.Parse(file, text)
	if err != nil {
		return nil, err
	}
	srcs, err := Find(fs, Options{Skip: []string{cfg.Storage}, Known: cfg.Sources(), Roots: roots})
	if err != nil {
		return nil, err
	}
	out, changed, err := AppendConfig(file, text, srcs)
	if err != nil {
		return nil, err
	}
	if srcs == nil {
		srcs = []Source{}
	}
	return &Plan{Sources: srcs, Text: out, Changed: changed || existing == nil}, nil
}
