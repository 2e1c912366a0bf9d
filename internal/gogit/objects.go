package gogit

// A small raw-object layer: commits, annotated tags and trees are parsed
// from their raw git encoding here instead of through go-git's
// plumbing/object, whose import graph (openpgp, circl, x/crypto) costs
// the CLI start-up time in package initialisation. The parsing mirrors
// plumbing/object's (v5.19) closely enough that callers see the same
// results and sentinel errors.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

var (
	errFileNotFound      = errors.New("file not found")
	errDirectoryNotFound = errors.New("directory not found")
	errEntryNotFound     = errors.New("entry not found")
	errMalformedTree     = errors.New("malformed tree")
	errMalformedCommit   = errors.New("malformed commit")
	errMalformedTag      = errors.New("malformed tag")
	errInvalidPath       = errors.New("invalid path")
)

// rawCommit is the part of a commit object the package needs.
type rawCommit struct {
	Hash         plumbing.Hash
	TreeHash     plumbing.Hash
	ParentHashes []plumbing.Hash
	// CommitterTime is the committer time in unix seconds; that of the zero
	// time.Time when the committer header is missing or unparsable.
	CommitterTime int64
}

// treeEntry is one entry of a tree; Mode is canonicalised like git does
// (any 100xxx mode is Regular or Executable).
type treeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

type rawTree struct {
	Hash    plumbing.Hash
	Entries []treeEntry
	sorted  bool
}

// readObject returns the type and raw content of object h; t may be
// plumbing.AnyObject. An object of another type than t is
// plumbing.ErrObjectNotFound.
func (r *Repo) readObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	o, err := r.st.EncodedObject(t, h)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	rd, err := o.Reader()
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	return o.Type(), data, nil
}

// commit reads commit h.
func (r *Repo) commit(h plumbing.Hash) (*rawCommit, error) {
	_, data, err := r.readObject(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	return parseCommit(h, data)
}

// tree reads tree h.
func (r *Repo) tree(h plumbing.Hash) (*rawTree, error) {
	r.treesMu.Lock()
	t, ok := r.trees[h]
	r.treesMu.Unlock()
	if ok {
		return t, nil
	}
	_, data, err := r.readObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	if t, err = parseTree(h, data); err != nil {
		return nil, err
	}
	// Trees are immutable by hash: keep the parsed ones, so looking up many
	// paths below one directory parses it once. Bounded by a reset.
	r.treesMu.Lock()
	if r.trees == nil || len(r.trees) >= maxCachedTrees {
		r.trees = map[plumbing.Hash]*rawTree{}
	}
	r.trees[h] = t
	r.treesMu.Unlock()
	return t, nil
}

const maxCachedTrees = 4096

// lineReader yields lines with their trailing "\n" (the last one may lack
// it); eof is set on the last line, which may be empty.
type lineReader struct {
	data    []byte
	pending []byte
	pendEOF bool
	hasPend bool
}

func (l *lineReader) next() (line []byte, eof bool) {
	if l.hasPend {
		l.hasPend = false
		return l.pending, l.pendEOF
	}
	i := bytes.IndexByte(l.data, '\n')
	if i < 0 {
		line, l.data = l.data, nil
		return line, true
	}
	line, l.data = l.data[:i+1], l.data[i+1:]
	return line, false
}

func (l *lineReader) pushBack(line []byte, eof bool) {
	l.pending, l.pendEOF, l.hasPend = line, eof, true
}

func isBlankLine(line []byte) bool { return len(line) == 1 && line[0] == '\n' }

// splitHeader splits "key value\n" into key and value.
func splitHeader(line []byte) (string, []byte) {
	trimmed := bytes.TrimRight(line, "\n")
	key, value, ok := bytes.Cut(trimmed, []byte{' '})
	if !ok {
		return string(trimmed), nil
	}
	return string(key), value
}

func parseObjectID(data []byte, malformed error, header string) (plumbing.Hash, error) {
	id := string(data)
	if !plumbing.IsHash(id) {
		return plumbing.ZeroHash, fmt.Errorf("%w: bad %s hash", malformed, header)
	}
	return plumbing.NewHash(id), nil
}

// parseCommit parses a raw commit: "tree" first, then contiguous "parent"
// lines, then "author" and "committer" at their canonical positions
// (headers out of place are ignored, like git and go-git do).
func parseCommit(h plumbing.Hash, data []byte) (*rawCommit, error) {
	c := &rawCommit{Hash: h, CommitterTime: time.Time{}.Unix()}
	l := &lineReader{data: data}
	line, eof := l.next()
	if len(line) == 0 || isBlankLine(line) {
		return nil, fmt.Errorf("%w: missing tree header", errMalformedCommit)
	}
	key, val := splitHeader(line)
	if key != "tree" {
		return nil, fmt.Errorf("%w: tree header must be first", errMalformedCommit)
	}
	t, err := parseObjectID(val, errMalformedCommit, "tree")
	if err != nil {
		return nil, err
	}
	c.TreeHash = t
	if eof {
		return c, nil
	}
	for {
		line, eof = l.next()
		if len(line) == 0 || isBlankLine(line) {
			return c, nil
		}
		key, val = splitHeader(line)
		if key != "parent" {
			l.pushBack(line, eof)
			break
		}
		p, err := parseObjectID(val, errMalformedCommit, "parent")
		if err != nil {
			return nil, err
		}
		c.ParentHashes = append(c.ParentHashes, p)
		if eof {
			return c, nil
		}
	}
	line, eof = l.next()
	if len(line) == 0 || isBlankLine(line) {
		return c, nil
	}
	if key, _ = splitHeader(line); key == "author" {
		if eof {
			return c, nil
		}
		line, _ = l.next()
		if len(line) == 0 || isBlankLine(line) {
			return c, nil
		}
	}
	if key, val = splitHeader(line); key == "committer" {
		if t, ok := signatureTime(val); ok {
			c.CommitterTime = t
		}
	}
	return c, nil
}

// signatureTime parses the unix time of "Name <email> 1700000000 +0100".
func signatureTime(b []byte) (int64, bool) {
	open := bytes.LastIndexByte(b, '<')
	end := bytes.LastIndexByte(b, '>')
	if open == -1 || end == -1 || end < open || end+2 >= len(b) {
		return 0, false
	}
	b = b[end+2:]
	if sp := bytes.IndexByte(b, ' '); sp >= 0 {
		b = b[:sp]
	}
	ts, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, false
	}
	return ts, true
}

