// Package kb owns one knowledge base read from a billy filesystem: the
// configuration, every entry file of every source, their diagnostics, the
// ledger bytes, id lookups and the snapshot id. A Reader caches parsed files
// by size and modification time, so reading an unchanged tree again costs
// only directory listings and stats.
package kb

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/go-git/go-billy/v5"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/entry"
	ledgerpkg "github.com/kontext/kontext/engine/internal/ledger"
	"github.com/kontext/kontext/engine/internal/link"
	"github.com/kontext/kontext/engine/internal/match"
	"github.com/kontext/kontext/engine/internal/search"
)

// skipDirs are never descended into while looking for entry files.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

type cached struct {
	key  string // srcKey: the source and link target the parse depends on
	size int64
	mod  time.Time
	id   uint64 // the store's file identity (inode), 0 without a store
	racy bool   // modified no earlier than the second its parse was recorded: check its content before trusting
	sum  uint32 // raw's CRC-32 as stored, checked when raw is decoded
	blob string
	// check: check64 of the content parsed, which a racy file's
	// content is checked against (a bundle's files all are where it is
	// opened: their SHA-1 was most of a first answer's time in
	// WebAssembly); blob is the content's id from then on.
	check uint64
	raw   string // the stored parse, still encoded ("" once decoded): see decode
	kept  string // the stored parse once decoded: saved again as it is, not encoded again
	// portable: loaded from a PortableStore and not yet checked against the
	// file's content (its time and identity are another machine's).
	portable bool
	// text: the file's content, kept by recheck when the stored parse
	// leaves the entry's text out (a portable parse, see encodeParse).
	text  string
	entry *entry.Entry
	diags []entry.Diagnostic
}

// Reader reads knowledge bases from one filesystem and keeps a per-file
// parse cache between reads. It is safe for concurrent use.
type Reader struct {
	fs      billy.Filesystem
	roots   []string // absolute spellings of the root, for absolute link targets
	linkSig string   // the link diagnostics of the last read
	mu      sync.Mutex
	files   map[string]*cached // nil while tab holds them: see ensureFiles
	tab     *table             // the stored snapshot's records, still in place
	// clean (set by SetStore) tells whether the listings match tab, so
	// the read needs no records: see warm.go.
	clean    func(r *Reader, lists [][]job, total int) interface{ blob(string) string }
	last     *Snapshot
	store    Store // nil: the parse cache lives only as long as the reader
	persist  persister
	loaded   bool      // the store was read
	compiled string    // the stored compiled snapshot, still encoded; "" when none or stale
	decoded  *decoded  // the stored snapshot's configuration and overlay, decoded
	recs     []*cached // the stored records in file order, which compiled refers to
	dirty    bool      // the cache differs from what the store holds
	// immutable: the files change only through Forget, so a read after the
	// first answers the last snapshot without listing anything.
	immutable bool
	spoiled   uint64 // entries of a stored compiled part that did not decode: see Spoiled
}

// save stores s.
func (r *Reader) save(s *Snapshot) { r.persist.save(r, s) }

// Spoiled counts the entries of stored compiled parts that did not
// decode when a read's answer needed them (each then stands as its id
// alone, and the reader drops the compiled part). An answer made while
// the count changed is not to be trusted: made again, it reads afresh.
func (r *Reader) Spoiled() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spoiled
}

// NewReader returns a Reader over fs, whose root is the repository root.
func NewReader(fs billy.Filesystem) *Reader {
	return &Reader{fs: fs, files: map[string]*cached{}}
}

// SetImmutable makes every read after the first answer the same snapshot
// without listing or stating a file, until Forget (a file set that
// changes only through the engine's update).
func (r *Reader) SetImmutable(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.immutable = on
}

// FS returns the filesystem the reader reads.
func (r *Reader) FS() billy.Filesystem { return r.fs }

// Forget drops cached parses of paths (or of everything when none are
// given); filesystems whose stat data cannot be trusted call it after
// changing files.
func (r *Reader) Forget(paths ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(paths) == 0 {
		r.files, r.tab = map[string]*cached{}, nil
	}
	r.ensureFiles()
	for _, p := range paths {
		delete(r.files, p)
	}
	r.last = nil
	r.compiled = ""
}

