package writer

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/kontext/kontext/engine/apierr"
)

// stagedFile is one file to stage: its index name, blob and stat data.
type stagedFile struct {
	name string
	hash plumbing.Hash
	fi   fs.FileInfo
}

// Stage adds exactly these repo-relative files (their current
// working-tree content) to the git index, like `git add -- <paths>`: it
// writes their blobs as loose objects (into the common dir for linked
// worktrees), replaces or inserts just their stage-0 entries (mode 100644
// or 100755 as on disk, stat data filled) and preserves every other index
// entry byte for byte. git's index.lock is taken while the index is
// rewritten; when git holds it, Stage waits up to KONTEXT_LOCK_TIMEOUT and
// then fails with operation_failed, leaving the index untouched.
//
// An index the encoder cannot reproduce faithfully (resolve-undo, split or
// sparse index, assume-unchanged bits, unmerged target paths, SHA-256, an
// unreadable format) is updated with `git update-index --add` instead, or
// refused with operation_failed when git is not installed.
func (w *Writer) Stage(ctx context.Context, paths ...string) error {
	return w.StageContents(ctx, paths, nil)
}

// StageContents is Stage of paths, and also stages each file of contents
// with the content given instead of its working-tree content (the working
// file is not read), all in one rewrite of the index. Such an entry gets
// no stat data (as `git update-index --cacheinfo` writes it), so git
// compares the working file's content with it and shows what differs as
// unstaged.
func (w *Writer) StageContents(ctx context.Context, paths []string, contents map[string][]byte) error {
	if len(paths) == 0 && len(contents) == 0 {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	abs := map[string]string{}
	given := map[string][]byte{}
	all := append([]string(nil), paths...)
	for p := range contents {
		all = append(all, p)
	}
	sort.Strings(all[len(paths):])
	for _, p := range all {
		clean, a, err := w.resolve(p)
		if err != nil {
			return err
		}
		if data, ok := contents[p]; ok {
			given[clean] = data
		}
		if !seen[clean] {
			seen[clean] = true
			names = append(names, clean)
			abs[clean] = a
		}
	}
	cfg := w.config()
	if cfg.objectFormat != "" && cfg.objectFormat != "sha1" {
		return w.gitFallback(ctx, names, given, fmt.Sprintf("the repository uses the %s object format", cfg.objectFormat))
	}

	files := make([]stagedFile, 0, len(names))
	for _, n := range names {
		var f fileData
		if data, ok := given[n]; ok {
			f.data = data // fi nil: no stat data
		} else {
			var err error
			if f, err = readFile(n, abs[n]); err != nil {
				return err
			}
		}
		h, err := writeBlob(filepath.Join(w.commonDir, "objects"), f.data)
		if err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "writing the blob of %s", n)
		}
		files = append(files, stagedFile{name: n, hash: h, fi: f.fi})
	}

	lock, err := w.lockIndex(ctx)
	if err != nil {
		return err
	}
	reason, err := w.rewriteIndex(lock, files, cfg)
	if err != nil || reason != "" {
		lock.abort()
		if err != nil {
			return err
		}
		return w.gitFallback(ctx, names, given, reason)
	}
	return lock.commit()
}

type fileData struct {
	data []byte
	fi   fs.FileInfo
}

func readFile(name, abs string) (fileData, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fileData{}, apierr.Invalid("cannot stage %s: no such file in the worktree", name)
		}
		return fileData{}, apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
	}
	if !fi.Mode().IsRegular() {
		return fileData{}, apierr.Invalid("cannot stage %s: not a regular file", name)
	}
	f, err := os.Open(abs)
	if err != nil {
		return fileData{}, apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return fileData{}, apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
	}
	if !fi.Mode().IsRegular() {
		return fileData{}, apierr.Invalid("cannot stage %s: not a regular file", name)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fileData{}, apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
	}
	return fileData{data: data, fi: fi}, nil
}

