// Package config owns kontext's committed configuration: the candidate
// files, the built-in defaults, strict TOML parsing (unknown keys are
// rejected with file:line) and the kinds → sources layout.
package config

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
)

// Candidates are the committed config files, in lookup order; the first
// one that exists wins.
func Candidates() []string { return []string{".kontext.toml", ".ai/kontext.toml"} }

// Defaults of the [index] and [brief] tables.
const (
	DefaultStorage     = ".ai"
	DefaultMaxCommits  = 5000
	DefaultBudgetLines = 300
)

// defaultDirs maps each kind to its directory below storage.
var defaultDirs = map[string]string{
	"decision":     "decisions",
	"convention":   "conventions",
	"learning":     "learnings",
	"incident":     "incidents",
	"architecture": "architecture",
}

// Kind is one kind's layout: where new entries are written and which
// read-only sources add to it.
type Kind struct {
	Name        string
	Dir         string
	Style       string
	ReviewAfter string
	Include     []Include
}

// Include is an extra read-only source of a kind.
type Include struct {
	Dir   string
	Style string
}

// Config is the resolved configuration.
type Config struct {
	Version     int
	Storage     string
	Kinds       map[string]*Kind // by canonical kind name
	MaxCommits  int
	BudgetLines int
	Path        string // the file it came from; "" for defaults
	// Diagnostics are warnings about keys that were ignored (local-only settings).
	Diagnostics []entry.Diagnostic
}

// CodeLocalOnlyKey: a committed config set a key that only local configuration may set (a
// model adapter or command, a trust key). A cloned repository must not choose what runs on
// the reader's machine, so the key is ignored with a warning and reads keep working.
const CodeLocalOnlyKey = "local_only_key"

// Defaults returns the built-in configuration.
func Defaults() *Config { return DefaultsAt(DefaultStorage) }

// DefaultsAt returns the built-in configuration with another storage dir.
func DefaultsAt(storage string) *Config {
	c := &Config{Version: 1, Storage: storage, Kinds: map[string]*Kind{}, MaxCommits: DefaultMaxCommits, BudgetLines: DefaultBudgetLines}
	for _, k := range entry.Kinds {
		c.Kinds[k] = &Kind{Name: k, Dir: path.Join(storage, defaultDirs[k]), Style: entry.StyleFrontmatter}
	}
	return c
}

// Sources lists every source directory in kind order: each kind's own dir
// first, then its includes.
func (c *Config) Sources() []entry.Source {
	var out []entry.Source
	for _, name := range entry.Kinds {
		k := c.Kinds[name]
		out = append(out, entry.Source{Kind: name, Dir: k.Dir, Style: k.Style, ReviewAfter: k.ReviewAfter})
		for _, inc := range k.Include {
			out = append(out, entry.Source{Kind: name, Dir: inc.Dir, Style: inc.Style, ReadOnly: true, ReviewAfter: k.ReviewAfter})
		}
	}
	return out
}

// Overlay is the repo-relative path of the committed path overlay.
func (c *Config) Overlay() string { return c.storageFile("paths.toml") }

// Ledger is the repo-relative path of the verification ledger.
func (c *Config) Ledger() string { return c.storageFile("confirmations.log") }

// storageFile is path.Join(c.Storage, name) for a file name, without
// path.Clean for a clean storage directory: answers ask for the overlay's
// and the ledger's paths per entry, and in WASM a function called that
// often is optimised by V8 while the first answer waits
// (docs/architecture.md, "V8's tiers").
func (c *Config) storageFile(name string) string {
	switch s := c.Storage; {
	case s == "" || s == ".":
		return name
	case entry.CleanRel(s):
		return s + "/" + name
	}
	return path.Join(c.Storage, name)
}

type fileConfig struct {
	Version *int                `toml:"version"`
	Storage *string             `toml:"storage"`
	Kinds   map[string]fileKind `toml:"kinds"`
	Index   struct {
		MaxCommits *int `toml:"max_commits"`
	} `toml:"index"`
	Brief struct {
		BudgetLines *int `toml:"budget_lines"`
	} `toml:"brief"`
	// Local-only settings: decoded only to be reported and ignored.
	LLM     any `toml:"llm"`
	Model   any `toml:"model"`
	Command any `toml:"command"`
	Trust   any `toml:"trust"`
	Verify  any `toml:"verify"`
}

