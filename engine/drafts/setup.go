package drafts

import (
	"context"
	"errors"
	"os"
	"path"
	"slices"
	"sort"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/entry"
)

const setupConfig = `# kontext configuration (committed). Keys: see the README.
version = 1
storage = ".ai"

# Read an existing ADR log as decisions:
# [[kinds.decision.include]]
# dir = "docs/adr"
# style = "adr"
`

// runSetup creates the storage and kind directories and a committed config
// when none exists. It is idempotent and installs no hooks. It writes
// through the transaction (lock, atomic write) like every other write.
func runSetup(ctx context.Context, e *draft, _ *api.SetupInput) (*api.SetupResult, error) {
	var created []string
	st, err := e.unrecorded(ctx, func(st *engine.State) ([]change, []string, error) {
		fs := e.FS()
		var files []change
		cfgPath := ""
		for _, c := range config.Candidates() {
			if _, err := fs.Stat(c); err == nil {
				cfgPath = c
				break
			} else if !errors.Is(err, os.ErrNotExist) {
				return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "checking %s", c)
			}
		}
		if cfgPath == "" {
			// Without a config the read above used the defaults, which
			// setupConfig spells out: the directories below are its.
			cfgPath = config.Candidates()[0]
			files = append(files, change{path: cfgPath, data: []byte(setupConfig), isNew: true})
			created = append(created, cfgPath)
		}
		var dirs []string
		for _, d := range append([]string{st.Cfg.Storage}, kindDirs(st)...) {
			if _, err := fs.Stat(d); err == nil || slices.Contains(dirs, d) {
				continue
			}
			dirs = append(dirs, d)
			created = append(created, path.Clean(d)+"/")
		}
		return files, dirs, nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(created)
	if created == nil {
		created = []string{}
	}
	src, err := e.ConfigSource(ctx, st)
	if err != nil {
		return nil, err
	}
	return &api.SetupResult{Root: e.Options().Root, Storage: st.Cfg.Storage, Created: created, ConfigSource: src}, nil
}

func kindDirs(st *engine.State) []string {
	var dirs []string
	for _, k := range entry.Kinds {
		dirs = append(dirs, st.Cfg.Kinds[k].Dir)
	}
	return dirs
}
