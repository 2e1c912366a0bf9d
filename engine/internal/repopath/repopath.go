// Package repopath owns the one rule by which kontext turns a path a
// caller gives into the repository-relative path it looks up. Every
// surface reaches it through the engine — CLI arguments (after the CLI
// joins a relative argument to its working directory), `kontext api`
// and MCP request fields, the WASM engine and the edge worker — so a
// path is normalised here and nowhere else:
//
//   - backslashes become slashes;
//   - an absolute path inside the repository root (or one of its
//     aliases) loses the root; an absolute path elsewhere, or where the
//     engine has no disk root (WASM, edge), is refused;
//   - "." and empty segments go, leading "./" and "/" go, a trailing "/"
//     (a directory) stays;
//   - a path that climbs out with ".." is refused (ErrClimbs), as is one
//     that names no file.
package repopath

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// Error is a path the rule refuses; its message names the path and why.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// Root is where absolute paths may point: the repository root and other
// absolute spellings of it (aliases). A zero Root has no disk root:
// every absolute path is refused.
type Root struct {
	Dir     string
	Aliases []string
}

// name names the root in messages.
func (r Root) name() string {
	if r.Dir == "" {
		return "(the snapshot's root)"
	}
	return "(root " + strings.ReplaceAll(r.Dir, "\\", "/") + ")"
}

// Rel is p as a repository-relative path under root (see the package
// comment); the error is an *Error.
func Rel(p string, root Root) (string, error) {
	orig := p
	p = strings.ReplaceAll(p, "\\", "/")
	if IsAbs(p) {
		if root.Dir == "" {
			return "", &Error{"path " + quote(orig) + " is absolute and this engine has no disk root; pass a path relative to the repository root"}
		}
		rel, ok := "", false
		for _, r := range append([]string{root.Dir}, root.Aliases...) {
			if rel, ok = Within(p, r); ok {
				break
			}
		}
		if !ok {
			return "", &Error{"path " + quote(orig) + " is outside the repository " + root.name()}
		}
		if rel == "" {
			return "", &Error{"path " + quote(orig) + " is the repository root " + root.name() + ", not a file in it"}
		}
		p = rel
	}
	n, err := Clean(p)
	if errors.Is(err, ErrClimbs) {
		return "", &Error{"path " + quote(orig) + " escapes the repository " + root.name() + ": it climbs out with \"..\"; pass a path inside it"}
	}
	if err != nil {
		return "", &Error{err.Error()}
	}
	return n, nil
}

func quote(s string) string {
	q := strings.ReplaceAll(s, `\`, `\\`)
	return `"` + strings.ReplaceAll(q, `"`, `\"`) + `"`
}

// IsAbs reports an absolute path in slash form: "/x", "//host/x" and
// drive paths "C:/x".
func IsAbs(p string) bool {
	return strings.HasPrefix(p, "/") || (len(p) > 2 && p[1] == ':' && p[2] == '/' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z'))
}

// Within returns p relative to root when p lies inside root ("" for root
// itself); a trailing "/" (a directory) is kept.
func Within(p, root string) (string, bool) {
	root = strings.TrimRight(strings.ReplaceAll(root, "\\", "/"), "/")
	dir := strings.HasSuffix(p, "/")
	c := path.Clean(p)
	if c == root || (root == "" && c == "/") {
		return "", true
	}
	if rel, ok := strings.CutPrefix(c, root+"/"); ok {
		if dir {
			rel += "/"
		}
		return rel, true
	}
	return "", false
}

// ErrClimbs is Clean's error for a path that leaves the repository with
// "..".
var ErrClimbs = errors.New("climbs out of the repository")

// Clean is a relative path as entries.governing looks it up: cleaned, a
// trailing "/" kept, then Normalize'd.
func Clean(p string) (string, error) {
	dir := strings.HasSuffix(p, "/")
	clean := p
	if !alreadyClean(p) { // nearly always clean: no path.Clean
		clean = path.Clean(p)
	}
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", ErrClimbs
	}
	if dir && clean != "." {
		clean += "/"
	}
	return Normalize(clean)
}

// alreadyClean reports whether path.Clean(p) is p for a relative p: no
// empty, "." or ".." element.
func alreadyClean(p string) bool {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if n := i - start; n == 0 || n <= 2 && p[start] == '.' && p[i-1] == '.' {
			return false // an empty, "." or ".." element
		}
		start = i + 1
	}
	return true
}

// Normalize makes a path repo-relative without resolving "..": leading
// "./" and "/" are stripped, duplicate slashes and "." segments are
// dropped, a trailing "/" is kept (one), so a directory stays a
// directory. A ".." segment (escaping the repository), an empty result,
// a NUL byte or invalid UTF-8 is an error. A pattern's literal part is checked
// with it too.
func Normalize(p string) (string, error) {
	if !utf8.ValidString(p) {
		return "", fmt.Errorf("path %q is not valid UTF-8", p)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte, which no file name can hold; pass the path without it", p)
	}
	orig := p
	for {
		if q, ok := strings.CutPrefix(p, "./"); ok {
			p = q
		} else if q, ok := strings.CutPrefix(p, "/"); ok {
			p = q
		} else {
			break
		}
	}
	body, dir := strings.CutSuffix(p, "/")
	clean := true
	n := 0
	for seg := range strings.SplitSeq(body, "/") {
		switch seg {
		case "..":
			return "", fmt.Errorf("path %q escapes the repository", orig)
		case "", ".":
			clean = false
		default:
			n++
		}
	}
	if n == 0 {
		return "", fmt.Errorf("path %q names no file in the repository", orig)
	}
	if clean {
		return p, nil // the common case allocates nothing
	}
	var b strings.Builder
	b.Grow(len(p))
	for seg := range strings.SplitSeq(body, "/") {
		if seg == "" || seg == "." {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(seg)
	}
	if dir {
		b.WriteByte('/')
	}
	return b.String(), nil
}
