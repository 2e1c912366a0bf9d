//go:build !js

// Write operations are native only: the in-memory (WASM) engine has no
// Writer, so they are left out of its build to keep the wasm small.

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/edit"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/fold"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/match"
	"github.com/kontext/kontext/engine/internal/render"
)

// StageEntry is the entry object of drafts.stage.
type StageEntry struct {
	Kind       string          `json:"kind,omitempty" jsonschema:"description=decision (or adr), convention, learning, incident, architecture; inferred from requested_path when it names a kind directory."`
	Title      string          `json:"title,omitempty" jsonschema:"description=One line; the id is YYYY-MM-DD-<slug of the title>."`
	Body       string          `json:"body,omitempty" jsonschema:"description=Markdown body."`
	Summary    string          `json:"summary,omitempty" jsonschema:"description=One line for lists and briefs."`
	Paths      []string        `json:"paths,omitempty" jsonschema:"description=Glob patterns of the governed files (! excludes)."`
	Tags       []string        `json:"tags,omitempty"`
	Status     string          `json:"status,omitempty" jsonschema:"description=Default: proposed for decisions, active otherwise."`
	Supersedes []string        `json:"supersedes,omitempty" jsonschema:"description=Entries this one replaces; each gets status superseded and superseded_by."`
	Extends    []string        `json:"extends,omitempty" jsonschema:"description=Entries (not decisions) this one builds on; at most 20."`
	Visibility string          `json:"visibility,omitempty" jsonschema:"enum=team,enum=private,description=private entries are never written into team storage."`
	Commits    []string        `json:"commits,omitempty" jsonschema:"description=Full commit shas."`
	ReviewBy   string          `json:"review_by,omitempty" jsonschema:"description=YYYY-MM-DD, not before the date."`
	Verify     string          `json:"verify,omitempty" jsonschema:"description=One command line (at most 500 characters)."`
	Evidence   json.RawMessage `json:"evidence,omitempty" jsonschema:"description=Up to 50 {ref; quote?}: refs go into extra.external_refs and with their verification into a ## Evidence section."`

	extraRefs []string // evidence refs for extra.external_refs (set by runStage)
}

// StageAmends is the amends object of drafts.stage.
type StageAmends struct {
	ID       string `json:"id" jsonschema:"required"`
	Revision string `json:"revision" jsonschema:"required"`
}

// StageInput is the input of drafts.stage.
type StageInput struct {
	DirInput
	Entry         *StageEntry  `json:"entry,omitempty" jsonschema:"description=The new entry (or pass candidate_id)."`
	CandidateID   string       `json:"candidate_id,omitempty" jsonschema:"description=Promote this inbox candidate."`
	OperationID   string       `json:"operation_id" jsonschema:"required,description=Stable id of this write: a retry returns the first result (replayed: true)."`
	Source        string       `json:"source,omitempty" jsonschema:"description=A source reference (e.g. external:task/42@v7) kept in extra.external_refs."`
	RequestedPath string       `json:"requested_path,omitempty" jsonschema:"description=A kind directory or a file inside one; infers a missing kind."`
	Amends        *StageAmends `json:"amends,omitempty" jsonschema:"description=Append-only edit of a convention/learning/incident: entry.body is added under ## Added <date> (05-writes.md)."`
	Fingerprint   string       `json:"fingerprint,omitempty" jsonschema:"description=A stable hash of the original candidate; replaces the input fingerprint."`
}

// StageResult is the result of drafts.stage, drafts.retire and
// drafts.set_verify.
type StageResult struct {
	Entry              *Entry   `json:"entry"`
	Path               string   `json:"path"`
	Staged             bool     `json:"staged"`
	Notes              []string `json:"notes"`
	Replayed           bool     `json:"replayed"`
	Evidence           []any    `json:"evidence"`
	RelatedEntries     []any    `json:"related_entries"`
	ResolvedChallenges []any    `json:"resolved_challenges"`
}

func init() {
	register(operation{name: "drafts.stage", input: func() any { return &StageInput{} }, run: runStage, writes: true})
}

// change is one planned file write.
type change struct {
	path  string
	data  []byte
	isNew bool
}

