package sidecar

import (
	"errors"
	"path"
	"strings"

	"github.com/kontext/kontext/engine/internal/match"
)

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

// alreadyClean reports whether path.Clean(p) is p for a relative p: no empty,
// "." or ".." element. Not inlined: in WASM its loop would be charged at
// CleanPath's size per byte (docs/architecture.md, "V8's tiers"). No
// import of the entry package's check: this package loads before the
// early answers, which must run before the parsers initialise.
//
//go:noinline
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

// ErrClimbs is CleanPath's error for a path that leaves the repository
// with "..".
var ErrClimbs = errors.New("climbs out of the repository")

// CleanPath is a repository-relative path as entries.governing looks it
// up: cleaned, a trailing "/" kept, normalised for matching.
func CleanPath(p string) (string, error) {
	dir := strings.HasSuffix(p, "/")
	clean := p
	if !alreadyClean(p) { // nearly always clean: no path.Clean, a large function V8 would recompile
		clean = path.Clean(p)
	}
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", ErrClimbs
	}
	if dir && clean != "." {
		clean += "/"
	}
	return match.NormalizePath(clean)
}
