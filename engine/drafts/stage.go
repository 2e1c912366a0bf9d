package drafts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts/inbox"
	"github.com/kontext/kontext/engine/internal/edit"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/fold"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/match"
	"github.com/kontext/kontext/engine/internal/render"
)

func runStage(ctx context.Context, e *draft, in *api.StageInput) (any, error) {
	if in.Amends != nil {
		return e.runAmend(ctx, in) // amend.go
	}
	switch {
	case in.Entry == nil && in.CandidateID == "" && in.Fingerprint != "":
		stored, res, err := e.storedStageInput(in) // resume a stored plan (operations.go)
		if res != nil || err != nil {
			return res, err
		}
		in = stored
		if in.Amends != nil {
			return e.runAmend(ctx, in) // a stored amend resumes as an amend
		}
	case in.Entry == nil && in.CandidateID == "":
		return nil, apierr.Invalid("pass entry (a new entry) or candidate_id (an inbox candidate)")
	}
	fp := in.Fingerprint
	if fp == "" {
		fp = fingerprint(in)
	}
	if e.Options().Nested != nil {
		se := in.Entry
		if in.CandidateID != "" {
			se = nil
			if c, _, _, err := e.stageCandidate(in.CandidateID); err == nil {
				se = c
				if in.Entry != nil {
					se = reworded(c, in.Entry)
				}
			} else if repo := e.routedPlan(in.OperationID, fp); repo != "" {
				// promoted by a routed write that died before its receipt here
				return e.resumeRouted(ctx, repo, in, fp) // nested.go
			}
		}
		if se != nil {
			if repo := nestedRepository(e.FS(), se.Paths); repo != "" {
				return e.routeStage(ctx, repo, in, se, fp) // nested.go
			}
		}
	}
	var cand map[string]any
	var candName string
	var evidence []api.EvidenceResult
	var related []api.Candidate
	var relatedModel *api.RelatedModel
	plan := func(st *engine.State) ([]change, string, []string, error) {
		se := in.Entry
		if in.CandidateID != "" {
			var err error
			se, cand, candName, err = e.stageCandidate(in.CandidateID)
			if err != nil {
				return nil, "", nil, err
			}
			if in.Entry != nil {
				se = reworded(se, in.Entry)
			}
		}
		copied := *se
		results, refs, section, err := e.stageEvidence(ctx, se.Evidence)
		if err != nil {
			return nil, "", nil, err
		}
		evidence = results
		if section != "" {
			copied.Body = strings.TrimRight(copied.Body, "\n") + section
		}
		files, target, notes, err := e.planNew(ctx, st, &copied, refs, in.RequestedPath, in.Source)
		if err == nil {
			related, relatedModel, _ = inbox.Related(ctx, e.Engine, engine.DraftText(copied.Title, copied.Summary, copied.Body), copied.Paths, copied.Supersedes)
		}
		return files, target, notes, err
	}
	after := func(st *engine.State, res *api.StageResult) error {
		for _, ev := range evidence {
			res.Evidence = append(res.Evidence, ev)
		}
		for _, c := range related {
			if c.ID != res.Entry.ID {
				res.RelatedEntries = append(res.RelatedEntries, c)
			}
		}
		if relatedModel != nil {
			m := &api.RelatedModel{Relations: []api.Relation{}, Model: relatedModel.Model}
			for _, r := range relatedModel.Relations {
				if r.ID == "" || r.ID != res.Entry.ID {
					m.Relations = append(m.Relations, r)
				}
			}
			res.RelatedModel = m
		}
		resolved, err := e.resolveChallenges(e.Options().Writer, res.Entry.Supersedes, res.Entry.ID)
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
		if err := e.markPromoted(cand, candName, in.CandidateID, res.Entry.ID); err != nil {
			return err
		}
		res.Notes = append(res.Notes, "promoted candidate "+in.CandidateID)
		return nil
	}
	return e.writeOpInput(ctx, "drafts.stage", in.OperationID, fp, in, plan, after)
}

// markPromoted records in a candidate's history that it became entry id.
func (e *draft) markPromoted(cand map[string]any, name, candidateID, id string) error {
	cand["state"] = "promoted"
	hist, _ := cand["history"].([]any)
	cand["history"] = append(hist, map[string]any{"at": e.Now().Format("2006-01-02T15:04:05Z"), "event": "promoted", "entry": id})
	data, err := json.MarshalIndent(cand, "", "  ")
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "updating candidate %s", candidateID)
	}
	if err := e.Options().Writer.WriteState(name, data); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "updating candidate %s", candidateID)
	}
	return nil
}

