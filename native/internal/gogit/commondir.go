package gogit

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
)

// absPaths turns absolute paths below the git dir or the common dir of a
// linked worktree back into relative ones before the repository
// filesystem routes them. go-git reopens a pack file by its absolute name
// (packfile objects read lazily); a bound filesystem joins such a name
// below its own root, so in a linked worktree (where packs live in the
// common dir) every lazily read object failed.
type absPaths struct {
	billy.Filesystem
	bases []string // the git dir first (it lies inside the common dir)
}

func (f *absPaths) rel(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	c := filepath.Clean(p)
	for _, b := range f.bases {
		if r, ok := strings.CutPrefix(c, b+string(filepath.Separator)); ok {
			return r
		}
	}
	return p
}

func (f *absPaths) Open(name string) (billy.File, error) { return f.Filesystem.Open(f.rel(name)) }

func (f *absPaths) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	return f.Filesystem.OpenFile(f.rel(name), flag, perm)
}

func (f *absPaths) Stat(name string) (os.FileInfo, error) { return f.Filesystem.Stat(f.rel(name)) }
