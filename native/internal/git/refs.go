package git

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// CommonDir is the repository's common git dir: the main one for a linked
// worktree (its "commondir" file), else gitDir itself.
func CommonDir(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	common := strings.TrimSpace(string(data))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return common
}

// Shallow reads the shallow list (the boundary commits of a shallow
// clone); nil when the repository is not shallow.
func Shallow(gitDir string) (map[plumbing.Hash]bool, error) {
	data, err := os.ReadFile(filepath.Join(CommonDir(gitDir), "shallow"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out map[plumbing.Hash]bool
	for _, line := range bytes.Fields(data) {
		h, ok := ParseHash(line)
		if !ok {
			return nil, fmt.Errorf("shallow file: bad object id %q", line)
		}
		if out == nil {
			out = map[plumbing.Hash]bool{}
		}
		out[h] = true
	}
	return out, nil
}

// Ref is one reference: symbolic (Target set, like HEAD on a branch) or
// direct (Hash set).
type Ref struct {
	Name   string
	Target string // the ref a symbolic ref points at
	Hash   plumbing.Hash
}

// Refs reads a repository's references like git does (the files
// backend): a loose ref file first — in the worktree's git dir for the
// per-worktree refs (HEAD, pseudorefs such as ORIG_HEAD, refs/bisect/,
// refs/worktree/, refs/rewritten/), in the common dir for the others —
// then packed-refs. A missing ref is plumbing.ErrReferenceNotFound.
// Safe for concurrent use.
type Refs struct {
	gitDir, commonDir string

	mu          sync.Mutex
	packed      map[string]plumbing.Hash
	packedSize  int64
	packedMtime time.Time
}

// OpenRefs reads the references of the worktree whose git dir is gitDir.
func OpenRefs(gitDir string) *Refs {
	return &Refs{gitDir: gitDir, commonDir: CommonDir(gitDir)}
}

// maxSymrefDepth bounds symbolic ref chains (a loop is an error).
const maxSymrefDepth = 10

// Resolve follows name (symbolic refs included) to an object id.
func (r *Refs) Resolve(name string) (plumbing.Hash, error) {
	for range maxSymrefDepth {
		ref, err := r.Ref(name)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if ref.Target == "" {
			return ref.Hash, nil
		}
		name = ref.Target
	}
	return plumbing.ZeroHash, fmt.Errorf("ref %s: symbolic ref chain too long", name)
}

// Ref reads one reference without following it.
func (r *Refs) Ref(name string) (Ref, error) {
	if !validRefName(name) {
		return Ref{}, plumbing.ErrReferenceNotFound
	}
	dir := r.commonDir
	if perWorktree(name) {
		dir = r.gitDir
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	switch {
	case err == nil:
		return parseLooseRef(name, data)
	case !errors.Is(err, os.ErrNotExist) && !isDirErr(err):
		return Ref{}, fmt.Errorf("reading ref %s: %w", name, err)
	}
	if !strings.HasPrefix(name, "refs/") {
		return Ref{}, plumbing.ErrReferenceNotFound // only refs/ are packed
	}
	packed, err := r.packedRefs()
	if err != nil {
		return Ref{}, err
	}
	if h, ok := packed[name]; ok {
		return Ref{Name: name, Hash: h}, nil
	}
	return Ref{}, plumbing.ErrReferenceNotFound
}

// HasPrefix reports whether any reference's name starts with prefix
// ("refs/remotes/").
func (r *Refs) HasPrefix(prefix string) (bool, error) {
	packed, err := r.packedRefs()
	if err != nil {
		return false, err
	}
	for name := range packed {
		if strings.HasPrefix(name, prefix) {
			return true, nil
		}
	}
	found := false
	root := filepath.Join(r.commonDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	err = filepath.WalkDir(root, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable or missing: no refs there
		}
		if !d.IsDir() && !strings.HasSuffix(d.Name(), ".lock") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found, err
}

// Names returns the names of the references below prefix ("refs/heads/"),
// loose and packed, sorted and without repeats.
func (r *Refs) Names(prefix string) ([]string, error) {
	packed, err := r.packedRefs()
	if err != nil {
		return nil, err
	}
	var out []string
	for name := range packed {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	root := filepath.Join(r.commonDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(d.Name(), ".lock") {
			return nil // unreadable or missing: no refs there
		}
		rel, err := filepath.Rel(r.commonDir, p)
		if name := filepath.ToSlash(rel); err == nil && validRefName(name) {
			out = append(out, name)
		}
		return nil
	})
	slices.Sort(out)
	return slices.Compact(out), err
}

// perWorktree reports whether ref name lives in the worktree's own git
// dir rather than the common one.
func perWorktree(name string) bool {
	if !strings.HasPrefix(name, "refs/") {
		return true // HEAD and pseudorefs (ORIG_HEAD, FETCH_HEAD, …)
	}
	for _, p := range []string{"refs/bisect/", "refs/worktree/", "refs/rewritten/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// validRefName rejects names that could leave the git dir or that git
// would never store: empty components, "." and "..", control characters,
// backslashes.
func validRefName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			return false
		}
	}
	return true
}

// isDirErr: reading a directory (a name that is a prefix of other refs)
// fails with EISDIR, a file in the way of a directory with ENOTDIR.
func isDirErr(err error) bool {
	return errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR)
}

// parseLooseRef parses a loose ref file: "ref: <target>" or an object id
// followed by whitespace or the end (FETCH_HEAD has more on its line).
func parseLooseRef(name string, data []byte) (Ref, error) {
	if target, ok := bytes.CutPrefix(data, []byte("ref:")); ok {
		t := string(bytes.TrimSpace(target))
		if !validRefName(t) {
			return Ref{}, fmt.Errorf("ref %s: bad symbolic target %q", name, t)
		}
		return Ref{Name: name, Target: t}, nil
	}
	const hexLen = 2 * len(plumbing.Hash{})
	if len(data) >= hexLen {
		if h, ok := ParseHash(data[:hexLen]); ok && (len(data) == hexLen || isSpace(data[hexLen])) {
			return Ref{Name: name, Hash: h}, nil
		}
	}
	return Ref{}, fmt.Errorf("ref %s: malformed ref file", name)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// packedRefs returns packed-refs as name → id, re-read when the file
// changed.
func (r *Refs) packedRefs() (map[string]plumbing.Hash, error) {
	p := filepath.Join(r.commonDir, "packed-refs")
	r.mu.Lock()
	defer r.mu.Unlock()
	fi, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		r.packed = map[string]plumbing.Hash{}
		r.packedSize, r.packedMtime = -1, time.Time{}
		return r.packed, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading packed-refs: %w", err)
	}
	if r.packed != nil && fi.Size() == r.packedSize && fi.ModTime().Equal(r.packedMtime) {
		return r.packed, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("reading packed-refs: %w", err)
	}
	defer f.Close()
	packed := map[string]plumbing.Hash{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue // the header, or the peeled id of the tag above
		}
		id, name, ok := bytes.Cut(line, []byte{' '})
		h, okh := ParseHash(id)
		if !ok || !okh {
			return nil, fmt.Errorf("packed-refs: malformed line %q", line)
		}
		packed[string(bytes.TrimRight(name, "\r"))] = h
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading packed-refs: %w", err)
	}
	r.packed, r.packedSize, r.packedMtime = packed, fi.Size(), fi.ModTime()
	return packed, nil
}
