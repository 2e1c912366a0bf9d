package verifyrun

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts"
)

// TimeoutEnv overrides the verify timeout (seconds).
const TimeoutEnv = "KONTEXT_VERIFY_TIMEOUT_SECS"

// ConfigDir is the user's kontext config dir: $XDG_CONFIG_HOME/kontext,
// else ~/.config/kontext.
func ConfigDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "kontext"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", "kontext"), nil
}

type localConfig struct {
	Verify struct {
		PassEnv     []string `toml:"pass_env"`
		TimeoutSecs *int     `toml:"timeout_secs"`
	} `toml:"verify"`
}

// readLocal reads one local config file; a missing file is empty.
func readLocal(path string) (*localConfig, error) {
	var c localConfig
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &c, nil
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s", path)
	}
	if err := toml.Unmarshal(data, &c); err != nil {
		return nil, apierr.Invalid("%s: %v", path, err)
	}
	if t := c.Verify.TimeoutSecs; t != nil && *t <= 0 {
		return nil, apierr.Invalid("%s: [verify] timeout_secs must be a positive number of seconds, got %d", path, *t)
	}
	return &c, nil
}

// VerifySettings reads the local verify settings: pass_env of the user's
// and the worktree's local config (both apply), timeout_secs of the
// worktree's config, else the user's, overridden by
// KONTEXT_VERIFY_TIMEOUT_SECS.
func (r *Runner) VerifySettings() (engine.VerifySettings, error) {
	s := engine.VerifySettings{Environ: os.Environ()}
	var files []string
	if dir, err := ConfigDir(); err == nil {
		files = append(files, filepath.Join(dir, "config.toml"))
	}
	if r.GitDir != "" {
		files = append(files, filepath.Join(r.GitDir, "kontext", "config.toml"))
	}
	for _, f := range files {
		c, err := readLocal(f)
		if err != nil {
			return s, err
		}
		s.PassEnv = append(s.PassEnv, c.Verify.PassEnv...)
		if c.Verify.TimeoutSecs != nil {
			s.Timeout = time.Duration(*c.Verify.TimeoutSecs) * time.Second
		}
	}
	if v, ok := os.LookupEnv(TimeoutEnv); ok && v != "" {
		d, err := drafts.ParseVerifyTimeout(TimeoutEnv, v)
		if err != nil {
			return s, err
		}
		s.Timeout = d
	}
	return s, nil
}
