package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/kb"
	"github.com/kontext/kontext/engine/internal/lint"
)

// What each coding agent loads. clientTable is the one statement of the
// clients' loading rules, each checked against its documentation page on
// the date given (docs/agents.md repeats it); clientLoad applies it to the
// entries and the governing index every read shares — no second parser or
// matcher.

// Load values: how a client brings an entry into its context.
const (
	LoadAlways         = "always"          // at start, whatever the path
	LoadAuto           = "auto"            // because the path matches its scope
	LoadAgentRequested = "agent-requested" // the agent decides from its description
	LoadManual         = "manual"          // only when the user mentions it
	LoadOnDemand       = "on-demand"       // when the agent reads files below its directory
	LoadCut            = "cut"             // past the client's byte budget (bytes_loaded: what still loads)
	LoadNotLoaded      = "not-loaded"      // governs the path, and the client never reads it
)

// ClientRule is one client's loading rules as documented.
type ClientRule struct {
	Name  string // the client input's value
	Reads string // what it loads, in the words of its documentation
	Doc   string // the documentation page
	Read  string // the date the page was read
}

// codexMaxBytes is Codex's project_doc_max_bytes default: the chain stops
// growing once it reaches it.
const codexMaxBytes = 32 * 1024

// clientTable: the clients' loading rules (the one table; docs/agents.md
// repeats it).
var clientTable = []ClientRule{
	{"codex", "One chain per run, from the project root down to the start directory: in each directory AGENTS.override.md, else AGENTS.md, else the fallback names of project_doc_fallback_filenames (user configuration: none assumed); at most one file per directory, root first, empty files skipped; it stops adding files once the chain reaches project_doc_max_bytes (32 KiB): the file that crosses it is truncated, later ones are not loaded. ~/.codex is assumed absent.",
		"https://developers.openai.com/codex/guides/agents-md", "2026-12-04"},
	{"cursor", ".cursor/rules/*.mdc: alwaysApply: true always; globs auto-attached when a matching file is in context; a description without globs is agent-requested; neither is manual (@-mention); a nested <d>/.cursor/rules applies to files in <d> only. AGENTS.md at the root always, nested AGENTS.md for files in its directory; legacy .cursorrules always. The start directory does not matter (the workspace is the repository).",
		"https://docs.cursor.com/context/rules", "2026-12-04"},
	{"copilot", "The coding agent (and chat): .github/copilot-instructions.md always; .github/instructions/*.instructions.md when applyTo matches, unless excludeAgent names \"coding-agent\" (or \"cloud-agent\"); the nearest AGENTS.md to the file wins; a root CLAUDE.md or GEMINI.md. ~/.copilot is assumed absent.",
		"https://docs.github.com/en/copilot/how-tos/copilot-on-github/customize-copilot/add-custom-instructions/add-repository-instructions", "2026-12-04"},
	{"copilot-review", "Copilot code review: .github/copilot-instructions.md always; .github/instructions/*.instructions.md when applyTo matches, unless excludeAgent: \"code-review\". It reads no AGENTS.md, CLAUDE.md or GEMINI.md.",
		"https://docs.github.com/en/copilot/how-tos/copilot-on-github/customize-copilot/add-custom-instructions/add-repository-instructions", "2026-12-04"},
	{"claude", "CLAUDE.md and .claude/CLAUDE.md in the start directory and each directory above it, at launch; those below it on demand, when Claude reads files in their subtree; .claude/rules/**/*.md with paths: when a matching file is read, without paths: always; @path imports load with the file that imports them. ~/.claude and CLAUDE.local.md (personal) are assumed absent.",
		"https://docs.anthropic.com/en/docs/claude-code/memory", "2026-12-04"},
	{"gemini", "GEMINI.md — or the names .gemini/settings.json context.fileName gives — in the start directory and its parents, at start; in directories below it just in time, when a tool reads files there. ~/.gemini is assumed absent.",
		"https://geminicli.com/docs/cli/gemini-md", "2026-12-04"},
}