// writeBlob stores data as a loose blob object under objDir and returns
// its id. An object already present is left alone.
func writeBlob(objDir string, data []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(plumbing.BlobObject, data)
	hex := h.String()
	dir := filepath.Join(objDir, hex[:2])
	final := filepath.Join(dir, hex[2:])
	if _, err := os.Stat(final); err == nil {
		return h, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return h, err
	}
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return h, err
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	zw := zlib.NewWriter(tmp)
	if _, err := fmt.Fprintf(zw, "blob %d\x00", len(data)); err != nil {
		return h, err
	}
	if _, err := zw.Write(data); err != nil {
		return h, err
	}
	if err := zw.Close(); err != nil {
		return h, err
	}
	if err := tmp.Sync(); err != nil {
		return h, err
	}
	if err := tmp.Close(); err != nil {
		return h, err
	}
	_ = os.Chmod(tmpName, 0o444)
	if err := os.Rename(tmpName, final); err != nil {
		return h, err
	}
	ok = true
	syncDir(dir)
	return h, nil
}

// indexLock is git's <git-dir>/index.lock, created by us.
type indexLock struct {
	f         *os.File
	lockPath  string
	indexPath string
	gitDir    string
}

func (w *Writer) indexLockPath() string { return filepath.Join(w.gitDir, "index.lock") }

func indexLockHeld(p string) error {
	return apierr.New(apierr.OperationFailed,
		"git's index.lock is held by another process: %s exists; try again when git finishes (remove the file only if no git process is running)", p)
}

// lockIndex creates <git-dir>/index.lock exclusively, polling while
// another process holds it, up to the lock timeout.
func (w *Writer) lockIndex(ctx context.Context) (*indexLock, error) {
	p := w.indexLockPath()
	timeout, err := lockTimeout()
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return &indexLock{f: f, lockPath: p, indexPath: filepath.Join(w.gitDir, "index"), gitDir: w.gitDir}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "creating git's index.lock")
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, cerr, "waiting for git's index.lock")
		}
		if !time.Now().Before(deadline) {
			return nil, indexLockHeld(p)
		}
		time.Sleep(pollInterval)
	}
}

// abort removes our index.lock, leaving the index as it was.
func (l *indexLock) abort() {
	l.f.Close()
	os.Remove(l.lockPath)
}

// commit makes the written index.lock durable and renames it over the
// index.
func (l *indexLock) commit() error {
	if err := l.f.Sync(); err != nil {
		l.abort()
		return apierr.Wrap(apierr.OperationFailed, err, "syncing git's index.lock")
	}
	if err := l.f.Close(); err != nil {
		os.Remove(l.lockPath)
		return apierr.Wrap(apierr.OperationFailed, err, "writing git's index.lock")
	}
	if err := os.Rename(l.lockPath, l.indexPath); err != nil {
		os.Remove(l.lockPath)
		return apierr.Wrap(apierr.OperationFailed, err, "replacing the git index")
	}
	syncDir(l.gitDir)
	return nil
}