// writeOp runs a write with an operation_id: replay, lock, plan receipt,
// plan (under the lock, on a fresh read), write, stage, done receipt.
func (e *Engine) writeOpInput(ctx context.Context, op, operationID, fp string, input any,
	plan func(st *state) (files []change, target string, notes []string, err error),
	after func(st *state, res *StageResult) error) (any, error) {
	if strings.TrimSpace(operationID) == "" {
		return nil, jsonin.Errorf("operation_id", "is required: a stable id of this write, reused on retries")
	}
	w, err := e.writer()
	if err != nil {
		return nil, err
	}
	// An unfinished plan is resumed under the lock (planOp).
	if res, err := replay(w, op, operationID, fp); res != nil || (err != nil && apierr.CodeOf(err) != apierr.OperationIncomplete) {
		return res, err
	}
	unlock, err := w.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	replayed, files, target, notes, err := e.planOp(ctx, w, op, operationID, fp, input, plan)
	if replayed != nil || err != nil {
		return replayed, err
	}
	var paths []string
	for _, f := range files {
		if err := w.WriteFile(f.path, f.data); err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "writing %s", f.path)
		}
		paths = append(paths, f.path)
	}
	faultpoint("after_write")
	if len(paths) > 0 {
		if err := w.Stage(ctx, paths...); err != nil {
			return nil, err
		}
	}
	faultpoint("after_stage")
	e.Forget(paths...)
	st2, err := e.read(ctx)
	if err != nil {
		return nil, err
	}
	var en *entry.Entry
	for _, x := range st2.snap.Entries {
		if x.File == target {
			en = x
		}
	}
	if en == nil {
		return nil, apierr.New(apierr.OperationFailed, "%s was written but does not read as an entry; check kontext list --all diagnostics", target)
	}
	views, err := e.views(ctx, st2, []*entry.Entry{en})
	if err != nil {
		return nil, err
	}
	if notes == nil {
		notes = []string{}
	}
	res := &StageResult{Entry: views[0], Path: target, Staged: true, Notes: notes,
		Evidence: []any{}, RelatedEntries: []any{}, ResolvedChallenges: []any{}}
	if after != nil {
		if err := after(st2, res); err != nil {
			return nil, err
		}
	}
	done, err := json.Marshal(res)
	if err == nil {
		err = e.storeOpReceipt(w, receipt{State: "done", Operation: op, Fingerprint: fp, Result: done}, operationID)
	}
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "storing the receipt")
	}
	return res, nil
}

func runStage(ctx context.Context, e *Engine, v any) (any, error) {
	in := v.(*StageInput)
	if in.Amends != nil {
		return e.runAmend(ctx, in) // amend.go
	}
	switch {
	case in.Entry != nil && in.CandidateID != "":
		return nil, apierr.Invalid("pass entry or candidate_id, not both")
	case in.Entry == nil && in.CandidateID == "" && in.Fingerprint != "":
		stored, res, err := e.storedStageInput(in) // resume a stored plan (operations.go)
		if res != nil || err != nil {
			return res, err
		}
		in = stored
	case in.Entry == nil && in.CandidateID == "":
		return nil, apierr.Invalid("pass entry (a new entry) or candidate_id (an inbox candidate)")
	}
	fp := in.Fingerprint
	if fp == "" {
		fp = fingerprint(in)
	}
	var cand map[string]any
	var candName string
	var evidence []EvidenceResult
	var related []Candidate
	plan := func(st *state) ([]change, string, []string, error) {
		se := in.Entry
		if in.CandidateID != "" {
			var err error
			se, cand, candName, err = e.stageCandidate(in.CandidateID)
			if err != nil {
				return nil, "", nil, err
			}
		}
		copied := *se
		results, refs, section, err := e.stageEvidence(ctx, se.Evidence)
		if err != nil {
			return nil, "", nil, err
		}
		evidence, copied.extraRefs = results, refs
		if section != "" {
			copied.Body = strings.TrimRight(copied.Body, "\n") + section
		}
		files, target, notes, err := e.planNew(st, &copied, in.RequestedPath, in.Source)
		if err == nil {
			related, _ = e.inboxRelated(ctx, copied.Title+"\n"+copied.Body, copied.Paths, copied.Supersedes)
		}
		return files, target, notes, err
	}
	after := func(st *state, res *StageResult) error {
		for _, ev := range evidence {
			res.Evidence = append(res.Evidence, ev)
		}
		for _, c := range related {
			if c.ID != res.Entry.ID {
				res.RelatedEntries = append(res.RelatedEntries, c)
			}
		}
		resolved, err := e.resolveChallenges(e.opts.Writer, res.Entry.Supersedes, res.Entry.ID)
		if err != nil {
			return err
		}
		res.ResolvedChallenges = resolved
		if cand == nil && in.CandidateID != "" { // a resumed plan did not read it
			cand, candName = e.resumeCandidate(in.CandidateID)
		}
		if cand == nil {
			return nil
		}
		cand["state"] = "promoted"
		hist, _ := cand["history"].([]any)
		cand["history"] = append(hist, map[string]any{"at": e.now().Format("2006-01-02T15:04:05Z"), "event": "promoted", "entry": res.Entry.ID})
		data, err := json.MarshalIndent(cand, "", "  ")
		if err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "updating candidate %s", in.CandidateID)
		}
		if err := e.opts.Writer.WriteState(candName, data); err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "updating candidate %s", in.CandidateID)
		}
		res.Notes = append(res.Notes, "promoted candidate "+in.CandidateID)
		return nil
	}
	return e.writeOpInput(ctx, "drafts.stage", in.OperationID, fp, in, plan, after)
}

