package gitrepo

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
)

// UserName is git's user.name as git would read it: the repository's
// config, else the global one ($GIT_CONFIG_GLOBAL, ~/.gitconfig,
// $XDG_CONFIG_HOME/git/config). "" when unset.
func (r *Repo) UserName() string {
	if cfg, err := r.readConfig(); err == nil {
		if n := cfg.Section("user").Option("name"); n != "" {
			return n
		}
	}
	var files []string
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = []string{g}
	} else {
		if home, err := os.UserHomeDir(); err == nil {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			if home, err := os.UserHomeDir(); err == nil {
				xdg = filepath.Join(home, ".config")
			}
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		cfg := config.New()
		err = config.NewDecoder(f).Decode(cfg)
		f.Close()
		if err == nil {
			if n := strings.TrimSpace(cfg.Section("user").Option("name")); n != "" {
				return n
			}
		}
	}
	return ""
}