// GeminiSettings is the committed Gemini CLI settings file whose
// context.fileName names the context files; a bundle carries it (it is
// not a knowledge file) so that the WASM engine answers as the native one.
const GeminiSettings = ".gemini/settings.json"

// maxSettingsBytes is the largest settings file read.
const maxSettingsBytes = 1 << 20

// ClientRules is the clients' loading rules, in the table's order.
func ClientRules() []ClientRule { return append([]ClientRule(nil), clientTable...) }

func clientRuleOf(name string) (ClientRule, bool) {
	for _, c := range clientTable {
		if c.Name == name {
			return c, true
		}
	}
	return ClientRule{}, false
}

// clientNames lists the clients for an error message.
func clientNames() string {
	names := make([]string, len(clientTable))
	for i, c := range clientTable {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// ClientLoaded is one entry as a client loads it.
type ClientLoaded struct {
	Entry *entry.Entry
	Owner int // the entry's index in the snapshot
	// Hit is the entry's index in the governing hits, -1 when it does not
	// govern the paths (a Codex chain file of the start directory).
	Hit    int
	Load   string
	Reason string
	// Why says, for a not-loaded file, which of the client's own rules
	// leaves it out when a rules.lint finding depends on it
	// (lint.WhyShadowed, lint.WhyExcluded); "" otherwise. Reason is the
	// words for it.
	Why string
	// Bytes is the file's size; BytesLoaded what of it enters the context
	// (always, auto, on-demand: all of it; cut: the part before the
	// budget; agent-requested, manual, not-loaded: 0).
	Bytes, BytesLoaded int
	group, depth       int
}

// ClientLoads is a client's answer for paths.
type ClientLoads struct {
	Rule    ClientRule
	Cwd     string
	Entries []ClientLoaded // in load order
	Notes   []string
}

// normClient checks the client and cwd inputs; cwd is made
// repository-relative ("" is the root).
func (e *Engine) normClient(client, cwd string) (ClientRule, string, error) {
	rule, ok := clientRuleOf(client)
	if !ok {
		return ClientRule{}, "", jsonin.Errorf("client", "must be one of %s, got %q", clientNames(), client)
	}
	if cwd == "" || cwd == "." || cwd == "./" {
		return rule, "", nil
	}
	ps, err := e.normPaths("cwd", []string{cwd})
	if err != nil {
		return ClientRule{}, "", err
	}
	c := strings.TrimSuffix(ps[0], "/")
	if c == "." {
		c = ""
	}
	return rule, c, nil
}

// ClientLoad answers which entries client puts in its context for paths
// when started in cwd, in the order it loads them (lint and context.cost
// call it too). paths and cwd are repository-relative.
func (e *Engine) ClientLoad(st *State, client, cwd string, paths []string) (*ClientLoads, error) {
	rule, cwd, err := e.normClient(client, cwd)
	if err != nil {
		return nil, err
	}
	hits := governingHits(st.Snap.Governing().Lookup(paths), 0, nil,
		func(o int) (int, string) { en := st.Snap.Entry(o); return kb.KindRank(en.Kind), en.ID })
	return e.clientLoad(st, rule, cwd, paths, hits), nil
}

// clientLoad applies rule to the governing hits of paths and to the agent
// files the client reads wherever the path is.
func (e *Engine) clientLoad(st *State, rule ClientRule, cwd string, paths []string, hits []governingHit) *ClientLoads {
	out := &ClientLoads{Rule: rule, Cwd: cwd, Notes: clientNotes(rule.Name)}
	var names map[string]bool // gemini's context file names
	if rule.Name == "gemini" {
		var notes []string
		names, notes = e.geminiNames()
		out.Notes = append(out.Notes, notes...)
	}
	hitOf := make(map[int]int, len(hits))
	for i, h := range hits {
		hitOf[h.Owner] = i
	}
	// The candidates: the governing hits, and every agent file (found by
	// its id, without decoding the other entries).
	cands := make([]int, 0, len(hits))
	for _, h := range hits {
		cands = append(cands, h.Owner)
	}
	for i, n := 0, st.Snap.Len(); i < n; i++ {
		if _, ok := hitOf[i]; !ok && agentFileID(st.Snap.IDAt(i), names) {
			cands = append(cands, i)
		}
	}
	c := &classifier{rule: rule.Name, cwd: cwd, paths: paths, names: names, size: func(f string) int {
		fi, err := e.FS().Stat(f)
		if err != nil {
			return 0
		}
		return int(fi.Size())
	}}
	var chain []ClientLoaded // codex: the chain's files
	for _, o := range cands {
		en := st.Snap.Entry(o)
		h, governs := hitOf[o]
		if !governs {
			h = -1
		}
		l := ClientLoaded{Entry: en, Owner: o, Hit: h, Bytes: len(en.Markdown)}
		if !c.classify(&l, st, hits) {
			continue
		}
		if l.Load == "chain" {
			chain = append(chain, l)
			continue
		}
		out.Entries = append(out.Entries, l)
	}
	out.Entries = append(out.Entries, codexChain(chain)...)
	if c.imports() {
		out.Entries, out.Notes = withImports(st, out.Entries, out.Notes)
	}
	for i := range out.Entries {
		l := &out.Entries[i]
		switch l.Load {
		case LoadAlways, LoadAuto, LoadOnDemand:
			l.BytesLoaded = l.Bytes
		}
		l.group = loadGroup(l.Load)
	}
	sort.SliceStable(out.Entries, func(i, j int) bool {
		a, b := out.Entries[i], out.Entries[j]
		if a.group != b.group {
			return a.group < b.group
		}
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		return a.Entry.File < b.Entry.File
	})
	return out
}

// withImports adds what the loaded entries import (@path): Claude Code
// and Gemini CLI load an imported file with the file that imports it. An
// entry's links already list what it imports through the entries it
// imports (engine/internal/kb, bounded depth), so one pass suffices.
func withImports(st *State, ls []ClientLoaded, notes []string) ([]ClientLoaded, []string) {
	at := make(map[string]int, len(ls))
	for i, l := range ls {
		at[l.Entry.ID] = i
	}
	for i, n := 0, len(ls); i < n; i++ {
		by := ls[i]
		switch by.Load {
		case LoadAlways, LoadAuto, LoadOnDemand:
		default:
			continue
		}
		for _, ln := range by.Entry.Links {
			if ln.Type != entry.LinkImports {
				continue
			}
			reason := "imported by " + by.Entry.File + " (" + ln.Text + ")"
			if j, ok := at[ln.Target]; ok {
				if t := &ls[j]; loadGroup(t.Load) > loadGroup(by.Load) {
					t.Load, t.Reason, t.depth = by.Load, reason, by.depth
				}
				continue
			}
			en, ok := st.Snap.ByID(ln.Target)
			if !ok {
				if note := by.Entry.File + " imports " + ln.Target + ", which is not a knowledge file kontext reads: its bytes are not counted"; !slices.Contains(notes, note) {
					notes = append(notes, note)
				}
				continue
			}
			at[en.ID] = len(ls)
			ls = append(ls, ClientLoaded{Entry: en, Owner: -1, Hit: -1, Load: by.Load, Reason: reason, Bytes: len(en.Markdown), depth: by.depth})
		}
	}
	return ls, notes
}

// loadGroup orders the loads: what the client loads at start, then by the
// path, then on demand, then what the agent or the user must ask for, and
// last what it never loads.
func loadGroup(load string) int {
	switch load {
	case LoadAlways, LoadCut:
		return 0
	case LoadAuto:
		return 1
	case LoadOnDemand:
		return 2
	case LoadAgentRequested:
		return 3
	case LoadManual:
		return 4
	}
	return 5
}

// clientNotes are what every answer of a client assumes.
func clientNotes(client string) []string {
	switch client {
	case "codex":
		return []string{"~/.codex (AGENTS.md, AGENTS.override.md, config.toml) is assumed absent: no global instructions, no project_doc_fallback_filenames, project_doc_max_bytes 32768"}
	case "cursor":
		return []string{"User Rules (Cursor settings) are assumed empty"}
	case "copilot", "copilot-review":
		return []string{"~/.copilot and organisation instructions are assumed absent"}
	case "claude":
		return []string{"~/.claude (CLAUDE.md, rules), managed policy files and CLAUDE.local.md are assumed absent"}
	case "gemini":
		return []string{"~/.gemini (GEMINI.md, settings.json) is assumed absent"}
	}
	return nil
}

// agentFileID reports the ids of agent files a client may load wherever
// the path is: AGENTS.md and its kin, Cursor rules, Copilot instructions,
// Claude files, and gemini's context file names.
func agentFileID(id string, names map[string]bool) bool {
	lower := strings.ToLower(id)
	base := lower[strings.LastIndexByte(lower, '/')+1:]
	switch {
	case entry.AgentsName(base + ".md"), base == "claude.local", names[base+".md"], names[base]:
		return true
	case lower == ".cursorrules", strings.HasPrefix(lower, ".cursor/"), strings.Contains(lower, "/.cursor/"):
		return true
	case strings.HasPrefix(lower, ".github/"), strings.HasPrefix(lower, ".claude/"), strings.Contains(lower, "/.claude/"):
		return true
	}
	return false
}

// classifier decides one client's load of one entry.
type classifier struct {
	rule  string
	cwd   string
	paths []string
	names map[string]bool // gemini
	// nearest is each asked path's nearest governing AGENTS.md (copilot),
	// made on first use.
	nearest map[string]string
	// size is a file's size (an alias file's own bytes).
	size func(file string) int
}

// imports reports the clients that follow @path imports: Claude Code and
// Gemini CLI load what a loaded file imports, with it.
func (c *classifier) imports() bool { return c.rule == "claude" || c.rule == "gemini" }

// anyWithin reports whether one of the asked paths lies below dir.
func (c *classifier) anyWithin(dir string) bool {
	for _, p := range c.paths {
		if within(path.Dir(p), dir) {
			return true
		}
	}
	return false
}

// nestedCursorDir is <d> of a rule in <d>/.cursor/rules/ (d not the root).
func nestedCursorDir(file string) (string, bool) {
	if i := strings.Index(file, "/.cursor/rules/"); i > 0 {
		return file[:i], true
	}
	return "", false
}

// subtreeOf is the pattern of a directory's subtree ("**" for the root).
func subtreeOf(d string) string {
	if d == "" {
		return "**"
	}
	return d + "/**"
}

// agentDir is the directory an agent file speaks for: its own, or for
// <d>/.claude/CLAUDE.md, d.
func agentDir(file string) string {
	d := path.Dir(file)
	if strings.EqualFold(path.Base(d), ".claude") {
		d = path.Dir(d)
	}
	if d == "." {
		return ""
	}
	return d
}

// within reports whether dir is d or lies below it ("" is the root).
func within(dir, d string) bool {
	return d == "" || dir == d || strings.HasPrefix(dir, d+"/")
}

func depthOf(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

func shown(d string) string {
	if d == "" {
		return "the repository root"
	}
	return d + "/"
}

// files are the places an entry is read from: its file and the alias
// files folded into it (extra.aliases).
func files(en *entry.Entry) []string {
	out := []string{en.File}
	switch v := en.Extra["aliases"].(type) {
	case []any:
		for _, a := range v {
			if s, ok := a.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, v...)
	}
	return out
}

// extraString is a frontmatter key of a rule file, its case ignored; a
// list is joined with commas.
func extraString(en *entry.Entry, key string) string {
	for k, v := range en.Extra {
		if !strings.EqualFold(k, key) {
			continue
		}
		switch x := v.(type) {
		case string:
			return x
		case bool:
			return fmt.Sprint(x)
		case []any:
			var parts []string
			for _, p := range x {
				parts = append(parts, fmt.Sprint(p))
			}
			return strings.Join(parts, ",")
		}
	}
	return ""
}

// excludes reports whether an instructions file's excludeAgent names one
// of agents.
func excludes(en *entry.Entry, agents ...string) (string, bool) {
	v := extraString(en, "excludeAgent")
	for _, p := range strings.Split(v, ",") {
		p = strings.Trim(strings.TrimSpace(p), `"'`)
		for _, a := range agents {
			if strings.EqualFold(p, a) {
				return p, true
			}
		}
	}
	return "", false
}

// firstMatch is the entry's most specific match as "path (rule)".
func firstMatch(l *ClientLoaded, hits []governingHit) string {
	if l.Hit < 0 {
		return ""
	}
	h := hits[l.Hit]
	for _, m := range h.Matches {
		if m.Specificity == h.Best {
			return m.Path + " (" + m.Rule + ")"
		}
	}
	return ""
}

// fileKind names an entry's file for a reason.
func fileKind(en *entry.Entry) string {
	base := path.Base(en.File)
	switch en.Style {
	case entry.StyleCursor:
		return "a Cursor rule"
	case entry.StyleCopilot:
		return "a Copilot instructions file"
	case entry.StyleAgents, entry.StyleClaude:
		return base
	case entry.StyleFrontmatter, entry.StyleADR:
		return "a kontext " + en.Kind + " entry"
	}
	return "a " + en.Style + " file"
}

// classify sets l's load and reason; false when the client neither loads
// the entry nor is it governing (left out of the answer). Codex's chain
// files get the load "chain", settled by codexChain.
func (c *classifier) classify(l *ClientLoaded, st *State, hits []governingHit) bool {
	en := l.Entry
	governs := l.Hit >= 0
	notRead := func(why string) bool {
		if !governs {
			return false
		}
		l.Load, l.Reason = LoadNotLoaded, why
		return true
	}
	set := func(load, reason string) bool { l.Load, l.Reason = load, reason; return true }
	shadowed := "" // Copilot: a nearer AGENTS.md wins over this one
	for i, f := range files(en) {
		base := strings.ToLower(path.Base(f))
		d := agentDir(f)
		// Agent files: the agents and claude styles (an alias file is one
		// of them too: it only imports the entry it is folded into).
		agents := en.Style == entry.StyleAgents || en.Style == entry.StyleClaude
		if agents {
			l.depth = depthOf(d) // agent files load root first
		}
		alias := i > 0
		if alias && !c.imports() && c.size != nil {
			// A client that does not follow imports loads the alias's own
			// text, not the entry it imports.
			l.Bytes = c.size(f)
		}
		via := ""
		if alias {
			via = " (" + f + ", an alias of " + en.File + ")"
		}
		// tree is a file loaded by directory (Claude's CLAUDE.md, Gemini's
		// context files): at start in the start directory and above it,
		// on demand below it.
		tree := func(who, atStart, onDemand string) bool {
			switch {
			case within(c.cwd, d):
				return set(LoadAlways, path.Base(f)+" in the start directory or above it: "+atStart+via)
			case governs && within(d, c.cwd):
				return set(LoadOnDemand, "below the start directory: "+onDemand+" "+shown(d)+via)
			}
			return notRead("outside the start directory's tree: " + who + " loads it only when started in or below " + shown(d))
		}
		switch c.rule {
		case "codex":
			if agents && (base == "agents.md" || base == "agents.override.md") {
				if within(c.cwd, d) {
					l.Load, l.Reason = "chain", f
					return true
				}
				return notRead(fmt.Sprintf("not on the chain from the root to %s: Codex reads AGENTS.md only from the project root down to its start directory", shown(c.cwd)))
			}
		case "cursor":
			switch {
			case en.Style == entry.StyleCursor && base == ".cursorrules":
				return set(LoadAlways, "legacy .cursorrules: always applied")
			case en.Style == entry.StyleCursor:
				if cd, ok := nestedCursorDir(f); ok && !c.anyWithin(cd) {
					// A nested .cursor/rules applies to its folder only.
					return notRead("a nested .cursor/rules: Cursor applies it to files in " + shown(cd) + " only")
				}
				switch {
				case strings.EqualFold(extraString(en, "alwaysApply"), "true"):
					return set(LoadAlways, "alwaysApply: true")
				case len(en.OwnPaths()) > 0:
					if governs {
						return set(LoadAuto, "globs match "+firstMatch(l, hits))
					}
					return false
				case strings.TrimSpace(en.Summary) != "":
					return set(LoadAgentRequested, "description without globs: the agent decides from the description")
				default:
					return set(LoadManual, "no alwaysApply, globs or description: only when @-mentioned")
				}
			case agents && base == "agents.md":
				if d == "" {
					return set(LoadAlways, "AGENTS.md at the root: always applied"+via)
				}
				if governs {
					return set(LoadAuto, "nested AGENTS.md: applies to files in "+shown(d)+via)
				}
				return false
			}
		case "copilot", "copilot-review":
			review := c.rule == "copilot-review"
			switch {
			case en.Style == entry.StyleCopilot && base == "copilot-instructions.md":
				return set(LoadAlways, "repository-wide .github/copilot-instructions.md")
			case en.Style == entry.StyleCopilot:
				if !governs {
					return false
				}
				agent := []string{"coding-agent", "cloud-agent"}
				if review {
					agent = []string{"code-review"}
				}
				if v, ok := excludes(en, agent...); ok {
					l.Why = lint.WhyExcluded
					return set(LoadNotLoaded, fmt.Sprintf("excludeAgent: %q", v))
				}
				return set(LoadAuto, "applyTo matches "+firstMatch(l, hits))
			case review:
				// Code review reads only the .github instructions.
			case agents && base == "agents.md":
				if !governs {
					return false
				}
				if near := c.nearestAgents(st, hits, en); near != "" {
					// Not this place; an alias of it may still load (a root
					// CLAUDE.md linked to AGENTS.md).
					shadowed = near + " is nearer to the file: the nearest AGENTS.md wins"
					continue
				}
				return set(LoadAuto, "the nearest AGENTS.md to the file"+via)
			case agents && (base == "claude.md" || base == "gemini.md") && path.Dir(f) == ".":
				return set(LoadAlways, path.Base(f)+" at the root: read by the coding agent"+via)
			}
		case "claude":
			if !agents {
				break
			}
			if rd, ok := entry.ClaudeRulesDir(f); ok && base != "claude.local.md" {
				l.depth = depthOf(rd)
				scoped := !(len(en.OwnPaths()) == 1 && en.OwnPaths()[0] == subtreeOf(rd))
				switch {
				case within(c.cwd, rd) && !scoped:
					return set(LoadAlways, ".claude/rules file without paths: loaded at launch"+via)
				case within(c.cwd, rd) && governs:
					return set(LoadAuto, "paths match "+firstMatch(l, hits)+via)
				case within(c.cwd, rd):
					return false
				case governs && within(rd, c.cwd):
					return set(LoadOnDemand, "a .claude/rules file below the start directory: loaded when Claude reads files in "+shown(rd)+via)
				}
				return notRead("outside the start directory's tree: Claude loads " + shown(rd) + ".claude/rules only when started in or below " + shown(rd))
			}
			if base == "claude.md" || base == "claude.local.md" {
				return tree("Claude", "loaded at launch", "loaded when Claude reads files in")
			}
		case "gemini":
			if agents && c.names[base] {
				return tree("Gemini CLI", "loaded at start", "loaded just in time when a tool reads files in")
			}
		}
	}
	if shadowed != "" {
		return set(LoadNotLoaded, shadowed)
	}
	return notRead(c.rule + " does not read " + fileKind(en))
}

// nearestAgents is "" when en is the nearest governing AGENTS.md to one
// of the asked paths, else the AGENTS.md nearer to them.
func (c *classifier) nearestAgents(st *State, hits []governingHit, en *entry.Entry) string {
	if c.nearest == nil {
		dirs := map[string]string{} // directory → its AGENTS.md
		for _, h := range hits {
			o := st.Snap.Entry(h.Owner)
			if o.Style == entry.StyleAgents && strings.EqualFold(path.Base(o.File), "agents.md") {
				dirs[agentDir(o.File)] = o.File
			}
		}
		c.nearest = make(map[string]string, len(c.paths))
		for _, p := range c.paths {
			for d := path.Dir(p); ; d = path.Dir(d) {
				if d == "." || d == "/" {
					d = ""
				}
				if f, ok := dirs[d]; ok {
					c.nearest[p] = f
					break
				}
				if d == "" {
					break
				}
			}
		}
	}
	nearer := ""
	for _, p := range c.paths {
		switch f := c.nearest[p]; f {
		case en.File:
			return ""
		case "":
		default:
			if within(path.Dir(p), agentDir(en.File)) {
				nearer = f
			}
		}
	}
	return nearer
}

// codexChain settles Codex's chain: per directory AGENTS.override.md
// before AGENTS.md, empty files skipped, root first, and the 32 KiB
// budget: the file that crosses it is cut to what fits, later ones are
// cut whole.
func codexChain(chain []ClientLoaded) []ClientLoaded {
	sort.SliceStable(chain, func(i, j int) bool {
		if chain[i].depth != chain[j].depth {
			return chain[i].depth < chain[j].depth
		}
		// AGENTS.override.md first in its directory.
		return strings.EqualFold(path.Base(chain[i].Reason), "agents.override.md") && !strings.EqualFold(path.Base(chain[j].Reason), "agents.override.md")
	})
	remaining := codexMaxBytes
	reachedAt := ""
	taken := map[string]string{} // directory → the file the chain took
	for i := range chain {
		l := &chain[i]
		file := l.Reason
		d := agentDir(file)
		switch {
		case taken[d] != "":
			l.Load, l.Reason, l.Why = LoadNotLoaded, "AGENTS.override.md in the same directory takes its place ("+taken[d]+")", lint.WhyShadowed
			continue
		case strings.TrimSpace(l.Entry.Markdown) == "":
			l.Load, l.Reason = LoadNotLoaded, "empty: Codex skips empty files"
			continue
		}
		taken[d] = file
		switch {
		case remaining == 0:
			l.Load, l.Reason = LoadCut, "cut: the chain reached 32 KiB at "+reachedAt
		case l.Bytes > remaining:
			l.Load, l.BytesLoaded = LoadCut, remaining
			l.Reason = fmt.Sprintf("cut: the chain reached 32 KiB here; %d of %d bytes load", remaining, l.Bytes)
			remaining, reachedAt = 0, file
		default:
			l.Load, l.Reason = LoadAlways, "on the chain from the root to the start directory"
			remaining -= l.Bytes
			if remaining == 0 {
				reachedAt = file
			}
		}
	}
	return chain
}

// geminiNames are the context file names Gemini CLI loads (lower-cased):
// .gemini/settings.json context.fileName, else GEMINI.md; notes say where
// they came from and which kontext does not read.
func (e *Engine) geminiNames() (map[string]bool, []string) {
	const settings = GeminiSettings
	names := map[string]bool{"gemini.md": true}
	data, err := readSmall(e.FS(), settings, maxSettingsBytes)
	if err != nil {
		return names, nil // no settings: the default name
	}
	var s struct {
		Context struct {
			FileName json.RawMessage `json:"fileName"`
		} `json:"context"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return names, []string{settings + " is not valid JSON (" + err.Error() + "): GEMINI.md assumed"}
	}
	var list []string
	if len(s.Context.FileName) > 0 {
		var one string
		if json.Unmarshal(s.Context.FileName, &one) == nil {
			list = []string{one}
		} else if json.Unmarshal(s.Context.FileName, &list) != nil {
			return names, []string{settings + " context.fileName is neither a name nor a list of names: GEMINI.md assumed"}
		}
	}
	if len(list) == 0 {
		return names, nil
	}
	names = map[string]bool{}
	var notes []string
	for _, n := range list {
		names[strings.ToLower(path.Base(n))] = true
		if !entry.AgentsName(strings.ToLower(path.Base(n))) {
			notes = append(notes, settings+" names "+n+", which kontext does not read: those files are not in this answer")
		}
	}
	notes = append(notes, settings+" context.fileName: "+strings.Join(list, ", "))
	return names, notes
}

// clientAnswer is the result's client object.
func (l *ClientLoads) clientAnswer() *api.ClientAnswer {
	notes := l.Notes
	if notes == nil {
		notes = []string{}
	}
	return &api.ClientAnswer{Client: l.Rule.Name, Cwd: l.Cwd, Doc: l.Rule.Doc, DocRead: l.Rule.Read, Notes: notes}
}

// readSmall reads a file of at most limit bytes from fs.
func readSmall(fs billy.Filesystem, name string, limit int64) ([]byte, error) {
	f, err := fs.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// clientQuery is the client and start directory of a governing question.
type clientQuery struct {
	rule ClientRule
	cwd  string
}

// clientPage is a governing page as cq's client loads it: its entries
// in load order, each with its load and reason.
func (e *Engine) clientPage(ctx context.Context, st *State, paths, exclude []string, hits []governingHit, offset, limit int, history, compact bool, cq *clientQuery) (*api.GoverningResult, error) {
	loads := e.clientLoad(st, cq.rule, cq.cwd, paths, hits)
	ls := loads.Entries
	if len(exclude) > 0 {
		excluded := make(map[string]bool, len(exclude))
		for _, id := range exclude {
			excluded[id] = true
		}
		kept := ls[:0:0]
		for _, l := range ls {
			if !excluded[l.Entry.ID] {
				kept = append(kept, l)
			}
		}
		ls = kept
	}
	res := &api.GoverningResult{Snapshot: st.Snap.ID, Total: len(ls), Client: loads.clientAnswer()}
	ls = ls[min(offset, len(ls)):]
	if limit > 0 && len(ls) > limit {
		ls = ls[:limit]
	}
	ens := make([]*entry.Entry, len(ls))
	for i, l := range ls {
		ens[i] = l.Entry
	}
	views, err := e.pageViews(ctx, st, ens, history, compact)
	if err != nil {
		return nil, err
	}
	for i, v := range views {
		l := ls[i]
		if l.Hit >= 0 {
			h := hits[l.Hit]
			v.Matches = make([]api.Match, len(h.Matches))
			for k, m := range h.Matches {
				v.Matches[k] = api.Match{Path: m.Path, Rule: m.Rule, Specificity: m.Specificity}
			}
			v.Specificity = &h.Best
		}
		v.Load, v.Reason = l.Load, l.Reason
		if l.Load == LoadCut {
			n := l.BytesLoaded
			v.BytesLoaded = &n
		}
	}
	res.Entries = views
	if e.boundaries != nil {
		res.Boundaries = e.boundaries(e.FS(), paths)
	}
	return res, nil
}