// Snapshot is one consistent read of the knowledge base.
type Snapshot struct {
	Config      *config.Config
	ConfigText  []byte // nil for defaults
	Diagnostics []entry.Diagnostic
	Ledger      []byte            // nil when absent
	Overlay     []byte            // the path overlay's text; nil when absent
	LedgerLines []*ledgerpkg.Line // the well-formed ledger lines, in file order
	Head        string            // HEAD commit the read saw ("" without one)
	Skipped     []Skipped         // Markdown files of the sources that are not records
	ID          string            // the snapshot id

	// entries: use Entries, Entry and Len. A stored snapshot (lazy) decodes
	// an entry when it is first asked for, all of them at the first
	// Entries.
	entries []*entry.Entry
	lazy    lazyEntries
	// blobs: use Blob. A stored snapshot looks them up in its table (blobsFrom).
	blobs     map[string]string // file → git blob id of its content, for every record file read
	blobsFrom interface{ blob(file string) string }
	tally     *Tally // a native stored snapshot's (the others count their entries)

	// byID is built by a read, or at first use for a decoded snapshot (a
	// warm governing looks up no id): use ids().
	byID        map[string]*entry.Entry
	byIDOnce    sync.Once
	listSkipped string // the skipped files the listing saw, to tell an unchanged read
	inputs      string // the hash of the read's inputs besides the files (stored snapshots only)

	matchOnce sync.Once
	index     *match.Index
	sets      []match.Set
	prior     *match.Index // the index of the snapshot this one replaced, kept when its sets are the same

	searchOnce    sync.Once
	search        *search.Index
	activeOnce    sync.Once
	active        *search.Index
	activeEntries []*entry.Entry
}