// parseTagTarget returns the object an annotated tag points at; the
// "object", "type" and "tag" headers must come first, in that order.
func parseTagTarget(data []byte) (plumbing.Hash, error) {
	l := &lineReader{data: data}
	line, eof := l.next()
	if len(line) == 0 || isBlankLine(line) {
		return plumbing.ZeroHash, fmt.Errorf("%w: missing object header", errMalformedTag)
	}
	key, val := splitHeader(line)
	if key != "object" {
		return plumbing.ZeroHash, fmt.Errorf("%w: object header must be first", errMalformedTag)
	}
	target, err := parseObjectID(val, errMalformedTag, "object")
	if err != nil || eof {
		return target, err
	}
	line, eof = l.next()
	if len(line) == 0 || isBlankLine(line) {
		return plumbing.ZeroHash, fmt.Errorf("%w: missing type header", errMalformedTag)
	}
	if key, val = splitHeader(line); key != "type" {
		return plumbing.ZeroHash, fmt.Errorf("%w: type header must follow object", errMalformedTag)
	}
	if _, err := plumbing.ParseObjectType(string(val)); err != nil {
		return plumbing.ZeroHash, err
	}
	if eof {
		return target, nil
	}
	line, _ = l.next()
	if len(line) == 0 || isBlankLine(line) {
		return plumbing.ZeroHash, fmt.Errorf("%w: missing tag header", errMalformedTag)
	}
	if key, _ = splitHeader(line); key != "tag" {
		return plumbing.ZeroHash, fmt.Errorf("%w: tag header must follow type", errMalformedTag)
	}
	return target, nil
}

