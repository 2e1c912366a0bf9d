// Package writer is kontext's native write machinery: the shared kontext
// write lock (<git-dir>/kontext/lock), atomic file writes confined to the
// worktree, and staging of exactly the written files in the git index.
//
// Staging rewrites the index with go-git's plumbing/format/index decoder
// and encoder under git's own index.lock, preserving every unrelated entry
// byte for byte (verified after encoding). Extensions git regenerates
// (cache-tree, untracked cache, fsmonitor, EOIE/IEOT) are dropped; indexes
// carrying data the encoder cannot keep (resolve-undo, split index, sparse
// directory entries, assume-unchanged bits, SHA-256, unknown formats) are
// handed to the git binary (`git update-index --add`) or refused when git
// is not installed.
//
// Only native surfaces import this package (it uses flock and the file
// system directly); the engine never does. It deliberately avoids go-git's
// top-level package and plumbing/object to keep start-up cheap.
package writer

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/kontext/kontext/engine/apierr"
)

// Writer writes and stages files of one worktree.
type Writer struct {
	root      string // worktree root (absolute)
	gitDir    string // this worktree's git dir: index, index.lock, kontext/lock
	commonDir string // the common git dir: objects, config
}

// New returns a Writer for the worktree at root whose git dir is gitDir
// (both absolute). For a linked worktree gitDir is the per-worktree dir
// (<common>/worktrees/<name>); the common dir is found via its "commondir"
// file.
func New(root, gitDir string) *Writer {
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		if c := strings.TrimSpace(string(b)); c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(gitDir, c)
			}
			common = filepath.Clean(c)
		}
	}
	return &Writer{root: filepath.Clean(root), gitDir: filepath.Clean(gitDir), commonDir: common}
}

// lockTimeout is KONTEXT_LOCK_TIMEOUT, 30 s by default: seconds (fractions
// allowed: 0.5) or a Go duration (2s, 1m30s, 500ms). Anything else is
// invalid_input, never silently the default.
func lockTimeout() (time.Duration, error) {
	v := strings.TrimSpace(os.Getenv("KONTEXT_LOCK_TIMEOUT"))
	if v == "" {
		return 30 * time.Second, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1e6 {
		return time.Duration(f * float64(time.Second)), nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, nil
	}
	return 0, apierr.Invalid("KONTEXT_LOCK_TIMEOUT=%q is not a wait: give seconds (30, 0.5) or a duration (2s, 1m30s), or unset it for the default 30s", v)
}

// pollInterval is the sleep between attempts to take a held lock.
const pollInterval = 25 * time.Millisecond

// cleanRel validates a repo-relative path and returns it cleaned, with
// forward slashes.
func cleanRel(rel string) (string, error) {
	if rel == "" {
		return "", apierr.Invalid("empty path")
	}
	if strings.ContainsRune(rel, 0) {
		return "", apierr.Invalid("path %q contains a NUL byte", rel)
	}
	s := filepath.ToSlash(rel)
	if filepath.IsAbs(rel) || strings.HasPrefix(s, "/") || filepath.VolumeName(rel) != "" {
		return "", apierr.Invalid("path %q must be relative to the repository root", rel)
	}
	for _, part := range strings.Split(s, "/") {
		if part == ".." {
			return "", apierr.Invalid("path %q must not contain \"..\"", rel)
		}
		if strings.EqualFold(part, ".git") {
			return "", apierr.Invalid("path %q points into the .git directory", rel)
		}
	}
	c := path.Clean(s)
	if c == "." || c == "" {
		return "", apierr.Invalid("path %q names the repository root", rel)
	}
	return c, nil
}

// within reports whether p equals base or lies below it.
func within(base, p string) bool {
	if p == base {
		return true
	}
	r, err := filepath.Rel(base, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// resolve validates rel and returns its absolute path, refusing paths
// whose existing ancestors resolve (through symlinks) outside the root or
// that are themselves symlinks.
func (w *Writer) resolve(rel string) (clean, abs string, err error) {
	clean, err = cleanRel(rel)
	if err != nil {
		return "", "", err
	}
	abs = filepath.Join(w.root, filepath.FromSlash(clean))
	if err := w.checkInside(clean, abs); err != nil {
		return "", "", err
	}
	return clean, abs, nil
}

func (w *Writer) checkInside(clean, abs string) error {
	realRoot, err := filepath.EvalSymlinks(w.root)
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "resolving the worktree root")
	}
	// The deepest existing ancestor must resolve inside the root.
	dir := filepath.Dir(abs)
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			if !within(realRoot, real) {
				return apierr.Invalid("path %q resolves outside the repository (through a symbolic link); kontext writes only inside the worktree", clean)
			}
			if w.inGitDir(realRoot, real) {
				return apierr.Invalid("path %q resolves into the .git directory (through a symbolic link); kontext never writes there", clean)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return apierr.Wrap(apierr.OperationFailed, err, "resolving %s", clean)
		}
		if dir == w.root || len(dir) <= len(w.root) {
			break
		}
		dir = filepath.Dir(dir)
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return apierr.Invalid("path %q is a symbolic link", clean)
	}
	// A directory on the way that holds its own .git is another repository
	// (a submodule or a nested checkout): its files belong to its index,
	// never to this one's.
	cur := w.root
	segs := strings.Split(clean, "/")
	for i, seg := range segs[:len(segs)-1] {
		cur = filepath.Join(cur, seg)
		if _, err := os.Lstat(filepath.Join(cur, ".git")); err == nil {
			nested := strings.Join(segs[:i+1], "/")
			e := apierr.Invalid("path %q lies inside the nested repository %s: kontext never writes across a repository boundary (run kontext -C %s there)", clean, nested, nested)
			e.Extra = map[string]any{"repository": nested}
			return e
		}
	}
	return nil
}