// Read reads the knowledge base with head as the HEAD commit id. An invalid
// configuration is an invalid_input error.
func (r *Reader) Read(head string) (snap *Snapshot, err error) {
	if r.immutable {
		r.mu.Lock()
		last := r.last
		r.mu.Unlock()
		if last != nil && last.Head == head {
			return last, nil // nothing is listed again until Forget
		}
	}
	// The stored snapshot is loaded before the configuration is read: it
	// holds the configuration decoded, so an unchanged one is not parsed.
	r.mu.Lock()
	if r.persist != nil && !r.loaded {
		r.persist.load(r)
	}
	dec := r.decoded
	r.mu.Unlock()
	cfg, cfgText, err := r.readConfig(dec)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.persist != nil && !r.loaded {
		r.persist.load(r) // Forget or SetStore in between
	}
	s := &Snapshot{Config: cfg, ConfigText: cfgText, blobs: map[string]string{}, Head: head, byID: map[string]*entry.Entry{}}
	sources := cfg.Sources()
	sourceDirs := map[string]bool{}
	for _, src := range sources {
		sourceDirs[src.Dir] = true
	}
	// List every source first, then parse the cache misses in parallel.
	// Sources are listed in parallel: on a warm cache the stats are the cost.
	errs := make([]error, len(sources))
	lists := make([][]job, len(sources))
	skips := make([][]Skipped, len(sources))
	linkDiags := make([][]entry.Diagnostic, len(sources))
	parallel(len(sources), func(i int) { lists[i], skips[i], linkDiags[i], errs[i] = r.list(&sources[i], sourceDirs) })
	total := 0
	for i := range sources {
		if errs[i] != nil {
			return nil, errs[i]
		}
		s.Skipped = append(s.Skipped, skips[i]...)
		s.listSkipped += skippedSig(skips[i])
		s.Diagnostics = append(s.Diagnostics, linkDiags[i]...)
		total += len(lists[i])
	}
	linkSig := diagListsSig(linkDiags) // a new or fixed broken link changes the answer too
	// A stored table that every listed file matches (unchanged, not racy,
	// none deleted) needs no records: blobsFrom looks blob ids up in it.
	// Otherwise (or once its compiled part turns out stale: again) the
	// listings are joined and looked up in the parse cache.
	tryClean := r.tab != nil && r.clean != nil
again:
	var blobsFrom interface{ blob(string) string }
	if tryClean {
		blobsFrom = r.clean(r, lists, total)
	}
	var jobs []job
	var aliases map[string][]string
	var results []*cached
	var misses []int
	deleted := false
	if blobsFrom == nil {
		r.ensureFiles()
		jobs, aliases = mergeLinks(joinLists(lists, total))
		var racy []int
		var recorded int
		results, misses, racy, recorded = r.lookup(jobs)
		// A racy hit is trusted only when its content still has the
		// recorded checksum; otherwise it is parsed again like a miss.
		fresh := make([]bool, len(racy))
		settled := time.Now().Truncate(time.Second) // taken before the reads
		parallel(len(racy), func(k int) { fresh[k] = r.recheck(jobs[racy[k]], results[racy[k]]) })
		misses = r.settle(jobs, results, racy, fresh, settled, misses)
		// The listed paths are distinct, so fewer of them with a record
		// than there are records means a record's file is gone.
		deleted = recorded < len(r.files)
	}
	ledger, err := readOptional(r.fs, cfg.Ledger())
	if err != nil {
		return nil, err
	}
	overlay, err := readOptional(r.fs, cfg.Overlay())
	if err != nil {
		return nil, err
	}
	var inputs string
	if r.persist != nil {
		inputs = readInputs(head, cfgText, ledger, overlay, linkSig, s.listSkipped, aliases)
	}
	unchanged := len(misses) == 0 && !deleted && r.last != nil && r.last.Head == head && string(r.last.ConfigText) == string(cfgText) &&
		r.last.listSkipped == s.listSkipped && r.linkSig == linkSig
	r.linkSig = linkSig
	if unchanged && string(ledger) == string(r.last.Ledger) && string(overlay) == string(r.last.Overlay) {
		if r.persist != nil && r.dirty {
			r.save(r.last)
		}
		return r.last, nil // nothing changed: keep the snapshot and its compiled indexes
	}
	// Without a miss or a deleted file, the stored compiled snapshot
	// answers when it was built from the same other inputs.
	if len(misses) == 0 && !deleted && r.persist != nil {
		if fast := r.persist.fast(r, inputs); fast != nil {
			fast.Config, fast.ConfigText, fast.Head, fast.listSkipped = cfg, cfgText, head, s.listSkipped
			if fast.blobsFrom = blobsFrom; blobsFrom == nil {
				fast.blobs = blobMap(jobs, results)
			}
			ledgerProblems(fast, cfg, ledger) // its diagnostics are stored already
			fast.Overlay = overlay
			if r.dirty {
				r.save(fast)
			}
			r.last = fast
			return fast, nil
		}
	}
	if blobsFrom != nil { // the compiled part is stale (HEAD, configuration...)
		tryClean = false
		goto again
	}
	// The stored parses of unchanged files are decoded now; one that does
	// not decode is parsed again.
	for i := range jobs {
		if c := results[i]; c != nil && !c.decode() {
			results[i] = nil
			misses = append(misses, i)
		}
	}
	now := time.Now()
	parallel(len(misses), func(k int) {
		j := jobs[misses[k]]
		results[misses[k]] = r.parse(j.path, j.target, j.info, *j.src)
	})
	for k, i := range misses {
		c := results[misses[k]]
		c.key = srcKey(*jobs[i].src, jobs[i].target)
		if r.store != nil {
			c.id = r.store.FileID(jobs[i].info)
			c.racy = !c.mod.Before(now.Truncate(time.Second))
		}
		r.files[jobs[i].path] = c
		r.dirty = true
	}
	if deleted {
		kept := make(map[string]bool, len(jobs)) // the cache keeps exactly these
		for _, j := range jobs {
			kept[j.path] = true
		}
		for f := range r.files {
			if !kept[f] {
				delete(r.files, f)
				r.dirty = true
			}
		}
	}
	if len(misses) > 0 || deleted {
		s.prior = storedIndex(r.compiled)
		r.compiled = "" // stands for other records now
	}
	s.inputs = inputs
	for i, j := range jobs {
		f, c := j.path, results[i]
		if c.blob != "" {
			s.blobs[f] = c.blob
		}
		if c.entry != nil && c.entry.IsTemplate() {
			s.Skipped = append(s.Skipped, Skipped{File: f, Reason: entry.SkipPlaceholder})
			continue // an unfilled template: not a record, so no diagnostics
		}
		s.Diagnostics = append(s.Diagnostics, c.diags...)
		if c.entry == nil {
			continue
		}
		e := clone(c.entry) // linkRecords edits it; the cache keeps the parse
		if jobs[i].target != "" || len(aliases[f]) > 0 {
			withAliases(e, aliases[f], jobs[i].target)
		}
		if prev, dup := s.byID[e.ID]; dup {
			s.Diagnostics = append(s.Diagnostics, entry.Diagnostic{File: f, Severity: "error", Code: entry.CodeDuplicateID,
				Message: fmt.Sprintf("id %q is already used by %s; rename this file or set a distinct id", e.ID, prev.File)})
			continue
		}
		s.byID[e.ID] = e
		s.entries = append(s.entries, e)
	}
	s.Diagnostics = append(s.Diagnostics, cfg.Diagnostics...)
	s.Diagnostics = append(s.Diagnostics, ledgerProblems(s, cfg, ledger)...)
	sort.Slice(s.Skipped, func(i, j int) bool { return s.Skipped[i].File < s.Skipped[j].File })
	s.Overlay = overlay
	var ov *Overlay
	if overlay != nil {
		var diags []entry.Diagnostic
		ov, diags = r.parseOverlay(cfg.Overlay(), overlay)
		s.Diagnostics = append(s.Diagnostics, diags...)
	}
	resolveImports(s)
	applyOverlay(s, cfg.Overlay(), ov)
	linkRecords(s.entries, &s.Diagnostics)
	sortEntries(s.entries)
	sort.SliceStable(s.Diagnostics, func(i, j int) bool {
		a, b := s.Diagnostics[i], s.Diagnostics[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	s.ID = snapshotID(s)
	if r.last != nil && r.last.ID == s.ID && r.last.inputs == s.inputs {
		s = r.last // keep the compiled indexes of an unchanged snapshot
	}
	if r.persist != nil && (r.dirty || r.compiled == "") {
		r.save(s)
		r.compiled = "" // the in-process snapshot serves this reader from now on
	}
	r.last = s
	return s, nil
}

// The loops of Read over every listed file are functions of their own
// (lookup, settle, blobMap): in the WASM engine a function whose loops run
// long is compiled again by the optimising tier, at a cost that grows with
// its size, and Read is large and runs once per open.

// lookup finds each job's record: the results of the hits, the misses and
// the racy hits by index, and how many jobs have a record.
//
//go:noinline
func (r *Reader) lookup(jobs []job) (results []*cached, misses, racy []int, recorded int) {
	results = make([]*cached, len(jobs))
	for i, j := range jobs {
		c, ok := r.files[j.path]
		if ok {
			recorded++
		}
		switch c := r.hit(j, c); {
		case c == nil:
			misses = append(misses, i)
		case c.racy:
			racy = append(racy, i)
			results[i] = c
		default:
			results[i] = c
		}
	}
	return results, misses, racy, recorded
}

// settle applies the rechecks of the racy hits (fresh: the content still
// has the record's checksum): a stale one becomes a miss (appended to misses),
// a fresh one checked after its second ended is trusted from now on.
//
//go:noinline
func (r *Reader) settle(jobs []job, results []*cached, racy []int, fresh []bool, settled time.Time, misses []int) []int {
	for k, i := range racy {
		c := results[i]
		if fresh[k] && c.portable {
			// Its content is the recorded one: from now on it is this
			// filesystem's file, judged by its stat data.
			c.portable, c.mod, c.id = false, jobs[i].info.ModTime(), r.store.FileID(jobs[i].info)
			r.dirty = true
		}
		switch {
		case !fresh[k]:
			results[i] = nil // parsed again below, once
			misses = append(misses, i)
		case c.mod.Before(settled):
			// Checked after its second ended: the next process trusts
			// it without reading it again.
			c.racy = false
			r.dirty = true
		}
	}
	return misses
}

// blobMap maps each job's path to its result's blob id.
//
//go:noinline
func blobMap(jobs []job, results []*cached) map[string]string {
	m := make(map[string]string, len(jobs))
	for i, j := range jobs {
		if results[i].blob != "" {
			m[j.path] = results[i].blob
		}
	}
	return m
}

// ensureFiles builds the parse cache from the stored table, when the
// table still holds it.
//
//go:noinline
func (r *Reader) ensureFiles() {
	if r.tab == nil {
		return
	}
	_, portable := r.store.(PortableStore)
	if r.files, r.recs = r.tab.materialize(portable); r.files == nil {
		r.files, r.compiled, r.dirty = map[string]*cached{}, "", true // rebuilt
	}
	r.tab = nil
}

// ledgerProblems parses the ledger into s and returns its malformed lines
// as diagnostics.
func ledgerProblems(s *Snapshot, cfg *config.Config, ledger []byte) []entry.Diagnostic {
	s.Ledger = ledger
	var problems []ledgerpkg.Problem
	var out []entry.Diagnostic
	s.LedgerLines, problems = ledgerpkg.Parse(ledger)
	for _, p := range problems {
		out = append(out, entry.Diagnostic{File: cfg.Ledger(), Line: p.Line, Severity: "warning", Code: "bad_ledger_line",
			Message: p.Message + "; the line is ignored (the ledger is append-only: add a corrected line)"})
	}
	return out
}

// parseOverlay is ParseOverlay, answered from the stored snapshot when it
// holds the same text decoded.
func (r *Reader) parseOverlay(file string, text []byte) (*Overlay, []entry.Diagnostic) {
	if ov, diags, ok := r.decoded.overlay(file, text); ok {
		return ov, diags
	}
	return ParseOverlay(file, text)
}

// readConfig reads the configuration: from dec (the stored snapshot's)
// when its text is unchanged, else parsed.
func (r *Reader) readConfig(dec *decoded) (*config.Config, []byte, error) {
	for _, cand := range config.Candidates() {
		data, err := readOptional(r.fs, cand)
		if err != nil {
			return nil, nil, err
		}
		if data == nil {
			// A configuration reached through a link that leaves the
			// repository (or an absolute link, resolved inside it) is not
			// read: say so rather than answer with the defaults.
			if fi, err := r.fs.Lstat(link.FSPath(cand)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				target, _ := r.fs.Readlink(link.FSPath(cand))
				return nil, nil, apierr.Invalid("%s is a symbolic link to %s, which is outside the repository or missing (absolute links are not followed); kontext reads its configuration only from inside the repository: replace the link with the file or remove it", cand, target)
			}
			continue
		}
		if cfg := dec.config(cand, data); cfg != nil {
			return cfg, data, nil
		}
		cfg, err := config.Parse(cand, data)
		if err != nil {
			return nil, nil, err
		}
		return cfg, data, nil
	}
	return config.Defaults(), nil, nil
}

type listed struct {
	path   string
	info   os.FileInfo
	target string // the resolved file when path is reached through a symlink
}

// job is one file to read, with its source.
type job struct {
	listed
	src *entry.Source
}

// list returns the record files of src, sorted, skipping directories that
// belong to other sources. The directory listing's file infos serve as the
// stat data of the parse cache, so an unchanged file costs no extra stat.
// Symlinks are followed only inside the repository; the others come back
// as diagnostics. Markdown files that are not records come back as skipped.
func (r *Reader) list(srcp *entry.Source, sourceDirs map[string]bool) ([]job, []Skipped, []entry.Diagnostic, error) {
	src := *srcp
	var out []job
	var skipped []Skipped
	var diags []entry.Diagnostic
	// display is the path as listed (where links sit), real the same
	// directory with its links resolved; stack holds the real directories
	// being walked, to stop directory loops.
	var walk func(display, real string, stack []string) error
	walk = func(display, real string, stack []string) error {
		infos, err := r.fs.ReadDir(link.FSPath(real))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return apierr.Wrap(apierr.OperationFailed, err, "reading %s", displayDir(display))
		}
		stack = append(stack, real)
		if cap(out)-len(out) < len(infos) { // grown once per directory, not by doubling
			out = append(make([]job, 0, len(out)+len(infos)), out...)
		}
		// path.Join(display, name), without cleaning each file's path
		// again when display is clean (a listed name holds no "/" and is
		// never "." or "..").
		prefix, clean := display+"/", path.Clean(display) == display
		if display == "" || display == "." {
			prefix, clean = "", true
		}
		if clean && real == display {
			infos = plainFiles(infos, prefix, srcp, &out, &skipped)
		}
		for _, fi := range infos {
			rel := prefix + fi.Name()
			if !clean {
				rel = path.Join(display, fi.Name())
			}
			if hasControl(fi.Name()) {
				// git quotes such names and no tree lookup accepts them: one file must not
				// fail the whole read, so it is a diagnostic and the rest is read.
				if isLink(fi) || fi.IsDir() || entry.IsRecordFile(rel, src) {
					diags = append(diags, entry.Diagnostic{File: rel, Severity: "error", Code: entry.CodeBadFileName,
						Message: fmt.Sprintf("the name %q holds a control character (tab, newline, …) and is not read; rename it", fi.Name())})
				}
				continue
			}
			if isLink(fi) {
				if err := r.followLink(rel, srcp, stack, walk, &out, &diags); err != nil {
					return err
				}
				continue
			}
			if fi.IsDir() {
				if skipDirs[fi.Name()] || (sourceDirs[rel] && rel != src.Dir) {
					continue
				}
				if err := walk(rel, path.Join(real, fi.Name()), stack); err != nil {
					return err
				}
				continue
			}
			if fi.Mode().IsRegular() && entry.IsRecordFile(rel, src) {
				l := job{listed{path: rel, info: fi}, srcp}
				if real != display {
					l.target = path.Join(real, fi.Name())
				}
				out = append(out, l)
			} else if why := skipReason(rel, src); why != "" && fi.Mode().IsRegular() {
				skipped = append(skipped, Skipped{File: rel, Reason: why})
			}
		}
		return nil
	}
	real, d, err := r.resolvedDir(src.Dir)
	switch {
	case err != nil:
		return nil, nil, nil, err
	case d != nil:
		return nil, nil, []entry.Diagnostic{*d}, nil
	}
	if fi, err := r.fs.Stat(link.FSPath(real)); err == nil && fi.Mode().IsRegular() {
		// A source may name one file, such as the legacy .cursorrules.
		if entry.IsRecordFile(src.Dir, src) {
			l := job{listed{path: src.Dir, info: fi}, srcp}
			if real != src.Dir {
				l.target = real
			}
			out = append(out, l)
		}
		return out, nil, nil, nil
	}
	if err := walk(src.Dir, real, nil); err != nil {
		return nil, nil, nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, skipped, diags, nil
}

// plainFiles lists the leading regular files of infos, a directory's
// entries, up to the first directory, link or name with a control
// character, and returns the entries from there on for list's walk (in
// order, as the walk lists them). The directory is clean and reached
// without a link, so a file's path is prefix + its name; src's records go
// onto out, its skipped Markdown files onto skipped. It is list's loop for
// nearly every file, kept apart from the walk: in WASM, V8 optimises a
// function by the work its loops do times its size, and the walk is large
// (docs/architecture.md, "V8's tiers").
func plainFiles(infos []os.FileInfo, prefix string, srcp *entry.Source, out *[]job, skipped *[]Skipped) []os.FileInfo {
	for k, fi := range infos {
		if !fi.Mode().IsRegular() || hasControl(fi.Name()) {
			return infos[k:]
		}
		rel := prefix + fi.Name()
		if entry.IsRecordFile(rel, *srcp) {
			*out = append(*out, job{listed{path: rel, info: fi}, srcp})
		} else if why := skipReason(rel, *srcp); why != "" {
			*skipped = append(*skipped, Skipped{File: rel, Reason: why})
		}
	}
	return nil
}

// joinLists is the listings one after another, each file once (the
// first listing that has it keeps it).
func joinLists(lists [][]job, total int) []job {
	jobs := make([]job, 0, total)
	if !hasDuplicate(lists) && increasing(lists) { // nearly always: no file to look up in a set
		for _, l := range lists {
			jobs = append(jobs, l...)
		}
		return jobs
	}
	seen := make(map[string]bool, total)
	for _, l := range lists {
		for _, j := range l {
			if !seen[j.path] {
				seen[j.path] = true
				jobs = append(jobs, j)
			}
		}
	}
	return jobs
}

// increasing reports whether each listing's paths strictly increase (so
// none holds a path twice), as hasDuplicate assumes.
func increasing(lists [][]job) bool {
	for _, l := range lists {
		for k := 1; k < len(l); k++ {
			if l[k-1].path >= l[k].path {
				return false
			}
		}
	}
	return true
}

// hit returns c, the cached parse of j's path (nil for none), when j's
// stat data (and, with a store, its file identity) and its source are
// unchanged.
func (r *Reader) hit(j job, c *cached) *cached {
	if c == nil || c.size != j.info.Size() || !keyIs(c.key, j.src, j.target) {
		return nil
	}
	if c.portable {
		return c // racy: its content is hashed before it is trusted
	}
	if !c.mod.Equal(j.info.ModTime()) || j.info.ModTime().IsZero() {
		return nil
	}
	if r.store != nil && c.id != r.store.FileID(j.info) {
		return nil
	}
	return c
}

// recheck reads a racy file and reports whether its content is still the
// one parsed. It touches no shared state (racy files are checked in
// parallel).
func (r *Reader) recheck(j job, c *cached) bool {
	from := j.path
	if j.target != "" {
		from = j.target
	}
	data, lent, err := readLent(r.fs, from)
	ok := err == nil && data != nil && c.blob != "" && check64(data) == c.check
	if ok && c.raw != "" && c.raw[0] >= parseText {
		if lent {
			c.text = unsafe.String(unsafe.SliceData(data), len(data)) // never changed: see Lender
		} else {
			c.text = string(data)
		}
	}
	return ok
}

// parse reads and parses one file. It touches no shared state, so misses
// are parsed in parallel.
func (r *Reader) parse(file, target string, fi os.FileInfo, src entry.Source) *cached {
	c := &cached{size: fi.Size(), mod: fi.ModTime()}
	if fi.Size() > entry.MaxFileSize {
		c.diags = []entry.Diagnostic{{File: file, Severity: "error", Code: entry.CodeTooLarge,
			Message: fmt.Sprintf("file is %d bytes; entry files are limited to %d bytes", fi.Size(), entry.MaxFileSize)}}
		return c
	}
	from := file
	if target != "" {
		from = target // content from the link's target
	}
	data, err := readOptional(r.fs, from)
	if err != nil {
		// size -1 never hits: an unreadable file is tried again next read.
		return &cached{size: -1, diags: []entry.Diagnostic{{File: file, Severity: "error", Code: "unreadable", Message: err.Error()}}}
	}
	c.blob, c.check = BlobID(data), check64(data)
	c.entry, c.diags = entry.Parse(file, data, src)
	if c.entry != nil {
		c.diags = append(c.diags, globDiagnostics(c.entry)...)
	}
	return c
}

// parallel runs fn(0..n-1) on up to GOMAXPROCS goroutines. Not inlined:
// with fn inlined into its caller's loop, Read became a function whose
// loop runs long, which the WASM runtime compiles again (see lookup).
//
//go:noinline
func parallel(n int, fn func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// BlobID is the git blob id (SHA-1) of content.
func BlobID(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:])
}

// Lender is a filesystem that lends a file's bytes instead of copying
// them: it never changes them afterwards, nor while it serves them (the
// WASM engine's read-only files, slices of the buffer they were opened
// from). A racy check of every file of a bundle then copies nothing.
type Lender interface {
	// Lend returns the content of the file name, false when the file
	// system cannot lend it (the caller reads it as usual).
	Lend(name string) ([]byte, bool)
}

// readLent is readOptional, the bytes lent (lent true) when fs lends
// them: the caller must not change them.
func readLent(fs billy.Filesystem, name string) (data []byte, lent bool, err error) {
	if l, ok := fs.(Lender); ok {
		if data, ok := l.Lend(link.FSPath(name)); ok {
			return data[:min(len(data), entry.MaxFileSize*64)], true, nil // as readOptional reads
		}
	}
	data, err = readOptional(fs, name)
	return data, false, err
}

func readOptional(fs billy.Filesystem, name string) ([]byte, error) {
	f, err := fs.Open(link.FSPath(name))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, entry.MaxFileSize*64))
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
	}
	return data, nil
}

