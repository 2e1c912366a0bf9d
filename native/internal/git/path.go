package git

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// validTreePath rejects paths go-git's tree lookups reject: control
// characters, empty paths, volume names, "." and ".." components and
// components git could take for ".git" (on any filesystem).
func validTreePath(p string) error {
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return fmt.Errorf("%w %q: contains control character", ErrInvalidPath, p)
		}
	}
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '\\' || r == '/' })
	if len(parts) == 0 || filepath.VolumeName(p) != "" {
		return fmt.Errorf("%w: %q", ErrInvalidPath, p)
	}
	for _, part := range parts {
		if part == "." || part == ".." {
			return fmt.Errorf("%w %q: cannot use %q", ErrInvalidPath, p, part)
		}
		if isDotGitName(part) || isHFSDotGit(part) || isNTFSDotGit(part) {
			return fmt.Errorf("%w component: %q", ErrInvalidPath, p)
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

// hfsIgnored reports the code points HFS+ ignores in file names (a switch,
// not a map: a package-level map is built at every start of the CLI).
func hfsIgnored(r rune) bool {
	switch r {
	case 0x200c, 0x200d, 0x200e, 0x200f,
		0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f,
		0xfeff:
		return true
	}
	return false
}

// isHFSDotGit reports whether part is ".git" on HFS+ (case-insensitive,
// ignoring the code points HFS+ ignores).
func isHFSDotGit(part string) bool {
	runes := []rune(part)
	i := 0
	skip := func() {
		for i < len(runes) && hfsIgnored(runes[i]) {
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
