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

// ErrClimbs is CleanPath's error for a path that leaves the repository
// with "..".
var ErrClimbs = errors.New("climbs out of the repository")

// CleanPath is a repository-relative path as entries.governing looks it
// up: cleaned, a trailing "/" kept, normalised for matching.
func CleanPath(p string) (string, error) {
	dir := strings.HasSuffix(p, "/")
	clean := path.Clean(p)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", ErrClimbs
	}
	if dir && clean != "." {
		clean += "/"
	}
	return match.NormalizePath(clean)
}