// rewriteIndex reads the index (under our index.lock), replaces the
// entries of files and writes the result into the lock file. A non-empty
// reason means the index must be handed to git instead.
func (w *Writer) rewriteIndex(lock *indexLock, files []stagedFile, cfg repoConfig) (reason string, err error) {
	old, err := os.ReadFile(lock.indexPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", apierr.Wrap(apierr.OperationFailed, err, "reading the git index")
	}
	idx := &index.Index{Version: 2}
	var oldRaw []rawEntry
	if len(old) > 0 {
		if err := index.NewDecoder(bytes.NewReader(old)).Decode(idx); err != nil {
			return fmt.Sprintf("the index uses a format or extension kontext cannot rewrite (%v)", err), nil
		}
		if idx.ResolveUndo != nil && len(idx.ResolveUndo.Entries) > 0 {
			return "the index holds resolve-undo data", nil
		}
		_, oldRaw, err = scanIndex(old)
		if err != nil {
			return fmt.Sprintf("the index could not be scanned (%v)", err), nil
		}
		if len(oldRaw) != len(idx.Entries) {
			return "the index could not be scanned consistently", nil
		}
	}
	for _, e := range idx.Entries {
		if e.Mode == filemode.Dir {
			return "the index is a sparse index", nil
		}
	}

	targets := map[string]*stagedFile{}
	for i := range files {
		targets[files[i].name] = &files[i]
	}
	names := map[string]bool{}
	existing := map[string]*index.Entry{}
	for _, e := range idx.Entries {
		names[e.Name] = true
		if targets[e.Name] != nil {
			if e.Stage != 0 { // not index.Merged: go-git defines it as 1
				return fmt.Sprintf("%s is unmerged (git records resolve-undo data when resolving it)", e.Name), nil
			}
			existing[e.Name] = e
		}
	}
	for _, f := range files {
		for d := filepath.ToSlash(filepath.Dir(f.name)); d != "." && d != "/" && d != ""; d = filepath.ToSlash(filepath.Dir(d)) {
			if names[d] && targets[d] == nil {
				return "", apierr.New(apierr.OperationFailed, "cannot stage %s: %s is a file in the git index", f.name, d)
			}
		}
		i := sort.Search(len(idx.Entries), func(i int) bool { return idx.Entries[i].Name >= f.name+"/" })
		if i < len(idx.Entries) && strings.HasPrefix(idx.Entries[i].Name, f.name+"/") {
			return "", apierr.New(apierr.OperationFailed, "cannot stage %s: it is a directory in the git index", f.name)
		}
	}

	entries := make([]*index.Entry, 0, len(idx.Entries)+len(files))
	for _, e := range idx.Entries {
		if targets[e.Name] == nil {
			entries = append(entries, e)
		}
	}
	for _, f := range files {
		if f.fi == nil { // content given: no stat data, the mode it had
			mode := filemode.Regular
			if e := existing[f.name]; e != nil && e.Mode == filemode.Executable {
				mode = filemode.Executable
			}
			entries = append(entries, &index.Entry{Hash: f.hash, Name: f.name, Mode: mode})
			continue
		}
		ctime, mtime, dev, ino, uid, gid := statData(f.fi)
		mode := filemode.Regular
		if cfg.fileMode {
			if f.fi.Mode().Perm()&0o100 != 0 {
				mode = filemode.Executable
			}
		} else if e := existing[f.name]; e != nil && e.Mode == filemode.Executable {
			mode = filemode.Executable
		}
		if ctime.Unix() < 0 || ctime.Unix() > 1<<32-1 {
			ctime = time.Time{}
		}
		if mtime.Unix() < 0 || mtime.Unix() > 1<<32-1 {
			mtime = time.Time{}
		}
		entries = append(entries, &index.Entry{
			Hash: f.hash, Name: f.name,
			CreatedAt: ctime, ModifiedAt: mtime,
			Dev: dev, Inode: ino, Mode: mode, UID: uid, GID: gid,
			Size: uint32(f.fi.Size()),
		})
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].Name != entries[j].Name {
			return entries[i].Name < entries[j].Name
		}
		return entries[i].Stage < entries[j].Stage
	})
	out := &index.Index{Version: idx.Version, Entries: entries}
	if out.Version == 2 {
		for _, e := range entries {
			if e.IntentToAdd || e.SkipWorktree {
				out.Version = 3 // as git does: extended flags need version 3
				break
			}
		}
	}
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(out); err != nil {
		return fmt.Sprintf("the index could not be encoded (%v)", err), nil
	}
	if err := verifyIndex(oldRaw, buf.Bytes(), files); err != nil {
		return fmt.Sprintf("re-encoding the index would not preserve it (%v)", err), nil
	}
	if _, err := lock.f.Write(buf.Bytes()); err != nil {
		return "", apierr.Wrap(apierr.OperationFailed, err, "writing git's index.lock")
	}
	return "", nil
}