// reworded is a candidate staged with another wording (candidate_id with
// entry, e.g. after drafts.formalize): the fields entry sets replace the
// candidate's; the rest (evidence, verify, visibility…) stays the
// candidate's.
func reworded(cand, w *api.StageEntry) *api.StageEntry {
	out := *cand
	set := func(dst *string, v string) {
		if strings.TrimSpace(v) != "" {
			*dst = v
		}
	}
	set(&out.Kind, w.Kind)
	set(&out.Title, w.Title)
	set(&out.Body, w.Body)
	set(&out.Summary, w.Summary)
	set(&out.Status, w.Status)
	if w.Paths != nil {
		out.Paths = w.Paths
	}
	if w.Tags != nil {
		out.Tags = w.Tags
	}
	return &out
}

// stageCandidate reads a pending inbox candidate (tolerant of fields it
// does not know).
func (e *draft) stageCandidate(id string) (*api.StageEntry, map[string]any, string, error) {
	if id != strings.TrimSpace(id) || strings.ContainsAny(id, "/\\") || strings.HasPrefix(id, ".") {
		return nil, nil, "", jsonin.Errorf("candidate_id", "%q is not a candidate id", id)
	}
	name := "inbox/" + id + ".json"
	data, ok, err := e.Options().Writer.ReadState(name)
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
	var se api.StageEntry
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
	stageSHA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`) })
	ymd      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })
)

// kindDir finds the configured kind whose own directory holds rel (or is
// rel); "" when none. readOnly is set when rel lies in an include.
func kindDir(st *engine.State, rel string) (kind string, readOnly bool) {
	best := -1
	for _, src := range st.Cfg.Sources() {
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
func (e *draft) cleanRequested(p string) (string, error) {
	raw := p
	p = strings.TrimSpace(p)
	if p == "" || strings.Contains(p, "\\") || strings.HasPrefix(p, "/") || filepath.IsAbs(p) || (len(p) > 1 && p[1] == ':') {
		return "", jsonin.Errorf("requested_path", "%q must be a repo-relative path with / separators", raw)
	}
	if strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return "", jsonin.Errorf("requested_path", "%q contains a NUL or control character", raw)
	}
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		if seg == ".." {
			return "", jsonin.Errorf("requested_path", "%q leaves the kind directory (..)", raw)
		}
		if strings.EqualFold(seg, ".git") {
			return "", jsonin.Errorf("requested_path", "%q goes through .git; kontext never writes into the git directory", raw)
		}
	}
	dirOnly := strings.HasSuffix(p, "/")
	p = path.Clean(p)
	fs := e.FS()
	// A path with another extension than .md would be taken for a
	// directory and the entry written inside it (notes.txt/…): say so.
	if ext := path.Ext(p); ext != "" && ext != ".md" && !dirOnly {
		if fi, err := fs.Stat(p); err != nil || !fi.IsDir() {
			return "", jsonin.Errorf("requested_path", "%q names a %s file, but an entry is a Markdown file: end it with .md for the file, or with / for a directory to write into", raw, ext)
		}
	}
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
func (e *draft) planNew(ctx context.Context, st *engine.State, se *api.StageEntry, extraRefs []string, requested, source string) ([]change, string, []string, error) {
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
	kc := st.Cfg.Kinds[kind]
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
	if !slices.Contains(allowed, status) {
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
	if repo := nestedRepository(e.FS(), se.Paths); repo != "" {
		return nil, "", nil, nestedError(repo)
	}
	for _, t := range se.Tags {
		if strings.TrimSpace(t) == "" || strings.ContainsAny(t, "\r\n") {
			return nil, "", nil, jsonin.Errorf("entry.tags", "tags are non-empty single lines, got %q", t)
		}
	}
	for _, c := range se.Commits {
		if !stageSHA().MatchString(c) {
			return nil, "", nil, jsonin.Errorf("entry.commits", "%q is not a full commit sha", c)
		}
	}
	date := e.Today()
	if se.ReviewBy != "" {
		if !ymd().MatchString(se.ReviewBy) {
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
		en, err := st.Snap.Lookup(ref)
		if err != nil {
			if apierr.CodeOf(err) == apierr.NotFound {
				return nil, "", nil, apierr.New(apierr.UnknownEntry, "entry.extends: the repository has no entry %q", ref)
			}
			return nil, "", nil, err
		}
		if en.Kind == "decision" {
			return nil, "", nil, apierr.New(apierr.DecisionNotAmended, "%s is a decision; decisions are not extended, supersede it instead", en.ID)
		}
		if !slices.Contains(extends, en.ID) {
			extends = append(extends, en.ID)
		}
	}
	var olds []*entry.Entry
	for _, ref := range se.Supersedes {
		en, err := st.Snap.Lookup(ref)
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
		if err := e.committedOnce(ctx, st, en, "superseding"); err != nil {
			return nil, "", nil, err
		}
		if err := unstagedEdits(st, en.File); err != nil {
			return nil, "", nil, err
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
	fs := e.FS()
	exists := func(p string) bool { _, err := fs.Lstat(p); return err == nil }
	dir := kc.Dir
	slug := fold.Slug(title, 60)
	if slug == "" {
		slug = "entry"
	}
	var target, id string
	adrNum, width := 0, 4
	dated := style == entry.StyleADR && datedLog(st, dir)
	if style == entry.StyleADR && !dated {
		adrNum, width = nextADR(st, fs, dir, e.namesOnRefs(ctx, dir))
	}
	if reqPath != "" && path.Ext(reqPath) == ".md" {
		target, id = reqPath, entry.StemID(reqPath)
		if style == entry.StyleADR {
			if _, isDate := entry.DatePrefix(id); isDate {
				adrNum = 0
			} else if n, ok := entry.ParseADRNumber(strings.SplitN(id, "-", 2)[0]); ok {
				adrNum = n
			}
		}
		if other, ok := st.Snap.ByID(id); ok && other.File != target {
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
			if dated {
				id = strings.ReplaceAll(date, "-", "") + "-" + s
			} else if style == entry.StyleADR {
				id = strings.TrimSuffix(render.FileName(adrNum, width, s), ".md")
			} else {
				id = date + "-" + s
			}
			target = path.Join(dir, id+".md")
			if _, taken := st.Snap.ByID(id); !taken && !exists(target) {
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
	re.ExternalRefs = append(re.ExternalRefs, extraRefs...)
	newRef := title
	if style == entry.StyleADR && adrNum > 0 {
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
	// Checked before anything is planned: a file kontext could not read
	// back is bad input, never a stored plan.
	if len(data) > entry.MaxFileSize {
		return nil, "", nil, jsonin.Errorf("entry.body", "makes an entry file of %d bytes; entry files are limited to %d bytes (1 MiB): shorten it or link to the details", len(data), entry.MaxFileSize)
	}
	parsed, _ := entry.Parse(target, data, entry.Source{Kind: kind, Style: style})
	if parsed == nil || parsed.Title != title {
		return nil, "", nil, jsonin.Errorf("entry.title", "%q does not read back as the same title once written (Markdown heading markers?); pass plain text", title)
	}
	if parsed.ID != id {
		return nil, "", nil, apierr.New(apierr.OperationFailed, "the rendered entry does not read back as written; please report it with the input")
	}
	files = append([]change{{path: target, data: data, isNew: true}}, files...)
	for _, repo := range spansNested(e.FS(), se.Paths) {
		notes = append(notes, fmt.Sprintf("some paths lie inside the nested repository %s: this entry stays in this repository and governs them from here; %s's own reads do not see it", repo, repo))
	}
	return files, target, notes, nil
}

// validVerify checks a verify command: one line of at most 500 characters.
func validVerify(field, v string) error {
	if strings.ContainsAny(v, "\r\n") || utf8.RuneCountInString(strings.TrimSpace(v)) > 500 {
		return jsonin.Errorf(field, "must be one line of at most 500 characters")
	}
	return nil
}

var leadingDigits = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)-`) })

// nextADR returns the next ADR number of dir and the zero-padded width its
// files use (default 4).
func nextADR(st *engine.State, fs interface {
	ReadDir(string) ([]os.FileInfo, error)
}, dir string, onRefs []string) (int, int) {
	max, width := 0, 0
	consider := func(name string) {
		m := leadingDigits().FindStringSubmatch(name)
		if m == nil {
			return
		}
		if _, isDate := entry.DatePrefix(strings.TrimSuffix(name, ".md")); isDate {
			return // log4brains' 20241201-x is a date, not a number
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
	for _, en := range st.Snap.Entries() {
		if path.Dir(en.File) == dir {
			consider(path.Base(en.File))
		}
	}
	for _, name := range onRefs {
		consider(name)
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
		edited, err = adrStatusEdit(o, "Superseded by ["+newRef+"]("+link+")")
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
