// Package detect finds the knowledge a repository already keeps — ADR logs
// (adr-tools, MADR, log4brains, or a directory of numbered records that
// read as decisions), Cursor and Copilot rules, AGENTS.md and Claude
// Code's files — and turns it into include sources of the configuration.
// It walks a billy filesystem (bounded in depth and file count), reads
// nothing else and writes nothing: AppendConfig returns the new
// configuration text.
package detect

import (
	"errors"
	"io"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5"
	"go.yaml.in/yaml/v3"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/link"
)

// Source is one detected source: an include of a kind, and how many
// entries it holds now.
type Source struct {
	Dir     string `json:"dir"` // repo-relative; "." is the repository root
	Kind    string `json:"kind"`
	Style   string `json:"style"`
	Entries int    `json:"entries"`
	// Configured: the configuration already reads this source (nothing
	// to append).
	Configured bool `json:"configured"`
}

// Options bound and steer the walk.
type Options struct {
	// Skip are repo-relative directories never walked (the storage dir).
	Skip []string
	// Known are the sources the configuration already reads; a detected
	// source in one of their directories, or overlapping one of the same
	// style, is marked Configured.
	Known []entry.Source
	// Roots are the absolute spellings of the repository root, for
	// symlinks with absolute targets.
	Roots    []string
	MaxDepth int // default 12
	MaxFiles int // default 100000
}

// skipNames are vendored and dependency directories: their knowledge is
// someone else's.
var skipNames = map[string]bool{
	".git": true, "node_modules": true, "vendor": true, "third_party": true, "third-party": true,
	"bower_components": true, ".venv": true, "venv": true, "__pycache__": true, ".hg": true, ".svn": true,
}

// adrDirNames are where ADR tools put their logs; a directory with these
// names and at least one record is a log even when it has few records.
var adrDirNames = []string{"doc/adr", "docs/adr", "docs/decisions", "docs/architecture/decisions", "doc/architecture/decisions", "docs/architecture-decisions", "adr", "docs/adrs", "doc/decisions", "decisions"}

// The record patterns are compiled on first use: status runs in the WASM
// engine, whose start-up time is budgeted.
var (
	numberedName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(?:adr[-_]?)?\d{3,}[-_ ].+\.md$`) })
	numberedHead = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#\s+(?:ADR[-\s]?)?\d+[.:]?\s+\S`) })
)

// dirInfo is what the walk learned about one directory.
type dirInfo struct {
	md       []string // Markdown files (repo-relative), records or not
	numbered int      // of them, how many look like numbered records by name
}

// walker collects the files detection looks at.
type walker struct {
	fs     billy.Filesystem
	res    *link.Resolver
	o      Options
	files  int
	dirs   map[string]*dirInfo
	agents []string // AGENTS.md, AGENTS.override.md, GEMINI.md files and Claude Code's files
	cursor map[string][]string
	other  map[string]bool // .adr-dir, .log4brains.yml, .cursorrules, copilot files

	// agentsMD: one of the agents files is an AGENTS.md (the agents style
	// reads both kinds; without one the claude style is enough).
	agentsMD bool
}

// Find walks the repository and returns the sources it detects, sorted by
// kind order then directory.
func Find(fs billy.Filesystem, o Options) ([]Source, error) {
	if o.MaxDepth == 0 {
		o.MaxDepth = 12
	}
	if o.MaxFiles == 0 {
		o.MaxFiles = 100000
	}
	w := &walker{fs: fs, res: &link.Resolver{FS: fs, Roots: o.Roots}, o: o, dirs: map[string]*dirInfo{}, cursor: map[string][]string{}, other: map[string]bool{}}
	if err := w.walk("", 0); err != nil {
		return nil, err
	}
	var out []Source
	add := func(s Source) {
		dir := s.Dir
		if dir == "." {
			dir = ""
		}
		for _, k := range o.Known {
			// The same directory, or one source of the same style inside
			// the other (it reads those files already).
			if k.Dir == dir || (k.Style == s.Style && (inDir(dir, k.Dir) || inDir(k.Dir, dir))) {
				s.Configured = true
			}
		}
		for _, have := range out {
			if have.Dir == s.Dir {
				return
			}
		}
		out = append(out, s)
	}
	for _, d := range w.adrDirs() {
		add(Source{Dir: d, Kind: "decision", Style: entry.StyleADR})
	}
	var cursorDirs []string
	for d := range w.cursor {
		cursorDirs = append(cursorDirs, d)
	}
	sort.Strings(cursorDirs)
	for _, d := range cursorDirs {
		add(Source{Dir: d, Kind: "convention", Style: entry.StyleCursor})
	}
	if w.other[".cursorrules"] {
		add(Source{Dir: ".cursorrules", Kind: "convention", Style: entry.StyleCursor})
	}
	if w.other[".github/copilot-instructions.md"] || w.other[".github/instructions"] {
		add(Source{Dir: ".github", Kind: "convention", Style: entry.StyleCopilot})
	}
	if len(w.agents) > 0 {
		style := entry.StyleClaude
		if w.agentsMD {
			style = entry.StyleAgents
		}
		add(Source{Dir: commonDir(w.agents), Kind: "convention", Style: style})
	}
	for i := range out {
		out[i].Entries = w.count(out[i], out)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := kindRank(out[i].Kind), kindRank(out[j].Kind); ri != rj {
			return ri < rj
		}
		return out[i].Dir < out[j].Dir
	})
	return out, nil
}

