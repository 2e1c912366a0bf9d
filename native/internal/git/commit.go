package git

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// NoTime is Commit.Time when the committer header is missing or has no
// readable time: the unix time of the zero time.Time (time.Time{}.Unix()),
// so that time.Unix(NoTime, 0).UTC() is the zero time.
const NoTime int64 = -62135596800

// Commit is the part of a commit object kontext reads.
type Commit struct {
	Tree    plumbing.Hash
	Parents []plumbing.Hash // in commit order, first parent first
	// Author is the author's name, without the email.
	Author string
	// Time is the committer time in unix seconds (NoTime when missing).
	Time int64
	// Subject is the first line of the message (a trailing "\r" removed).
	Subject string
}

// ParseCommit parses a raw commit into c, reusing c.Parents' storage.
// "tree" must come first, then contiguous "parent" lines, then "author"
// and "committer" at their canonical positions; headers out of place (and
// continuation lines such as a signature's) are ignored, like git does.
func ParseCommit(data []byte, c *Commit) error {
	*c = Commit{Parents: c.Parents[:0], Time: NoTime}
	const (
		wantTree = iota
		wantParent
		wantAuthor
		wantCommitter
		rest
	)
	state := wantTree
	for {
		var line []byte
		line, data = cutLine(data)
		if len(line) == 0 {
			if state == wantTree {
				return fmt.Errorf("%w: missing tree header", ErrMalformedCommit)
			}
			break // end of the headers (or of the object): the message follows
		}
		key, val, _ := bytes.Cut(line, []byte{' '})
		switch state {
		case wantTree:
			if string(key) != "tree" {
				return fmt.Errorf("%w: tree header must be first", ErrMalformedCommit)
			}
			h, ok := ParseHash(val)
			if !ok {
				return fmt.Errorf("%w: bad tree hash", ErrMalformedCommit)
			}
			c.Tree = h
			state = wantParent
			continue
		case wantParent:
			if string(key) == "parent" {
				h, ok := ParseHash(val)
				if !ok {
					return fmt.Errorf("%w: bad parent hash", ErrMalformedCommit)
				}
				c.Parents = append(c.Parents, h)
				continue
			}
			state = wantAuthor
			fallthrough
		case wantAuthor:
			if string(key) == "author" {
				c.Author = signatureName(val)
				state = wantCommitter
				continue
			}
			state = wantCommitter
			fallthrough
		case wantCommitter:
			if string(key) == "committer" {
				if t, ok := signatureTime(val); ok {
					c.Time = t
				}
			}
			state = rest
		}
		if data == nil {
			break
		}
	}
	subject, _ := cutLine(data)
	c.Subject = string(bytes.TrimRight(subject, "\r"))
	return nil
}

// cutLine splits data at its first "\n" into the line before it and the
// rest; rest is nil when there is no "\n".
func cutLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:]
	}
	return data, nil
}

// signatureName returns the name of "Name <email> 1700000000 +0100".
func signatureName(sig []byte) string {
	if i := bytes.IndexByte(sig, '<'); i >= 0 {
		sig = sig[:i]
	}
	return string(bytes.TrimSpace(sig))
}

// signatureTime parses the unix time of "Name <email> 1700000000 +0100":
// the number after the last ">".
func signatureTime(sig []byte) (int64, bool) {
	i := bytes.LastIndexByte(sig, '>')
	if i < 0 {
		return 0, false
	}
	sig = bytes.TrimLeft(sig[i+1:], " ")
	if sp := bytes.IndexByte(sig, ' '); sp >= 0 {
		sig = sig[:sp]
	}
	ts, err := strconv.ParseInt(string(sig), 10, 64)
	if err != nil {
		return 0, false
	}
	return ts, true
}

// ParseTagTarget returns the object an annotated tag points at; the
// "object", "type" and "tag" headers must come first, in that order.
func ParseTagTarget(data []byte) (plumbing.Hash, error) {
	var lines [3][]byte
	n := 0
	for n < 3 && len(data) > 0 {
		var line []byte
		line, data = cutLine(data)
		if len(line) == 0 {
			break
		}
		lines[n] = line
		n++
	}
	if n == 0 {
		return plumbing.ZeroHash, fmt.Errorf("%w: missing object header", ErrMalformedTag)
	}
	key, val, _ := bytes.Cut(lines[0], []byte{' '})
	if string(key) != "object" {
		return plumbing.ZeroHash, fmt.Errorf("%w: object header must be first", ErrMalformedTag)
	}
	target, ok := ParseHash(val)
	if !ok {
		return plumbing.ZeroHash, fmt.Errorf("%w: bad object hash", ErrMalformedTag)
	}
	if n == 1 {
		if data == nil {
			return target, nil // the object ended after the object header
		}
		return plumbing.ZeroHash, fmt.Errorf("%w: missing type header", ErrMalformedTag)
	}
	if key, val, _ = bytes.Cut(lines[1], []byte{' '}); string(key) != "type" {
		return plumbing.ZeroHash, fmt.Errorf("%w: type header must follow object", ErrMalformedTag)
	}
	if _, err := plumbing.ParseObjectType(string(val)); err != nil {
		return plumbing.ZeroHash, err
	}
	if n == 2 {
		if data == nil {
			return target, nil
		}
		return plumbing.ZeroHash, fmt.Errorf("%w: missing tag header", ErrMalformedTag)
	}
	if key, _, _ = bytes.Cut(lines[2], []byte{' '}); string(key) != "tag" {
		return plumbing.ZeroHash, fmt.Errorf("%w: tag header must follow type", ErrMalformedTag)
	}
	return target, nil
}

// ParseHash parses a full hex object id (without allocating, unlike
// plumbing.NewHash).
func ParseHash[S ~string | ~[]byte](b S) (plumbing.Hash, bool) {
	var h plumbing.Hash
	if len(b) != 2*len(h) {
		return h, false
	}
	for i := range h {
		hi, ok1 := unhex(b[2*i])
		lo, ok2 := unhex(b[2*i+1])
		if !ok1 || !ok2 {
			return plumbing.ZeroHash, false
		}
		h[i] = hi<<4 | lo
	}
	return h, true
}

// HashString is h in hex, like h.String() in one allocation instead of
// two: a history walk makes one per commit and parent.
func HashString(h plumbing.Hash) string {
	const digits = "0123456789abcdef"
	var b [2 * len(h)]byte
	for i, c := range h {
		b[2*i], b[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(b[:])
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