// stageCandidate reads a pending inbox candidate (tolerant of fields it
// does not know).
func (e *Engine) stageCandidate(id string) (*StageEntry, map[string]any, string, error) {
	if id != strings.TrimSpace(id) || strings.ContainsAny(id, "/\\") || strings.HasPrefix(id, ".") {
		return nil, nil, "", jsonin.Errorf("candidate_id", "%q is not a candidate id", id)
	}
	name := "inbox/" + id + ".json"
	data, ok, err := e.opts.Writer.ReadState(name)
	if err != nil {
		return nil, nil, "", apierr.Wrap(apierr.OperationFailed, err, "reading candidate %s", id)
	}
	if !ok {
		return nil, nil, "", apierr.New(apierr.NotFound, "no candidate %q in this worktree's inbox; see inbox.list", id)
	}
	var cand map[string]any
	if err := json.Unmarshal(data, &cand); err != nil {
		return nil, nil, "", apierr.Wrap(apierr.OperationFailed, err, "candidate %s is unreadable", id)
	}
	if s, _ := cand["state"].(string); s != "" && s != "pending" {
		return nil, nil, "", apierr.New(apierr.OperationConflict, "candidate %s is %s, not pending", id, s)
	}
	if k, _ := cand["kind"].(string); k == "challenge" {
		return nil, nil, "", apierr.Invalid("candidate %s is a challenge, not an entry; it is resolved by staging a replacement that supersedes the entry", id)
	}
	var se StageEntry
	if raw, ok := cand["entry"]; ok {
		b, _ := json.Marshal(raw)
		_ = json.Unmarshal(b, &se) // tolerant: unknown fields are ignored
	}
	if se.Kind == "" {
		se.Kind, _ = cand["kind"].(string)
	}
	return &se, cand, name, nil
}

var (
	stageSHA = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
	ymd      = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

// kindDir finds the configured kind whose own directory holds rel (or is
// rel); "" when none. readOnly is set when rel lies in an include.
func kindDir(st *state, rel string) (kind string, readOnly bool) {
	best := -1
	for _, src := range st.cfg.Sources() {
		d := src.Dir
		if d == "." {
			d = ""
		}
		if d == "" || rel == d || strings.HasPrefix(rel, d+"/") {
			if len(d) > best {
				best, kind, readOnly = len(d), src.Kind, src.ReadOnly
			}
		}
	}
	return kind, readOnly
}

// cleanRequested validates a requested path: repo-relative, no "..", no
// symlink on the way.
func (e *Engine) cleanRequested(p string) (string, error) {
	raw := p
	p = strings.TrimSpace(p)
	if p == "" || strings.Contains(p, "\\") || strings.HasPrefix(p, "/") || filepath.IsAbs(p) || (len(p) > 1 && p[1] == ':') {
		return "", jsonin.Errorf("requested_path", "%q must be a repo-relative path with / separators", raw)
	}
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		if seg == ".." {
			return "", jsonin.Errorf("requested_path", "%q leaves the kind directory (..)", raw)
		}
	}
	p = path.Clean(p)
	fs := e.reader.FS()
	cur := ""
	for _, seg := range strings.Split(p, "/") {
		cur = path.Join(cur, seg)
		fi, err := fs.Lstat(cur)
		if err != nil {
			break
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", jsonin.Errorf("requested_path", "%q goes through the symlink %s; write into the kind directory itself", raw, cur)
		}
	}
	return p, nil
}

