package drafts

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/detect"
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

// runSetup detects the knowledge the repository keeps (appending new
// include sources to the configuration, never rewriting it), then creates
// the configuration, the storage and kind directories when absent. It is
// idempotent, installs no hooks, stages nothing, and writes through the
// transaction (lock, atomic write) like every other write. A dry run plans
// the same and writes nothing.
func runSetup(ctx context.Context, e *draft, in *api.SetupInput) (*api.SetupResult, error) {
	detectOn := in.Detect == nil || *in.Detect
	// planConfig returns the configuration path, its current text (nil when
	// absent), the text setup wants there, whether that differs, and what
	// detection found.
	planConfig := func() (string, []byte, []byte, bool, []api.DetectedSource, error) {
		fs := e.FS()
		cfgPath := ""
		for _, c := range config.Candidates() {
			if _, err := fs.Stat(c); err == nil {
				cfgPath = c
				break
			} else if !errors.Is(err, os.ErrNotExist) {
				return "", nil, nil, false, nil, apierr.Wrap(apierr.OperationFailed, err, "checking %s", c)
			}
		}
		var existing []byte
		if cfgPath == "" {
			cfgPath = config.Candidates()[0]
		} else {
			data, err := util.ReadFile(fs, cfgPath)
			if err != nil {
				return "", nil, nil, false, nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s", cfgPath)
			}
			existing = data
		}
		text, changed, detected := existing, existing == nil, []api.DetectedSource{}
		if text == nil {
			text = []byte(setupConfig)
		}
		if detectOn {
			plan, err := detect.PlanConfig(fs, e.Roots(), cfgPath, existing, []byte(setupConfig))
			if err != nil {
				return "", nil, nil, false, nil, err
			}
			text, changed = plan.Text, plan.Changed
			for _, s := range plan.Sources {
				detected = append(detected, api.DetectedSource(s))
			}
		}
		if _, err := config.Parse(cfgPath, text); err != nil {
			return "", nil, nil, false, nil, err
		}
		return cfgPath, existing, text, changed, detected, nil
	}

	if in.DryRun {
		cfgPath, existing, text, changed, detected, err := planConfig()
		if err != nil {
			return nil, err
		}
		cfg, err := config.Parse(cfgPath, text)
		if err != nil {
			return nil, err
		}
		res := &api.SetupResult{Root: e.Options().Root, Storage: cfg.Storage, Created: []string{}, Detected: detected, DryRun: true,
			ConfigSource: api.ConfigSource{Kind: "defaults"}}
		if changed {
			t := string(text)
			res.ConfigText = &t
		}
		if existing != nil {
			st, err := e.Read(ctx)
			if err != nil {
				return nil, err
			}
			if res.ConfigSource, err = e.ConfigSource(ctx, st); err != nil {
				return nil, err
			}
		}
		return res, nil
	}

	var created []string
	detected, written := []api.DetectedSource{}, false
	st, err := e.unrecorded(ctx, func(st *engine.State) ([]change, []string, error) {
		if err := linkedOut(e.FS(), append([]string{st.Cfg.Storage}, kindDirs(st)...)); err != nil {
			return nil, nil, err
		}
		cfgPath, existing, text, changed, found, err := planConfig()
		if err != nil {
			return nil, nil, err
		}
		detected, written = found, changed
		var files []change
		if changed {
			files = append(files, change{path: cfgPath, data: text, isNew: existing == nil})
			if existing == nil {
				created = append(created, cfgPath)
			}
		}
		// Detection only appends include sources (read-only, outside the
		// storage), so the storage and kind directories are the ones the
		// read above saw: the defaults when there was no configuration,
		// which setupConfig spells out.
		fs := e.FS()
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
	return &api.SetupResult{Root: e.Options().Root, Storage: st.Cfg.Storage, Created: created, ConfigSource: src,
		Detected: detected, ConfigWritten: written}, nil
}

func kindDirs(st *engine.State) []string {
	var dirs []string
	for _, k := range entry.Kinds {
		dirs = append(dirs, st.Cfg.Kinds[k].Dir)
	}
	return dirs
}

// linkedOut refuses storage or kind directories reached through a
// symbolic link that is absolute or leaves the repository: reads resolve
// such a link inside the repository and writes would follow it elsewhere,
// so setup would create a directory tree kontext never reads (or write
// outside). A relative link that stays inside the repository is fine.
func linkedOut(fs billy.Filesystem, dirs []string) error {
	for _, d := range dirs {
		cur := ""
		for _, seg := range strings.Split(path.Clean(d), "/") {
			cur = path.Join(cur, seg)
			fi, err := fs.Lstat(cur)
			if err != nil {
				break
			}
			if fi.Mode()&os.ModeSymlink == 0 {
				continue
			}
			target, err := fs.Readlink(cur)
			if err != nil {
				return apierr.Wrap(apierr.OperationFailed, err, "reading the link %s", cur)
			}
			t := filepath.ToSlash(target)
			if filepath.IsAbs(target) || strings.HasPrefix(t, "/") {
				return apierr.Invalid("%s is a symbolic link to the absolute path %s; kontext follows only relative links inside the repository: make it a relative link or a directory", cur, target)
			}
			if j := path.Join(path.Dir(cur), t); j == ".." || strings.HasPrefix(j, "../") {
				return apierr.Invalid("%s is a symbolic link to %s, outside the repository; kontext reads and writes knowledge only inside it: replace the link with a directory", cur, target)
			}
		}
	}
	return nil
}
