package git

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// prefixLister is what a fallback storage offers for abbreviated ids
// (go-git's filesystem storage has it).
type prefixLister interface {
	HashesWithPrefix(prefix []byte) ([]plumbing.Hash, error)
}

// HashesWithPrefix returns every object id that starts with the hex
// digits short (at least one, lower case), sorted and without duplicates.
// Packed ids are found by binary search in the memory-mapped .idx files
// (go-git's lookup builds a map of every packed offset first: on a large
// history that is most of the time of resolving one short sha), loose ids
// by listing the one fan-out directory, in the object directory and its
// alternates. Only an Objects without a directory asks its fallback.
func (o *Objects) HashesWithPrefix(short string) ([]plumbing.Hash, error) {
	if short == "" || len(short) > 40 || !isLowerHex(short) {
		return nil, errors.New("an abbreviated object id is 1 to 40 lower-case hex digits")
	}
	var out []plumbing.Hash
	if o.dir == "" {
		if pl, ok := o.fallback.(prefixLister); ok {
			// go-git takes whole bytes: ask for the even part, filter here.
			raw, _ := hex.DecodeString(short[:len(short)/2*2])
			hs, err := pl.HashesWithPrefix(raw)
			if err != nil {
				return nil, err
			}
			for _, h := range hs {
				if strings.HasPrefix(h.String(), short) {
					out = append(out, h)
				}
			}
		}
	} else {
		o.mu.Lock()
		var dirs []string
		if !o.closed {
			if o.packs == nil {
				o.open()
			} else {
				o.packs.refresh(o.dirs)
			}
			for _, p := range o.packs.packs {
				out = p.withPrefix(short, out)
			}
			dirs = o.dirs
		} else {
			dirs = objectDirs(o.dir) // closed: the loose objects are still there
		}
		o.mu.Unlock()
		for _, dir := range dirs {
			loose, err := looseWithPrefix(dir, short)
			if err != nil {
				return nil, err
			}
			out = append(out, loose...)
		}
	}
	slices.SortFunc(out, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(out), nil
}

// withPrefix appends the ids of p that start with short: the fan-out
// table bounds the first byte, a binary search finds the first id not
// below the prefix, and the matches follow it in order.
func (p *pack) withPrefix(short string, out []plumbing.Hash) []plumbing.Hash {
	var low plumbing.Hash // the smallest id with the prefix
	for i := 0; i < len(short); i++ {
		v := nibble(short[i])
		if i%2 == 0 {
			low[i/2] = v << 4
		} else {
			low[i/2] |= v
		}
	}
	lo := 0
	if low[0] > 0 {
		lo = int(binary.BigEndian.Uint32(p.fanout[(int(low[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(p.fanout[int(low[0])*4:]))
	if len(short) == 1 {
		// One digit spans sixteen first bytes.
		hi = int(binary.BigEndian.Uint32(p.fanout[int(low[0]|0x0f)*4:]))
	}
	end := hi
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(p.names[m*20:m*20+20], low[:]) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo; i < end && i < p.n; i++ {
		var h plumbing.Hash
		copy(h[:], p.names[i*20:i*20+20])
		if !hasHexPrefix(h, short) {
			break
		}
		out = append(out, h)
	}
	return out
}

// looseWithPrefix lists the loose objects starting with short (at least
// two digits name the fan-out directory; one digit lists sixteen).
func looseWithPrefix(objects, short string) ([]plumbing.Hash, error) {
	dirs := []string{short}
	if len(short) == 1 {
		dirs = nil
		for _, c := range "0123456789abcdef" {
			dirs = append(dirs, short+string(c))
		}
	} else {
		dirs = []string{short[:2]}
	}
	var out []plumbing.Hash
	for _, d := range dirs {
		ents, err := os.ReadDir(filepath.Join(objects, d))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			name := d + e.Name()
			if len(name) != 40 || !strings.HasPrefix(name, short) || !isLowerHex(name) {
				continue
			}
			out = append(out, plumbing.NewHash(name))
		}
	}
	return out, nil
}

func hasHexPrefix(h plumbing.Hash, short string) bool {
	for i := 0; i < len(short); i++ {
		b := h[i/2]
		if i%2 == 0 {
			b >>= 4
		}
		if b&0x0f != nibble(short[i]) {
			return false
		}
	}
	return true
}

// nibble is the value of a hex digit already checked by isLowerHex.
func nibble(c byte) byte { v, _ := unhex(c); return v }

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
