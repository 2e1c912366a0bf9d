package kb

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/match"
)

// The path overlay gives paths to entries whose files kontext must not
// edit (ADR logs kept by other tools, agent rule files). It is one
// committed TOML file in the storage directory:
//
//	version = 1
//
//	[paths]
//	"0007-use-postgres" = ["src/db/**"]              # by entry id
//	"docs/adr/0009-cache-invoices.md" = ["src/billing/cache/**"]  # or by file
//
// Its globs add to (never replace) the paths the file itself declares.

// OverlayFile is the overlay's name inside the storage directory.
const OverlayFile = "paths.toml"

// Diagnostic codes of the overlay.
const (
	CodeBadOverlay          = "bad_overlay"
	CodeOverlayUnknownEntry = "overlay_unknown_entry"
)

// Paths sources of an entry (paths_source).
const (
	PathsFromFile    = "file"
	PathsFromOverlay = "overlay"
	PathsFromBoth    = "both"
)

type overlayFile struct {
	Version *int                `toml:"version"`
	Paths   map[string][]string `toml:"paths"`
}

// Overlay is the parsed overlay: globs by key (an entry id or file).
type Overlay struct {
	Keys  []string // sorted
	Globs map[string][]string
	Lines map[string]int // the line of each key, for diagnostics
}

// ParseOverlay reads the overlay text of file. A file that is not valid
// is an error diagnostic and no overlay.
func ParseOverlay(file string, text []byte) (*Overlay, []entry.Diagnostic) {
	var of overlayFile
	bad := func(line int, format string, args ...any) (*Overlay, []entry.Diagnostic) {
		return nil, []entry.Diagnostic{{File: file, Line: line, Severity: "error", Code: CodeBadOverlay,
			Message: fmt.Sprintf(format, args...) + "; the overlay is ignored until it is fixed"}}
	}
	if err := config.DecodeTOML(text, &of); err != nil {
		var de *config.TOMLError
		switch {
		case !errors.As(err, &de):
			return bad(0, "%v", err)
		case len(de.Unknown) > 0:
			return bad(de.Unknown[0].Row, "unknown key %q (the overlay has version and a [paths] table of key = [globs])", strings.Join(de.Unknown[0].Key, "."))
		case de.Positioned:
			return bad(de.Row, "%s", de.Message)
		}
		return bad(0, "%v", err)
	}
	if of.Version != nil && *of.Version != 1 {
		return bad(lineOfKey(text, "version"), "unsupported version %d (this kontext reads version 1)", *of.Version)
	}
	o := &Overlay{Globs: map[string][]string{}, Lines: map[string]int{}}
	var diags []entry.Diagnostic
	for k, globs := range of.Paths {
		o.Keys = append(o.Keys, k)
		o.Lines[k] = lineOfKey(text, k)
		for _, g := range globs {
			if _, err := match.Compile(g); err != nil {
				diags = append(diags, entry.Diagnostic{File: file, Line: o.Lines[k], Severity: "warning", Code: entry.CodeBadGlob,
					Message: fmt.Sprintf("%s: pattern %q is invalid and never matches: %v", k, g, err)})
				continue
			}
			o.Globs[k] = append(o.Globs[k], g)
		}
	}
	sort.Strings(o.Keys)
	return o, diags
}

// lineOfKey finds the 1-based line where key is assigned (quoted or bare).
func lineOfKey(text []byte, key string) int {
	for i, line := range strings.Split(string(text), "\n") {
		t := strings.TrimSpace(line)
		for _, form := range []string{`"` + key + `"`, `'` + key + `'`, key} {
			if rest, ok := strings.CutPrefix(t, form); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
				return i + 1
			}
		}
	}
	return 0
}

// applyOverlay adds the overlay's globs to the entries it names and marks
// every entry's paths_source; a key naming no entry is a warning.
func applyOverlay(s *Snapshot, file string, o *Overlay) {
	for _, e := range s.entries {
		e.PathsSource = PathsFromFile
	}
	if o == nil {
		return
	}
	byFile := make(map[string]*entry.Entry, len(s.entries))
	for _, e := range s.entries {
		byFile[e.File] = e
	}
	for _, k := range o.Keys {
		e := s.ids()[k]
		if e == nil {
			e = byFile[strings.TrimPrefix(k, "./")]
		}
		if e == nil {
			s.Diagnostics = append(s.Diagnostics, entry.Diagnostic{File: file, Line: o.Lines[k], Severity: "warning", Code: CodeOverlayUnknownEntry,
				Message: fmt.Sprintf("%q names no entry (keys are entry ids or repository-relative files); its paths govern nothing", k)})
			continue
		}
		globs := o.Globs[k]
		if len(globs) == 0 {
			continue
		}
		own := e.Paths
		paths := append([]string{}, own...)
		for _, g := range globs {
			if !contains(paths, g) {
				paths = append(paths, g)
			}
		}
		e.FilePaths = append([]string{}, own...) // non-nil: OwnPaths must not answer the overlay's
		e.Paths = paths
		if len(own) > 0 {
			e.PathsSource = PathsFromBoth
		} else {
			e.PathsSource = PathsFromOverlay
		}
	}
}