// inGitDir reports whether the resolved path real lies in a git directory
// of this worktree: <root>/.git, the git dir or the common dir (wherever
// they resolve to).
func (w *Writer) inGitDir(realRoot, real string) bool {
	for _, d := range []string{filepath.Join(realRoot, ".git"), w.gitDir, w.commonDir} {
		if rd, err := filepath.EvalSymlinks(d); err == nil {
			d = rd
		}
		if within(d, real) {
			return true
		}
	}
	return false
}

// Remove deletes the repo-relative file rel (confined like WriteFile); a
// missing file is no error. Only the rollback of a write that could not
// be staged removes files.
func (w *Writer) Remove(rel string) error {
	clean, abs, err := w.resolve(rel)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || !fi.Mode().IsRegular() {
		return apierr.New(apierr.OperationFailed, "%s is not a regular file; it was not removed", clean)
	}
	if err := os.Remove(abs); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "removing %s", clean)
	}
	syncDir(filepath.Dir(abs))
	return nil
}

// MkdirAll creates the repo-relative directory rel and its parents,
// confined to the worktree like WriteFile.
func (w *Writer) MkdirAll(rel string) error {
	clean, abs, err := w.resolve(rel)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(abs, 0o777); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "creating %s", clean)
	}
	// Re-check now that the directories exist (a symlink may have raced in).
	return w.checkInside(clean, abs)
}

// WriteFile writes data to the repo-relative path rel atomically: a temp
// file in the same directory is written, fsynced and renamed over the
// target, then the directory is fsynced. Parent directories are created.
// Absolute paths, paths with "..", paths into .git and paths resolving
// outside the root through symlinks are invalid_input.
func (w *Writer) WriteFile(rel string, data []byte) error {
	clean, abs, err := w.resolve(rel)
	if err != nil {
		return err
	}
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "creating the directory of %s", clean)
	}
	// Re-check now that the directories exist (a symlink may have raced in).
	if err := w.checkInside(clean, abs); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Lstat(abs); err == nil {
		if !fi.Mode().IsRegular() {
			return apierr.Invalid("path %q exists and is not a regular file", clean)
		}
		mode = fi.Mode().Perm()
	}
	RemoveStaleTemps(abs) // WriteFile runs under the write lock
	if err := AtomicWrite(abs, data, mode); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", clean)
	}
	return nil
}

// AtomicWrite writes data to the absolute path through a temporary file in
// the same directory (fsync, rename, fsync of the directory), so a reader
// sees the old file or the new one, never a part.
func AtomicWrite(abs string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(abs)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(abs)+".kontext-tmp-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmpName, abs); err != nil {
		return err
	}
	ok = true
	syncDir(dir)
	return nil
}

// RemoveStaleTemps removes the temporary files AtomicWrite left for abs
// when a writer was killed between creating one and the rename. Only a
// caller holding the kontext write lock calls it: then no other writer
// has a temporary file of abs in flight.
func RemoveStaleTemps(abs string) {
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(abs), "."+globEscape(filepath.Base(abs))+".kontext-tmp-*"))
	for _, p := range stale {
		os.Remove(p)
	}
}

// globEscape quotes the pattern characters of a file name.
func globEscape(name string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	return r.Replace(name)
}

// syncDir fsyncs a directory so a rename in it is durable (best effort:
// some platforms and file systems refuse to sync directories).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// repoConfig is what staging needs from the repository configuration.
type repoConfig struct {
	fileMode     bool   // core.filemode (default true)
	objectFormat string // extensions.objectformat ("" = sha1)
}

func (w *Writer) config() repoConfig {
	rc := repoConfig{fileMode: true}
	b, err := os.ReadFile(filepath.Join(w.commonDir, "config"))
	if err != nil {
		return rc
	}
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(b)).Decode(cfg); err != nil {
		return rc
	}
	if v := strings.ToLower(strings.TrimSpace(cfg.Section("core").Options.Get("filemode"))); v != "" {
		switch v {
		case "false", "no", "off", "0":
			rc.fileMode = false
		}
	}
	rc.objectFormat = strings.ToLower(strings.TrimSpace(cfg.Section("extensions").Options.Get("objectformat")))
	return rc
}

func lockHolder(pidText string) string {
	pid := strings.TrimSpace(pidText)
	if _, err := strconv.Atoi(pid); err != nil || pid == "" {
		return "an unknown pid"
	}
	return "pid " + pid
}