type fileKind struct {
	Dir         *string       `toml:"dir"`
	Style       *string       `toml:"style"`
	ReviewAfter *string       `toml:"review_after"`
	Include     []fileInclude `toml:"include"`
}

type fileInclude struct {
	Dir   string `toml:"dir"`
	Style string `toml:"style"`
}

// Parse reads a committed config file. file is its repo-relative path,
// used in messages. Every problem is an invalid_input error naming the key
// and file:line.
func Parse(file string, text []byte) (*Config, error) {
	return ParseAt(file, text, DefaultStorage)
}

// ParseAt is Parse with another default storage dir, used when the text
// does not set storage.
func ParseAt(file string, text []byte, storage string) (*Config, error) {
	var fc fileConfig
	if err := DecodeTOML(text, &fc); err != nil {
		return nil, tomlError(file, err)
	}
	c := DefaultsAt(storage)
	c.Path = file
	for _, k := range []struct {
		key, section string
		set          bool
	}{{"llm", "llm", fc.LLM != nil}, {"model", "", fc.Model != nil}, {"command", "", fc.Command != nil}, {"trust", "trust", fc.Trust != nil}, {"verify", "verify", fc.Verify != nil}} {
		if !k.set {
			continue
		}
		line := lineOf(text, k.section, "")
		if k.section == "" {
			line = lineOf(text, "", k.key)
		} else if line == 1 && !strings.HasPrefix(strings.TrimSpace(string(text)), "["+k.section) {
			line = lineOf(text, "", k.key) // a dotted or inline form: llm.adapter = …, llm = {…}
		}
		msg := fmt.Sprintf("%q is ignored in committed config: models, commands and trust are set only in local configuration (<git-dir>/kontext/config.toml or the user config), so a cloned repository cannot make your machine run anything", k.key)
		if k.key == "verify" {
			msg = "\"verify\" is ignored in committed config: what a verify command is given ([verify] pass_env) is set only in local configuration (<git-dir>/kontext/config.toml or the user config), so a cloned repository cannot choose what your machine passes to a command"
		}
		c.Diagnostics = append(c.Diagnostics, entry.Diagnostic{File: file, Line: line, Severity: "warning", Code: CodeLocalOnlyKey, Message: msg})
	}
	bad := func(section, key, format string, args ...any) error {
		return apierr.Invalid("%s:%d: %s: %s; fix the value or remove the key", file, lineOf(text, section, key), strings.TrimPrefix(section+"."+key, "."), fmt.Sprintf(format, args...))
	}
	if fc.Version != nil && *fc.Version != 1 {
		return nil, bad("", "version", "unsupported version %d (this kontext reads version 1)", *fc.Version)
	}
	if fc.Storage != nil {
		s, err := CleanDir(*fc.Storage)
		if err == nil && s == "" {
			err = fmt.Errorf("%q is the repository root; name a directory in it, such as .ai", *fc.Storage)
		}
		if err != nil {
			return nil, bad("", "storage", "%v", err)
		}
		c.Storage = s
		for _, k := range entry.Kinds {
			c.Kinds[k].Dir = path.Join(s, defaultDirs[k])
		}
	}
	names := make([]string, 0, len(fc.Kinds))
	for n := range fc.Kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, raw := range names {
		fk := fc.Kinds[raw]
		section := "kinds." + raw
		name, ok := entry.NormalizeKind(raw)
		if !ok {
			return nil, apierr.Invalid("%s:%d: unknown kind %q in [%s]; kinds are %s (alias adr)", file, lineOf(text, section, ""), raw, section, strings.Join(entry.Kinds, ", "))
		}
		k := c.Kinds[name]
		if fk.Dir != nil {
			d, err := CleanDir(*fk.Dir)
			if err != nil {
				return nil, bad(section, "dir", "%v", err)
			}
			k.Dir = d
		}
		if fk.Style != nil {
			if !validStyle(*fk.Style) {
				return nil, bad(section, "style", "unknown style %q (frontmatter, adr, cursor, copilot, agents, claude)", *fk.Style)
			}
			k.Style = *fk.Style
		}
		if fk.ReviewAfter != nil {
			if _, err := entry.AddReviewAfter("2000-01-01", *fk.ReviewAfter); err != nil {
				return nil, bad(section, "review_after", "%q is not a duration like 180d, 2w, 6m or 1y", *fk.ReviewAfter)
			}
			k.ReviewAfter = *fk.ReviewAfter
		}
		for i, inc := range fk.Include {
			d, err := CleanDir(inc.Dir)
			if err != nil || inc.Dir == "" {
				return nil, apierr.Invalid("%s:%d: %s.include[%d].dir: %q is not a directory inside the repository", file, lineOf(text, section+".include", "dir"), section, i, inc.Dir)
			}
			st := inc.Style
			if st == "" {
				st = entry.StyleFrontmatter
			}
			if !validStyle(st) {
				return nil, apierr.Invalid("%s:%d: %s.include[%d].style: unknown style %q (frontmatter, adr, cursor, copilot, agents, claude)", file, lineOf(text, section+".include", "style"), section, i, inc.Style)
			}
			k.Include = append(k.Include, Include{Dir: d, Style: st})
		}
	}
	if fc.Index.MaxCommits != nil {
		if *fc.Index.MaxCommits < 1 || *fc.Index.MaxCommits > 10_000_000 {
			return nil, bad("index", "max_commits", "must be between 1 and 10000000")
		}
		c.MaxCommits = *fc.Index.MaxCommits
	}
	if fc.Brief.BudgetLines != nil {
		if *fc.Brief.BudgetLines < 1 || *fc.Brief.BudgetLines > 1_000_000 {
			return nil, bad("brief", "budget_lines", "must be between 1 and 1000000")
		}
		c.BudgetLines = *fc.Brief.BudgetLines
	}
	seen := map[string]string{}
	for _, s := range c.Sources() {
		who := s.Kind
		if s.ReadOnly {
			who += " include"
		}
		if prev, ok := seen[s.Dir]; ok {
			return nil, apierr.Invalid("%s: two sources share the directory %q (%s and %s); give each source its own directory", file, s.Dir, prev, who)
		}
		seen[s.Dir] = who
	}
	return c, nil
}

