package git

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
)

// ErrIndexUnsupported says the index uses a form IndexBlobs does not read
// (a split or sparse index, another hash or version): read it with the
// fallback.
var ErrIndexUnsupported = errors.New("git index form not handled")

// IndexBlobs returns the stage-0 blob ids of the wanted paths in the
// worktree's index (<gitDir>/index), reading the file once and decoding
// only names (versions 2, 3 and 4). A missing index is an empty map.
//
// The file is mapped, not read: its pages come from the page cache as the
// scan reaches them, where a read would first fault in and zero as much
// fresh heap and then copy the file into it (on a big repository the
// index is megabytes and a call wants a handful of its entries). git
// replaces the index by renaming a new file over it, so the mapping stays
// the file that was opened.
func IndexBlobs(gitDir string, want map[string]bool) (map[string]string, error) {
	out := map[string]string{}
	name := filepath.Join(gitDir, "index")
	data, unmap, err := mapFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		// No mmap on this platform (or it failed): read the file.
		if data, err = os.ReadFile(name); errors.Is(err, os.ErrNotExist) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		unmap = func() {}
	}
	defer unmap()
	const hashLen = 20
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return nil, ErrIndexUnsupported
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, ErrIndexUnsupported
	}
	n := binary.BigEndian.Uint32(data[8:12])
	p := 12
	end := len(data) - hashLen
	var prev []byte // the previous name (version 4 names are relative to it)
	for i := uint32(0); i < n; i++ {
		start := p
		if p+62 > end {
			return nil, ErrIndexUnsupported
		}
		sha := data[p+40 : p+60]
		flags := binary.BigEndian.Uint16(data[p+60 : p+62])
		mode := binary.BigEndian.Uint32(data[p+24 : p+28])
		p += 62
		if flags&0x4000 != 0 { // extended flags (version 3+)
			if p+2 > end {
				return nil, ErrIndexUnsupported
			}
			p += 2
		}
		var name []byte
		if version == 4 {
			strip, m := offsetVarint(data[p:end])
			if m == 0 || strip > len(prev) {
				return nil, ErrIndexUnsupported
			}
			p += m
			z := bytes.IndexByte(data[p:end], 0)
			if z < 0 {
				return nil, ErrIndexUnsupported
			}
			// prev is a buffer of its own: the name is rebuilt in place.
			name = append(prev[:len(prev)-strip], data[p:p+z]...)
			p += z + 1
		} else {
			z := bytes.IndexByte(data[p:end], 0)
			if z < 0 {
				return nil, ErrIndexUnsupported
			}
			name = data[p : p+z]
			// Entries are padded with 1–8 NULs to a multiple of 8 bytes.
			p = start + ((p+z-start)+8)&^7
		}
		prev = name
		if mode&0o170000 == 0o040000 { // a sparse directory entry
			return nil, ErrIndexUnsupported
		}
		if (flags>>12)&3 == 0 && want[string(name)] {
			out[string(name)] = hex.EncodeToString(sha)
		}
	}
	// Extensions: a split index keeps its entries elsewhere.
	for p+8 <= end {
		sig := string(data[p : p+4])
		size := int(binary.BigEndian.Uint32(data[p+4 : p+8]))
		if sig == "link" || sig == "sdir" {
			return nil, ErrIndexUnsupported
		}
		p += 8 + size
	}
	return out, nil
}

// offsetVarint decodes git's offset varint (index v4 name prefixes).
func offsetVarint(b []byte) (int, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := int(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || i > 8 {
			return 0, 0
		}
		c = b[i]
		i++
		v = ((v + 1) << 7) + int(c&127)
	}
	return v, i
}