// onFallback, when set (by tests), observes why the git binary was used.
var onFallback func(reason string)

// gitFallback stages names with `git update-index --add`, used when the
// index holds data the go-git codec would lose; a name in given is staged
// with that content (`git hash-object -w`, then `--cacheinfo`).
func (w *Writer) gitFallback(ctx context.Context, names []string, given map[string][]byte, reason string) error {
	if onFallback != nil {
		onFallback(reason)
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return apierr.New(apierr.OperationFailed,
			"cannot stage %s: %s, which kontext cannot rewrite without losing data, and the git binary is not installed; stage the files with `git add`",
			strings.Join(names, ", "), reason)
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_INDEX_FILE=") {
			env = append(env, kv)
		}
	}
	args := []string{"update-index", "--add"}
	var worktree []string
	for _, n := range names {
		data, ok := given[n]
		if !ok {
			worktree = append(worktree, n)
			continue
		}
		cmd := exec.CommandContext(ctx, gitPath, "hash-object", "-w", "--no-filters", "--stdin")
		cmd.Dir = w.root
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "git hash-object failed writing the staged content of %s (%s)", n, reason)
		}
		mode := "100644"
		if ls, err := w.gitOutput(ctx, gitPath, env, "ls-files", "-s", "--", n); err == nil && strings.HasPrefix(ls, "100755 ") {
			mode = "100755"
		}
		args = append(args, "--cacheinfo", mode+","+strings.TrimSpace(string(out))+","+n)
	}
	args = append(append(args, "--"), worktree...)
	p := w.indexLockPath()
	timeout, err := lockTimeout()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Lstat(p); err == nil {
			if cerr := ctx.Err(); cerr != nil {
				return apierr.Wrap(apierr.OperationFailed, cerr, "waiting for git's index.lock")
			}
			if !time.Now().Before(deadline) {
				return indexLockHeld(p)
			}
			time.Sleep(pollInterval)
			continue
		}
		cmd := exec.CommandContext(ctx, gitPath, args...)
		cmd.Dir = w.root
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err == nil {
			return nil
		}
		msg := strings.TrimSpace(string(out))
		if strings.Contains(msg, "index.lock") && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(pollInterval)
			continue
		}
		if msg == "" {
			msg = err.Error()
		}
		return apierr.New(apierr.OperationFailed, "git update-index failed staging %s (%s): %s", strings.Join(names, ", "), reason, msg)
	}
}

// gitOutput runs git with args in the worktree and returns its output.
func (w *Writer) gitOutput(ctx context.Context, gitPath string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, gitPath, args...)
	cmd.Dir = w.root
	cmd.Env = env
	out, err := cmd.Output()
	return string(out), err
}

// rawEntry is one index entry as stored: its name, the 62 fixed bytes
// (stat data, object id, flags) and the extended flags.
type rawEntry struct {
	name   string
	fixed  []byte
	hasExt bool
	ext    uint16
}

func (e rawEntry) stage() int { return int(binary.BigEndian.Uint16(e.fixed[60:]) >> 12 & 3) }