func validStyle(s string) bool {
	switch s {
	case entry.StyleFrontmatter, entry.StyleADR, entry.StyleCursor, entry.StyleCopilot, entry.StyleAgents, entry.StyleClaude:
		return true
	}
	return false
}

// CleanDir normalises a repo-relative directory ("./docs/adr/" → "docs/adr",
// "." → "") and rejects absolute paths, paths that leave the repository,
// git's own directory (.git) and a NUL byte.
func CleanDir(d string) (string, error) {
	if strings.IndexByte(d, 0) >= 0 {
		return "", fmt.Errorf("%q contains a NUL byte, which no directory name can hold", d)
	}
	d = strings.TrimSpace(strings.ReplaceAll(d, "\\", "/"))
	if strings.HasPrefix(d, "/") || (len(d) > 1 && d[1] == ':') {
		return "", fmt.Errorf("%q is absolute; use a path relative to the repository root", d)
	}
	c := path.Clean("/" + d)[1:]
	for _, seg := range strings.Split(d, "/") {
		if seg == ".." {
			return "", fmt.Errorf("%q leaves the repository", d)
		}
	}
	if first, _, _ := strings.Cut(c, "/"); len(first) == 4 && first[0] == '.' && first[1]|0x20 == 'g' && first[2]|0x20 == 'i' && first[3]|0x20 == 't' {
		return "", fmt.Errorf("%q is inside .git, git's own directory, where nothing is committed; use a directory of the working tree, such as .ai", d)
	}
	return c, nil
}

func tomlError(file string, err error) error {
	var de *TOMLError
	switch {
	case !errors.As(err, &de):
		return apierr.Invalid("%s: %v", file, err)
	case len(de.Unknown) > 0:
		var parts []string
		for _, k := range de.Unknown {
			parts = append(parts, fmt.Sprintf("%s:%d: unknown key %q", file, k.Row, strings.Join(k.Key, ".")))
		}
		return apierr.Invalid("%s; see the configuration keys in the README", strings.Join(parts, "; "))
	case de.Positioned:
		return apierr.Invalid("%s:%d: %s", file, de.Row, de.Message)
	}
	return apierr.Invalid("%s: %v", file, err)
}

// lineOf finds the 1-based line of key inside [section] (or of the section
// header itself when key is ""); 1 when it cannot be found.
func lineOf(text []byte, section, key string) int {
	cur := ""
	for i, line := range strings.Split(string(text), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			cur = strings.Trim(strings.TrimSpace(strings.Trim(t, "[]")), " ")
			if key == "" && cur == section {
				return i + 1
			}
			continue
		}
		if key != "" && cur == section {
			if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
				return i + 1
			}
		}
	}
	return 1
}