// planNew validates a new entry and plans its file plus the edits of the
// entries it supersedes.
func (e *Engine) planNew(st *state, se *StageEntry, requested, source string) ([]change, string, []string, error) {
	if se == nil {
		return nil, "", nil, jsonin.Errorf("entry", "is required")
	}
	var reqPath, reqKind string
	if requested != "" {
		p, err := e.cleanRequested(requested)
		if err != nil {
			return nil, "", nil, err
		}
		k, ro := kindDir(st, p)
		if k == "" || ro {
			return nil, "", nil, jsonin.Errorf("requested_path", "%q is not inside a kind directory kontext writes to", requested)
		}
		reqPath, reqKind = p, k
	}
	kindName := se.Kind
	if kindName == "" {
		kindName = reqKind
	}
	if kindName == "" {
		return nil, "", nil, jsonin.Errorf("entry.kind", "is required (decision, convention, learning, incident, architecture) unless requested_path names a kind directory")
	}
	kind, ok := entry.NormalizeKind(kindName)
	if !ok {
		return nil, "", nil, jsonin.Errorf("entry.kind", "unknown kind %q; use decision (or adr), convention, learning, incident or architecture", kindName)
	}
	if reqKind != "" && reqKind != kind {
		return nil, "", nil, jsonin.Errorf("requested_path", "%q is in the %s directory, not %s's", requested, reqKind, kind)
	}
	kc := st.cfg.Kinds[kind]
	if kc == nil {
		return nil, "", nil, jsonin.Errorf("entry.kind", "kind %q is not configured", kind)
	}
	style := kc.Style
	if style == "" {
		style = entry.StyleFrontmatter
	}
	if style != entry.StyleFrontmatter && style != entry.StyleADR {
		return nil, "", nil, apierr.Invalid("the %s directory %s uses the %s style, which kontext does not write", kind, kc.Dir, style)
	}
	title := strings.TrimSpace(se.Title)
	if title == "" || strings.ContainsAny(title, "\r\n") {
		return nil, "", nil, jsonin.Errorf("entry.title", "must be one non-empty line")
	}
	switch v := strings.ToLower(se.Visibility); v {
	case "", "team":
	case "private":
		return nil, "", nil, jsonin.Errorf("entry.visibility", "private entries are never written into team storage; keep it in this worktree's inbox (drafts.capture)")
	default:
		return nil, "", nil, jsonin.Errorf("entry.visibility", "must be team or private, got %q", se.Visibility)
	}
	status := strings.ToLower(strings.TrimSpace(se.Status))
	if status == "" {
		status = entry.DefaultStatus(kind)
	}
	allowed := []string{"active"}
	if kind == "decision" {
		allowed = []string{"proposed", "accepted", "rejected"}
	}
	if !contains(allowed, status) {
		return nil, "", nil, jsonin.Errorf("entry.status", "a new %s is %s, got %q", kind, strings.Join(allowed, " or "), se.Status)
	}
	if strings.ContainsAny(se.Summary, "\r\n") {
		return nil, "", nil, jsonin.Errorf("entry.summary", "must be one line")
	}
	if err := validVerify("entry.verify", se.Verify); err != nil {
		return nil, "", nil, err
	}
	for _, p := range se.Paths {
		if _, err := match.Compile(p); err != nil || strings.TrimSpace(p) == "" || strings.ContainsAny(p, "\r\n") {
			msg := "empty pattern"
			if err != nil {
				msg = err.Error()
			}
			return nil, "", nil, jsonin.Errorf("entry.paths", "invalid pattern %q: %s", p, msg)
		}
	}
	for _, t := range se.Tags {
		if strings.TrimSpace(t) == "" || strings.ContainsAny(t, "\r\n") {
			return nil, "", nil, jsonin.Errorf("entry.tags", "tags are non-empty single lines, got %q", t)
		}
	}
	for _, c := range se.Commits {
		if !stageSHA.MatchString(c) {
			return nil, "", nil, jsonin.Errorf("entry.commits", "%q is not a full commit sha", c)
		}
	}
	date := e.now().Format("2006-01-02")
	if se.ReviewBy != "" {
		if !ymd.MatchString(se.ReviewBy) {
			return nil, "", nil, jsonin.Errorf("entry.review_by", "must be YYYY-MM-DD, got %q", se.ReviewBy)
		}
		if d, ok := entry.ParseDate(se.ReviewBy); !ok || d < date {
			return nil, "", nil, jsonin.Errorf("entry.review_by", "%s is not a date on or after %s", se.ReviewBy, date)
		}
	}
	if len(se.Extends) > 20 {
		return nil, "", nil, jsonin.Errorf("entry.extends", "at most 20 entries, got %d", len(se.Extends))
	}
	var extends []string
	for _, ref := range se.Extends {
		en, err := st.snap.Lookup(ref)
		if err != nil {
			if apierr.CodeOf(err) == apierr.NotFound {
				return nil, "", nil, apierr.New(apierr.UnknownEntry, "entry.extends: the repository has no entry %q", ref)
			}
			return nil, "", nil, err
		}
		if en.Kind == "decision" {
			return nil, "", nil, apierr.New(apierr.DecisionNotAmended, "%s is a decision; decisions are not extended, supersede it instead", en.ID)
		}
		if !contains(extends, en.ID) {
			extends = append(extends, en.ID)
		}
	}
	var olds []*entry.Entry
	for _, ref := range se.Supersedes {
		en, err := st.snap.Lookup(ref)
		if err != nil {
			if apierr.CodeOf(err) == apierr.NotFound {
				return nil, "", nil, apierr.New(apierr.UnknownEntry, "entry.supersedes: the repository has no entry %q", ref)
			}
			return nil, "", nil, err
		}
		if en.ReadOnly && en.Style != entry.StyleADR {
			return nil, "", nil, apierr.Invalid("%s is a read-only %s rule file; kontext does not rewrite it, so it cannot be superseded", en.ID, en.Style)
		}
		if entry.Inactive(en.Status) {
			return nil, "", nil, apierr.New(apierr.OperationConflict, "%s is already %s; only active entries are superseded", en.ID, en.Status)
		}
		dup := false
		for _, o := range olds {
			dup = dup || o.ID == en.ID
		}
		if !dup {
			olds = append(olds, en)
		}
	}

	// Target file and id.
	fs := e.reader.FS()
	exists := func(p string) bool { _, err := fs.Lstat(p); return err == nil }
	dir := kc.Dir
	slug := fold.Slug(title, 60)
	if slug == "" {
		slug = "entry"
	}
	var target, id string
	adrNum, width := 0, 4
	if style == entry.StyleADR {
		adrNum, width = nextADR(st, fs, dir)
	}
	if reqPath != "" && path.Ext(reqPath) == ".md" {
		target, id = reqPath, entry.StemID(reqPath)
		if style == entry.StyleADR {
			if n, ok := entry.ParseADRNumber(strings.SplitN(id, "-", 2)[0]); ok {
				adrNum = n
			}
		}
		if other, ok := st.snap.ByID(id); ok && other.File != target {
			return nil, "", nil, apierr.New(apierr.OperationConflict, "the id %s is taken by %s", id, other.File)
		}
	} else {
		if reqPath != "" {
			dir = reqPath
		}
		for i := 1; ; i++ {
			s := slug
			if i > 1 {
				s = fmt.Sprintf("%s-%d", slug, i)
			}
			if style == entry.StyleADR {
				id = strings.TrimSuffix(render.FileName(adrNum, width, s), ".md")
			} else {
				id = date + "-" + s
			}
			target = path.Join(dir, id+".md")
			if _, taken := st.snap.ByID(id); !taken && !exists(target) {
				break
			}
		}
	}
	if !entry.IsRecordFile(target, entry.Source{Kind: kind, Style: style}) {
		return nil, "", nil, jsonin.Errorf("requested_path", "%q is not an entry file name (*.md, not README.md, index.md or a template)", requested)
	}

	re := render.Entry{
		Title: title, Status: status, Date: date, Summary: strings.TrimSpace(se.Summary),
		Paths: se.Paths, Tags: se.Tags, Extends: extends, ReviewBy: se.ReviewBy,
		Verify: strings.TrimSpace(se.Verify), Commits: se.Commits, Body: se.Body,
	}
	if source != "" {
		if strings.ContainsAny(source, "\r\n") {
			return nil, "", nil, jsonin.Errorf("source", "must be one line")
		}
		re.ExternalRefs = []string{source}
	}
	re.ExternalRefs = append(re.ExternalRefs, se.extraRefs...)
	newRef := title
	if style == entry.StyleADR {
		newRef = fmt.Sprintf("%d. %s", adrNum, title)
	}
	var files []change
	var notes []string
	for _, o := range olds {
		re.Supersedes = append(re.Supersedes, o.ID)
		oldRef := o.Title
		if o.HasADRNumber {
			oldRef = fmt.Sprintf("%d. %s", o.ADRNumber, o.Title)
		}
		re.Links = append(re.Links, render.Link{Text: oldRef, Target: relLink(path.Dir(target), o.File)})
		edited, err := supersedeEdit(o, id, newRef, relLink(path.Dir(o.File), target))
		if err != nil {
			return nil, "", nil, apierr.Wrap(apierr.OperationFailed, err, "marking %s superseded", o.File)
		}
		files = append(files, change{path: o.File, data: []byte(edited)})
		notes = append(notes, fmt.Sprintf("%s is now superseded by %s (%s staged)", o.ID, id, o.File))
	}
	var data []byte
	if style == entry.StyleADR {
		data = render.ADR(adrNum, width, re)
	} else {
		data = render.Frontmatter(re)
	}
	if old, err := util.ReadFile(fs, target); err == nil && string(old) != string(data) {
		return nil, "", nil, apierr.New(apierr.OperationConflict, "%s already exists with other content; pick another requested_path or title", target)
	}
	parsed, _ := entry.Parse(target, data, entry.Source{Kind: kind, Style: style})
	if parsed == nil || parsed.Title != title || parsed.ID != id {
		return nil, "", nil, apierr.New(apierr.OperationFailed, "the rendered entry does not read back as written; please report it with the input")
	}
	files = append([]change{{path: target, data: data, isNew: true}}, files...)
	return files, target, notes, nil
}

