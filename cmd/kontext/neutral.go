package main

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Human output neutralises control characters: an entry's title, body or file name comes
// from the repository, and an ESC, OSC or BEL in it must not retitle, recolour or clear the
// reader's terminal. Every byte of human output passes through neutraliser; only the colour
// sequences kontext itself paints get through, and those carry a per-process random mark
// that no repository content can know.

// neutraliser rewrites a byte stream: C0 controls other than tab and newline, DEL and the C1
// controls become visible stand-ins (U+2400 control pictures, U+FFFD), as does invalid
// UTF-8. A sequence split across writes is held back until it is whole.
type neutraliser struct {
	mark    string // ESC + mark starts a colour sequence painted by kontext
	pending []byte
}

func newNeutraliser() *neutraliser {
	var b [12]byte
	rand.Read(b[:])
	return &neutraliser{mark: "\x1b\x00" + hex.EncodeToString(b[:])}
}

// feed returns the neutralised form of everything whole so far; final flushes the rest.
func (n *neutraliser) feed(p []byte, final bool) []byte {
	n.pending = append(n.pending, p...)
	in := n.pending
	var out []byte
	i := 0
	for i < len(in) {
		c := in[i]
		if c == 0x1b && n.mark != "" {
			rest := in[i:]
			if strings.HasPrefix(string(rest), n.mark) {
				out = append(out, 0x1b)
				i += len(n.mark)
				continue
			}
			if !final && len(rest) < len(n.mark) && strings.HasPrefix(n.mark, string(rest)) {
				break // maybe our mark, cut by the write boundary
			}
		}
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\t':
				out = append(out, c)
			case c < 0x20:
				out = utf8.AppendRune(out, rune(0x2400+int(c)))
			case c == 0x7f:
				out = utf8.AppendRune(out, 0x2421)
			default:
				out = append(out, c)
			}
			i++
			continue
		}
		if !final && !utf8.FullRune(in[i:]) {
			break
		}
		r, size := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError || r >= 0x80 && r <= 0x9f {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, in[i:i+size]...)
		}
		i += size
	}
	n.pending = append(n.pending[:0], in[i:]...)
	return out
}

// neutral is the neutralised form of one string (error lines on stderr).
func neutral(s string) string {
	return string((&neutraliser{}).feed([]byte(s), true)) // no mark: nothing painted passes
}
