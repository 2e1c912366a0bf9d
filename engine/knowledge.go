package engine

import (
	"context"
	"path"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/entry"
)

// Knowledge is where a configuration keeps knowledge: what a knowledge
// bundle (kontext bundle) must carry for an in-memory engine to read the
// same entries.
type Knowledge struct {
	// Config is the configuration file ("" when the defaults apply).
	Config string
	// Dirs are the directories read: the ledger's directory and every
	// kind source's directory ("" = the whole tree, for AGENTS.md-style
	// sources), without duplicates.
	Dirs []string
	// Contains reports whether a repo-relative path is a knowledge file
	// (the configuration, the ledger, or a file below a source directory;
	// for a whole-tree source only the files its style reads). Local-only
	// files (CLAUDE.local.md) never are: they never leave the machine.
	Contains func(path string) bool
}

// Knowledge returns the layout of the configuration the engine reads now
// (the working tree's on a native surface).
func (e *Engine) Knowledge(ctx context.Context) (*Knowledge, error) {
	st, err := e.Read(ctx)
	if err != nil {
		return nil, err
	}
	return knowledgeOf(st.Cfg), nil
}

// KnowledgeAt returns the layout of a committed configuration: its
// repo-relative path and text, or "" and nil for the defaults.
func KnowledgeAt(configPath string, text []byte) (*Knowledge, error) {
	if configPath == "" {
		return knowledgeOf(config.Defaults()), nil
	}
	cfg, err := config.Parse(configPath, text)
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidInput, err, "the configuration %s is invalid", configPath)
	}
	return knowledgeOf(cfg), nil
}

func knowledgeOf(cfg *config.Config) *Knowledge {
	files := (&State{Cfg: cfg}).KnowledgeFiles()
	k := &Knowledge{Config: cfg.Path, Contains: func(p string) bool { return files(p) && !entry.IsLocalOnly(p) }}
	seen := map[string]bool{}
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			k.Dirs = append(k.Dirs, d)
		}
	}
	add(path.Dir(cfg.Ledger()))
	for _, s := range cfg.Sources() {
		add(s.Dir)
	}
	return k
}

// AtCommit returns an engine over the knowledge files committed in sha
// (full commit id), read with the configuration committed there; history
// fields are computed from sha. It needs git history (a native surface).
func (e *Engine) AtCommit(ctx context.Context, sha string) (*Engine, error) {
	return e.atCommit(ctx, sha)
}

// KnowledgeOf returns the layout of the configuration a read used.
func KnowledgeOf(st *State) *Knowledge { return knowledgeOf(st.Cfg) }