// scanIndex walks the entries of a SHA-1 index file (versions 2-4)
// without interpreting them, so re-encoded entries can be compared with
// the originals byte for byte.
func scanIndex(b []byte) (version uint32, entries []rawEntry, err error) {
	const hashLen = 20
	if len(b) < 12+hashLen || string(b[:4]) != "DIRC" {
		return 0, nil, errors.New("bad index signature")
	}
	version = binary.BigEndian.Uint32(b[4:])
	if version < 2 || version > 4 {
		return 0, nil, fmt.Errorf("unsupported index version %d", version)
	}
	count := binary.BigEndian.Uint32(b[8:])
	end := len(b) - hashLen
	pos := 12
	prev := ""
	for i := uint32(0); i < count; i++ {
		start := pos
		if pos+62 > end {
			return 0, nil, errors.New("truncated index entry")
		}
		e := rawEntry{fixed: b[pos : pos+62]}
		flags := binary.BigEndian.Uint16(b[pos+60:])
		pos += 62
		if flags&0x4000 != 0 {
			if pos+2 > end {
				return 0, nil, errors.New("truncated index entry")
			}
			e.hasExt = true
			e.ext = binary.BigEndian.Uint16(b[pos:])
			pos += 2
		}
		if version == 4 {
			strip, n := decodeVarint(b[pos:end])
			if n == 0 || strip > len(prev) {
				return 0, nil, errors.New("bad v4 name compression")
			}
			pos += n
			nul := bytes.IndexByte(b[pos:end], 0)
			if nul < 0 {
				return 0, nil, errors.New("unterminated entry name")
			}
			e.name = prev[:len(prev)-strip] + string(b[pos:pos+nul])
			pos += nul + 1
		} else {
			nameLen := int(flags & 0xfff)
			if nameLen == 0xfff {
				nul := bytes.IndexByte(b[pos:end], 0)
				if nul < 0 {
					return 0, nil, errors.New("unterminated entry name")
				}
				nameLen = nul
			}
			if pos+nameLen > end {
				return 0, nil, errors.New("truncated entry name")
			}
			e.name = string(b[pos : pos+nameLen])
			size := pos + nameLen - start
			pos = start + (size+8)&^7
			if pos > end {
				return 0, nil, errors.New("truncated entry padding")
			}
		}
		prev = e.name
		entries = append(entries, e)
	}
	return version, entries, nil
}

// decodeVarint is git's offset varint (varint.c); n is 0 on error.
func decodeVarint(b []byte) (val, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	n = 1
	val = int(c & 127)
	for c&128 != 0 {
		if n >= len(b) || n > 8 {
			return 0, 0
		}
		val++
		c = b[n]
		n++
		val = val<<7 + int(c&127)
	}
	return val, n
}

// verifyIndex checks an encoded index against the original entries:
// every entry not being staged must be identical (name, stat data, object
// id, flags, extended flags) and in the same order, entries sorted by
// (name, stage), and each staged file present once at stage 0 with its
// blob.
func verifyIndex(oldRaw []rawEntry, encoded []byte, files []stagedFile) error {
	if err := index.NewDecoder(bytes.NewReader(encoded)).Decode(&index.Index{}); err != nil {
		return fmt.Errorf("encoded index does not decode: %v", err)
	}
	_, newRaw, err := scanIndex(encoded)
	if err != nil {
		return err
	}
	targets := map[string]plumbing.Hash{}
	for _, f := range files {
		targets[f.name] = f.hash
	}
	var a, b []rawEntry
	for _, e := range oldRaw {
		if _, ok := targets[e.name]; !ok {
			a = append(a, e)
		}
	}
	found := map[string]int{}
	for i, e := range newRaw {
		if i > 0 {
			p := newRaw[i-1]
			if p.name > e.name || (p.name == e.name && p.stage() >= e.stage()) {
				return fmt.Errorf("entries out of order at %q", e.name)
			}
		}
		if h, ok := targets[e.name]; ok {
			if e.stage() != 0 || !bytes.Equal(e.fixed[40:60], h[:]) {
				return fmt.Errorf("staged entry %q is wrong", e.name)
			}
			found[e.name]++
			continue
		}
		b = append(b, e)
	}
	for n := range targets {
		if found[n] != 1 {
			return fmt.Errorf("staged entry %q missing", n)
		}
	}
	if len(a) != len(b) {
		return fmt.Errorf("%d unrelated entries became %d", len(a), len(b))
	}
	for i := range a {
		if a[i].name != b[i].name || !bytes.Equal(a[i].fixed, b[i].fixed) || a[i].hasExt != b[i].hasExt || a[i].ext != b[i].ext {
			return fmt.Errorf("entry %q would change", a[i].name)
		}
	}
	return nil
}