// parseTree parses a raw tree: repeated "<octal mode> <name>\0<20-byte id>".
func parseTree(h plumbing.Hash, d []byte) (*rawTree, error) {
	t := &rawTree{Hash: h, sorted: true}
	prev := ""
	for len(d) > 0 {
		sp := bytes.IndexByte(d, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%w: missing mode terminator", errMalformedTree)
		}
		mode, err := filemode.New(string(d[:sp]))
		if err != nil {
			return nil, fmt.Errorf("%w: malformed mode", errMalformedTree)
		}
		d = d[sp+1:]
		nul := bytes.IndexByte(d, 0)
		if nul < 0 {
			return nil, fmt.Errorf("%w: missing filename terminator", errMalformedTree)
		}
		if nul == 0 {
			return nil, fmt.Errorf("%w: empty filename", errMalformedTree)
		}
		e := treeEntry{Name: string(d[:nul]), Mode: canonicalTreeMode(mode)}
		d = d[nul+1:]
		if len(d) < len(e.Hash) {
			return nil, fmt.Errorf("%w: truncated object id", errMalformedTree)
		}
		copy(e.Hash[:], d)
		d = d[len(e.Hash):]
		s := sortName(&e)
		if len(t.Entries) != 0 && prev > s {
			t.sorted = false
		}
		prev = s
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

func canonicalTreeMode(mode filemode.FileMode) filemode.FileMode {
	switch mode & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if mode&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	default:
		return filemode.Submodule
	}
}

// sortName is git's tree order key: a directory sorts as if its name ended
// in "/".
func sortName(e *treeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// entry finds the entry called name directly in t.
func (t *rawTree) entry(name string) (*treeEntry, error) {
	if t.sorted {
		for _, n := range []string{name, name + "/"} {
			i := sort.Search(len(t.Entries), func(i int) bool { return sortName(&t.Entries[i]) >= n })
			if i < len(t.Entries) && t.Entries[i].Name == name {
				return &t.Entries[i], nil
			}
		}
		return nil, errEntryNotFound
	}
	past := name + "/"
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Name == name {
			return e, nil
		}
		if sortName(e) > past {
			break
		}
	}
	return nil, errEntryNotFound
}

// findEntry looks p ("a/b/c") up below t: errDirectoryNotFound when a
// leading component is missing, errEntryNotFound when the last one is; a
// leading component that is not a tree is plumbing.ErrObjectNotFound.
func (r *Repo) findEntry(t *rawTree, p string) (*treeEntry, error) {
	if err := validTreePath(p); err != nil {
		return nil, err
	}
	parts := strings.Split(p, "/")
	for ; len(parts) > 1; parts = parts[1:] {
		e, err := t.entry(parts[0])
		if err != nil {
			return nil, errDirectoryNotFound
		}
		if t, err = r.tree(e.Hash); err != nil {
			return nil, err
		}
	}
	return t.entry(parts[0])
}

// fileContents returns the content of the blob at p below t;
// errFileNotFound when there is no such entry or it is not a blob.
func (r *Repo) fileContents(t *rawTree, p string) ([]byte, error) {
	e, err := r.findEntry(t, p)
	if err != nil {
		return nil, errFileNotFound
	}
	data, err := r.blob(e.Hash)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, errFileNotFound
	}
	return data, err
}

// validTreePath rejects paths go-git's tree lookups reject: control
// characters, empty paths, volume names, "." and ".." components and
// components git could take for ".git" (on any filesystem).
func validTreePath(p string) error {
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return fmt.Errorf("%w %q: contains control character", errInvalidPath, p)
		}
	}
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '\\' || r == '/' })
	if len(parts) == 0 || filepath.VolumeName(p) != "" {
		return fmt.Errorf("%w: %q", errInvalidPath, p)
	}
	for _, part := range parts {
		if part == "." || part == ".." {
			return fmt.Errorf("%w %q: cannot use %q", errInvalidPath, p, part)
		}
		if isDotGitName(part) || isHFSDotGit(part) || isNTFSDotGit(part) {
			return fmt.Errorf("%w component: %q", errInvalidPath, p)
		}
	}
	return nil
}

func isDotGitName(name string) bool {
	switch strings.ToLower(name) {
	case ".git", "git~1":
		return true
	}
	return false
}

// hfsIgnored are the code points HFS+ ignores in file names.
var hfsIgnored = map[rune]bool{
	0x200c: true, 0x200d: true, 0x200e: true, 0x200f: true,
	0x202a: true, 0x202b: true, 0x202c: true, 0x202d: true, 0x202e: true,
	0x206a: true, 0x206b: true, 0x206c: true, 0x206d: true, 0x206e: true, 0x206f: true,
	0xfeff: true,
}

// isHFSDotGit reports whether part is ".git" on HFS+ (case-insensitive,
// ignoring the code points HFS+ ignores).
func isHFSDotGit(part string) bool {
	runes := []rune(part)
	i := 0
	skip := func() {
		for i < len(runes) && hfsIgnored[runes[i]] {
			i++
		}
	}
	skip()
	if i >= len(runes) || runes[i] != '.' {
		return false
	}
	i++
	for _, want := range "git" {
		skip()
		if i >= len(runes) || runes[i] > 127 || unicode.ToLower(runes[i]) != want {
			return false
		}
		i++
	}
	skip()
	return i == len(runes)
}

// isNTFSDotGit reports whether part is ".git" or "git~1" on NTFS
// (case-insensitive, trailing dots and spaces and an alternate data
// stream ignored).
func isNTFSDotGit(part string) bool {
	var i int
	switch {
	case len(part) >= 4 && part[0] == '.' && asciiLower(part[1]) == 'g' && asciiLower(part[2]) == 'i' && asciiLower(part[3]) == 't':
		i = 4
	case len(part) >= 5 && asciiLower(part[0]) == 'g' && asciiLower(part[1]) == 'i' && asciiLower(part[2]) == 't' && part[3] == '~' && part[4] == '1':
		i = 5
	default:
		return false
	}
	for ; i < len(part); i++ {
		c := part[i]
		if c == ':' {
			return true
		}
		if c != '.' && c != ' ' {
			return false
		}
	}
	return true
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
