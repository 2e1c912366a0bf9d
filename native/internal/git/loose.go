package git

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// maxAlternateDepth bounds chains of alternates like git does.
const maxAlternateDepth = 5

// objectDirs returns the object directory objects followed by its
// alternates (objects/info/alternates, one directory per line, relative
// ones to the directory holding the file; their own alternates too, up to
// git's depth), without repeats.
func objectDirs(objects string) []string {
	var dirs []string
	seen := map[string]bool{}
	var add func(dir string, depth int)
	add = func(dir string, depth int) {
		dir = filepath.Clean(dir)
		if seen[dir] {
			return
		}
		seen[dir] = true
		dirs = append(dirs, dir)
		if depth >= maxAlternateDepth {
			return
		}
		f, err := os.Open(filepath.Join(dir, "info", "alternates"))
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if line == "" || line[0] == '#' {
				continue
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(dir, line)
			}
			add(line, depth+1)
		}
	}
	add(objects, 0)
	return dirs
}

// readLoose reads object h from the loose objects of dirs; found is false
// when none has it. zr holds a reusable decompressor.
func readLoose(dirs []string, h plumbing.Hash, zr *io.ReadCloser) (plumbing.ObjectType, []byte, bool, error) {
	hex := h.String()
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, hex[:2], hex[2:]))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return plumbing.InvalidObject, nil, true, err
		}
		typ, content, err := inflateLoose(data, zr)
		if err != nil {
			return plumbing.InvalidObject, nil, true, fmt.Errorf("loose object %s: %w", h, err)
		}
		return typ, content, true, nil
	}
	return plumbing.InvalidObject, nil, false, nil
}

var errBadLoose = errors.New("malformed loose object")

// inflateLoose decodes a loose object file: zlib data of
// "<type> <size>\0<content>".
func inflateLoose(data []byte, zr *io.ReadCloser) (plumbing.ObjectType, []byte, error) {
	src := bytes.NewReader(data)
	var err error
	if *zr == nil {
		*zr, err = zlib.NewReader(src)
	} else {
		err = (*zr).(zlib.Resetter).Reset(src, nil)
	}
	if err != nil {
		return plumbing.InvalidObject, nil, err
	}
	// The header is short: read it a byte at a time (the decompressor
	// buffers), then the content in one read of its declared size.
	var hdr [32]byte
	n := 0
	for {
		if n == len(hdr) {
			return plumbing.InvalidObject, nil, errBadLoose
		}
		if _, err := io.ReadFull(*zr, hdr[n:n+1]); err != nil {
			return plumbing.InvalidObject, nil, errBadLoose
		}
		if hdr[n] == 0 {
			break
		}
		n++
	}
	name, sizeText, ok := bytes.Cut(hdr[:n], []byte{' '})
	if !ok {
		return plumbing.InvalidObject, nil, errBadLoose
	}
	typ, err := plumbing.ParseObjectType(string(name))
	if err != nil || typ > plumbing.TagObject {
		return plumbing.InvalidObject, nil, errBadLoose
	}
	size, err := strconv.ParseUint(string(sizeText), 10, 40)
	if err != nil {
		return plumbing.InvalidObject, nil, errBadLoose
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(*zr, out); err != nil {
		return plumbing.InvalidObject, nil, err
	}
	return typ, out, nil
}