// hasControl reports whether a file name holds an ASCII control character.
// Not inlined: its loop would charge plainFiles' size for every byte of
// every listed name (docs/architecture.md, "V8's tiers").
//
//go:noinline
func hasControl(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			return true
		}
	}
	return false
}

func displayDir(d string) string {
	if d == "" {
		return "the repository root"
	}
	return d
}

// KindRank orders kinds: decision, convention, learning, incident, architecture.
func KindRank(kind string) int {
	for i, k := range entry.Kinds {
		if k == kind {
			return i
		}
	}
	return len(entry.Kinds)
}

func sortEntries(es []*entry.Entry) {
	sort.Slice(es, func(i, j int) bool {
		ri, rj := KindRank(es[i].Kind), KindRank(es[j].Kind)
		if ri != rj {
			return ri < rj
		}
		return es[i].ID < es[j].ID
	})
}

func snapshotID(s *Snapshot) string {
	h := sha256.New()
	put := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(p))
		}
	}
	put("kontext-snapshot-1\x00config\x00", strconv.Itoa(len(s.ConfigText)), "\x00")
	h.Write(s.ConfigText)
	files := make([]string, 0, len(s.blobs))
	for f := range s.blobs {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		put("file\x00", f, "\x00", s.blobs[f], "\n")
	}
	put("ledger\x00", BlobID(s.Ledger), "\x00head\x00", s.Head)
	if s.Overlay != nil {
		put("\x00overlay\x00", BlobID(s.Overlay))
	}
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:16])
}