// validVerify checks a verify command: one line of at most 500 characters.
func validVerify(field, v string) error {
	if strings.ContainsAny(v, "\r\n") || utf8.RuneCountInString(strings.TrimSpace(v)) > 500 {
		return jsonin.Errorf(field, "must be one line of at most 500 characters")
	}
	return nil
}

var leadingDigits = regexp.MustCompile(`^(\d+)-`)

// nextADR returns the next ADR number of dir and the zero-padded width its
// files use (default 4).
func nextADR(st *state, fs interface {
	ReadDir(string) ([]os.FileInfo, error)
}, dir string) (int, int) {
	max, width := 0, 0
	consider := func(name string) {
		m := leadingDigits.FindStringSubmatch(name)
		if m == nil {
			return
		}
		var n int
		fmt.Sscanf(m[1], "%d", &n)
		if n > max {
			max = n
		}
		if len(m[1]) > width && strings.HasPrefix(m[1], "0") {
			width = len(m[1])
		}
	}
	if infos, err := fs.ReadDir(dir); err == nil {
		for _, fi := range infos {
			consider(fi.Name())
		}
	}
	for _, en := range st.snap.Entries {
		if path.Dir(en.File) == dir {
			consider(path.Base(en.File))
		}
	}
	if width == 0 {
		width = 4
	}
	return max + 1, width
}