func (w *walker) skipped(rel, name string) bool {
	if skipNames[name] {
		return true
	}
	for _, s := range w.o.Skip {
		if s != "" && rel == s {
			return true
		}
	}
	return false
}

func (w *walker) walk(dir string, depth int) error {
	if depth > w.o.MaxDepth {
		return nil
	}
	infos, err := w.fs.ReadDir(link.FSPath(dir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return apierr.Wrap(apierr.OperationFailed, err, "reading %s", link.FSPath(dir))
	}
	for _, fi := range infos {
		if w.files >= w.o.MaxFiles {
			return nil
		}
		rel := link.Join(dir, fi.Name())
		isDir := fi.IsDir()
		if fi.Mode()&os.ModeSymlink != 0 {
			// Only file links are considered (a linked AGENTS.md); linked
			// directories are not walked, so the walk cannot loop.
			_, tfi, err := w.res.Resolve(rel)
			if err != nil || tfi.IsDir() {
				continue
			}
			isDir = false
		}
		if isDir {
			if w.skipped(rel, fi.Name()) {
				continue
			}
			if err := w.walk(rel, depth+1); err != nil {
				return err
			}
			continue
		}
		w.files++
		w.file(dir, rel, fi.Name())
	}
	return nil
}

func (w *walker) file(dir, rel, name string) {
	lower := strings.ToLower(name)
	switch {
	case lower == "agents.md" || lower == "agents.override.md" || lower == "gemini.md":
		w.agents, w.agentsMD = append(w.agents, rel), true
		return
	case lower == "claude.local.md":
		return // personal and gitignored: never what a team adopts
	case entry.IsRecordFile(rel, entry.Source{Style: entry.StyleClaude}):
		w.agents = append(w.agents, rel)
		return
	case rel == ".adr-dir" || rel == ".log4brains.yml" || rel == ".cursorrules" || rel == ".github/copilot-instructions.md":
		w.other[rel] = true
		return
	case strings.HasSuffix(lower, ".mdc"):
		if i := strings.Index(rel+"/", ".cursor/rules/"); i >= 0 && (i == 0 || rel[i-1] == '/') {
			d := rel[:i] + ".cursor/rules"
			w.cursor[d] = append(w.cursor[d], rel)
		}
		return
	case strings.HasSuffix(lower, ".instructions.md") && strings.HasPrefix(rel, ".github/instructions/"):
		w.other[".github/instructions"] = true // and listed below, for the count
	}
	if strings.HasSuffix(lower, ".md") {
		di := w.dirs[dir]
		if di == nil {
			di = &dirInfo{}
			w.dirs[dir] = di
		}
		di.md = append(di.md, rel)
		if numberedName().MatchString(name) {
			di.numbered++
		}
	}
}

// adrDirs are the ADR logs: the dirs adr-tools and log4brains name, and,
// on evidence that they hold decision records (isLog), the conventional
// names and any directory where most Markdown files are numbered (by name
// or by a "# N. Title"). Numbered names alone never make a log.
func (w *walker) adrDirs() []string {
	set := map[string]bool{}
	if w.other[".adr-dir"] {
		if d := w.firstLine(".adr-dir"); d != "" && w.holdsMarkdown(d) {
			set[d] = true
		}
	}
	if w.other[".log4brains.yml"] {
		if d := w.log4brains(); d != "" && w.holdsMarkdown(d) {
			set[d] = true
		}
	}
	for _, d := range adrDirNames {
		if di := w.dirs[d]; di != nil && w.isLog(di, 1) {
			set[d] = true
		}
	}
	for d, di := range w.dirs {
		if set[d] || len(di.md) < 2 {
			continue
		}
		if n := w.records(di); n*2 > len(di.md) && n >= 2 && w.isLog(di, 2) {
			set[d] = true
		}
	}
	var out []string
	for d := range set {
		if d != "" {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// holdsMarkdown: the walk saw a Markdown file in or below dir (a tool's
// marker naming a directory that is not in the tree names no log).
func (w *walker) holdsMarkdown(dir string) bool {
	for d := range w.dirs {
		if inDir(d, dir) {
			return true
		}
	}
	return false
}

// records counts the Markdown files of a directory that look like
// numbered records: by name, else by their first heading.
func (w *walker) records(di *dirInfo) int {
	if di.numbered*2 > len(di.md) || len(di.md) > 200 {
		return di.numbered // decided by the names (or too many files to open)
	}
	n := 0
	for _, f := range di.md {
		base := path.Base(f)
		if numberedName().MatchString(base) {
			n++
			continue
		}
		if !entry.IsRecordFile(f, entry.Source{Style: entry.StyleADR}) {
			continue
		}
		if h := w.firstHeading(f); numberedHead().MatchString(h) {
			n++
		}
	}
	return n
}

// open reads up to limit bytes of rel.
func (w *walker) open(rel string, limit int64) ([]byte, bool) {
	f, err := w.fs.Open(rel)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit))
	return data, err == nil
}

func (w *walker) firstLine(rel string) string {
	data, ok := w.open(rel, 4<<10)
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	d := strings.Trim(strings.TrimSpace(line), "/")
	d = path.Clean("/" + d)[1:]
	if d == "" || strings.HasPrefix(d, "..") {
		return ""
	}
	return d
}

func (w *walker) firstHeading(rel string) string {
	data, ok := w.open(rel, 4<<10)
	if !ok {
		return ""
	}
	for i, line := range strings.SplitN(string(data), "\n", 41) {
		if t := strings.TrimSpace(line); i < 40 && strings.HasPrefix(t, "# ") {
			return t
		}
	}
	return ""
}

// log4brains reads project.adrFolder of .log4brains.yml.
func (w *walker) log4brains() string {
	data, ok := w.open(".log4brains.yml", 64<<10)
	if !ok {
		return ""
	}
	var doc struct {
		Project struct {
			ADRFolder string `yaml:"adrFolder"`
		} `yaml:"project"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return ""
	}
	d := strings.Trim(strings.TrimSpace(doc.Project.ADRFolder), "/")
	d = path.Clean("/" + strings.TrimPrefix(d, "./"))[1:]
	if strings.HasPrefix(d, "..") {
		return ""
	}
	return d
}

// count is how many entries s would read now: its record files (below
// its dir, not in another detected source) that parse as entries, a link
// and its target counted once.
func (w *walker) count(s Source, all []Source) int {
	src := entry.Source{Kind: s.Kind, Dir: s.Dir, Style: s.Style, ReadOnly: true}
	if s.Dir == "." {
		src.Dir = ""
	}
	var files []string
	switch {
	case s.Style == entry.StyleAgents || s.Style == entry.StyleClaude:
		files = w.agents
	case s.Style == entry.StyleCursor && s.Dir == ".cursorrules":
		files = []string{".cursorrules"}
	case s.Style == entry.StyleCursor:
		files = w.cursor[s.Dir]
	case s.Style == entry.StyleCopilot:
		files = w.below(".github", func(f string) bool { return entry.IsRecordFile(f, src) })
	default:
		files = w.below(s.Dir, func(f string) bool { return entry.IsRecordFile(f, src) })
	}
	seen := map[string]bool{}
	n := 0
	for _, f := range files {
		if !inDir(f, src.Dir) || elsewhere(f, s, all) {
			continue
		}
		target, _, err := w.res.Resolve(f)
		if err != nil || seen[target] {
			continue
		}
		seen[target] = true
		data, ok := w.open(target, entry.MaxFileSize+1)
		if !ok {
			continue
		}
		if e, _ := entry.Parse(f, data, src); e != nil {
			n++
			if entry.ImportsOnly(e) && seen[e.Links[0].Target] {
				n-- // an alias of a file read before it (CLAUDE.md = @AGENTS.md)
			}
		}
	}
	return n
}

// below lists the walked Markdown and rule files under dir that keep.
func (w *walker) below(dir string, keep func(string) bool) []string {
	var out []string
	for d, di := range w.dirs {
		if !inDir(d, dir) {
			continue
		}
		for _, f := range di.md {
			if keep(f) {
				out = append(out, f)
			}
		}
	}
	if w.other[".github/copilot-instructions.md"] && dir == ".github" && keep(".github/copilot-instructions.md") {
		out = append(out, ".github/copilot-instructions.md")
	}
	sort.Strings(out)
	return out
}

// elsewhere: f lies in another, deeper detected source.
func elsewhere(f string, s Source, all []Source) bool {
	for _, o := range all {
		if o.Dir != s.Dir && o.Dir != "." && len(o.Dir) > len(s.Dir) && inDir(f, o.Dir) {
			return true
		}
	}
	return false
}

func inDir(f, dir string) bool {
	return dir == "" || dir == "." || f == dir || strings.HasPrefix(f, dir+"/")
}

// commonDir is the deepest directory holding every file ("." for the root).
func commonDir(files []string) string {
	common := path.Dir(files[0])
	for _, f := range files[1:] {
		d := path.Dir(f)
		for common != "." && !inDir(d, common) {
			common = path.Dir(common)
		}
	}
	return common
}

func kindRank(k string) int {
	for i, x := range entry.Kinds {
		if x == k {
			return i
		}
	}
	return len(entry.Kinds)
}