// globDiagnostics reports invalid and root-only patterns of e.
func globDiagnostics(e *entry.Entry) []entry.Diagnostic {
	var out []entry.Diagnostic
	{
		for _, raw := range e.Paths {
			p, err := match.Compile(raw)
			if err != nil {
				out = append(out, entry.Diagnostic{File: e.File, Severity: "warning", Code: entry.CodeBadGlob,
					Message: fmt.Sprintf("pattern %q is invalid and never matches: %v", raw, err)})
				continue
			}
			if !p.Negated && match.RootOnly(p) {
				out = append(out, entry.Diagnostic{File: e.File, Severity: "warning", Code: entry.CodeRootOnlyPattern,
					Message: fmt.Sprintf("pattern %q only matches files at the repository root; write %q to match at any depth", raw, "**/"+p.Glob)})
			}
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func clone(e *entry.Entry) *entry.Entry {
	c := *e
	c.Supersedes = append([]string{}, e.Supersedes...)
	c.SupersededBy = append([]string{}, e.SupersededBy...)
	c.Links = append([]entry.TypedLink{}, e.Links...)
	return &c
}

// NewSnapshot is a snapshot of entries alone (tests build states with it).
func NewSnapshot(entries []*entry.Entry) *Snapshot { return &Snapshot{entries: entries} }

// Entries are every entry, sorted by kind and id. (Not inlined: it is
// called in many places, and each copy grew the WASM engine.)
//
//go:noinline
func (s *Snapshot) Entries() []*entry.Entry {
	if s.lazy != nil {
		return s.lazy.every()
	}
	return s.entries
}

// Len is the number of entries.
func (s *Snapshot) Len() int {
	if s.lazy != nil {
		return s.lazy.len()
	}
	return len(s.entries)
}

// Entry is Entries()[i], decoding only that entry of a stored snapshot.
func (s *Snapshot) Entry(i int) *entry.Entry {
	if s.lazy != nil {
		return s.lazy.entry(i)
	}
	return s.entries[i]
}

// IDAt is Entries()[i].ID, read without decoding the entry of a stored
// snapshot.
func (s *Snapshot) IDAt(i int) string {
	if s.lazy != nil {
		return s.lazy.id(i)
	}
	return s.entries[i].ID
}

// Blob is the git blob id of file's content as read ("" for a file that
// is not a record file or was too large to read). (Not inlined: the WASM
// engine's size.)
//
//go:noinline
func (s *Snapshot) Blob(file string) string {
	if s.blobsFrom != nil {
		return s.blobsFrom.blob(file)
	}
	return s.blobs[file]
}

// Tally is what status reports about the entries; a native stored
// snapshot keeps it, so a warm status decodes no entry.
type Tally struct {
	Counts  map[string]map[string]int // kind → status ("none" for none) → entries
	Reviews []Review                  // the entries with a review date, in entry order
}

// Review is an entry's review date.
type Review struct{ ID, By string }

// Tally counts the entries by kind and status.
func (s *Snapshot) Tally() Tally {
	if s.tally != nil {
		return *s.tally
	}
	t := Tally{Counts: map[string]map[string]int{}}
	for _, e := range s.entries {
		st := e.Status
		if st == "" {
			st = "none"
		}
		if t.Counts[e.Kind] == nil {
			t.Counts[e.Kind] = map[string]int{}
		}
		t.Counts[e.Kind][st]++
		if e.ReviewBy != "" {
			t.Reviews = append(t.Reviews, Review{e.ID, e.ReviewBy})
		}
	}
	return t
}

// ids is the entries by id, built at first use for a decoded snapshot.
func (s *Snapshot) ids() map[string]*entry.Entry {
	s.byIDOnce.Do(func() {
		if s.byID != nil {
			return
		}
		es := s.Entries()
		m := make(map[string]*entry.Entry, len(es))
		for _, e := range es {
			m[e.ID] = e
		}
		s.byID = m
	})
	return s.byID
}

// keyIs reports whether k is srcKey(*src, target), without building it.
func keyIs(k string, src *entry.Source, target string) bool {
	for i, part := range [...]string{src.Kind, src.Style, src.Dir, target} {
		if len(k) < len(part) || k[:len(part)] != part {
			return false
		}
		k = k[len(part):]
		if i < 3 {
			if k == "" || k[0] != 0 {
				return false
			}
			k = k[1:]
		}
	}
	return k == ""
}

// hasDuplicate reports whether two listings (each sorted) hold one file.
// Listings of distinct directories cover disjoint ranges of paths: only
// overlapping ones are searched.
func hasDuplicate(lists [][]job) bool {
	for i, a := range lists {
		for _, b := range lists[:i] {
			if len(a) == 0 || len(b) == 0 || a[len(a)-1].path < b[0].path || b[len(b)-1].path < a[0].path {
				continue
			}
			for _, j := range a {
				if k := sort.Search(len(b), func(k int) bool { return b[k].path >= j.path }); k < len(b) && b[k].path == j.path {
					return true
				}
			}
		}
	}
	return false
}