// relLink is the relative link from a file in fromDir to file.
func relLink(fromDir, file string) string {
	if r, err := filepath.Rel(filepath.FromSlash(fromDir), filepath.FromSlash(file)); err == nil {
		return filepath.ToSlash(r)
	}
	return file
}

// supersedeEdit marks o superseded by newID: frontmatter status and
// superseded_by lines, or the first status line of an ADR.
func supersedeEdit(o *entry.Entry, newID, newRef, link string) (string, error) {
	text := o.Markdown
	var edited string
	var err error
	if o.Style == entry.StyleADR && !strings.HasPrefix(strings.TrimPrefix(text, "\ufeff"), "---") {
		edited, err = edit.SetADRStatus(text, "Superseded by ["+newRef+"]("+link+")")
	} else {
		by := append(append([]string{}, o.SupersededBy...), newID)
		edited, err = edit.SetFrontmatter(text, "status", "superseded")
		if err == nil {
			edited, err = edit.SetFrontmatter(edited, "superseded_by", render.FlowList(by, false))
		}
	}
	if err != nil {
		return "", err
	}
	return edited, checkEdited(o, edited, "superseded")
}

// checkEdited re-parses an edited file: the same entry with the new status.
func checkEdited(o *entry.Entry, edited, status string) error {
	after, _ := entry.Parse(o.File, []byte(edited), entry.Source{Kind: o.Kind, Style: o.Style, ReadOnly: o.ReadOnly})
	if after == nil || after.ID != o.ID || after.Title != o.Title || (status != "" && after.Status != status) ||
		strings.Join(after.Paths, "\x00") != strings.Join(o.OwnPaths(), "\x00") {
		return fmt.Errorf("the edited file no longer reads as the same entry; edit it by hand")
	}
	return nil
}
