// Package inbox is the local inbox of a worktree: captured candidates and
// challenges (drafts.capture, inbox.list/drop/verify/challenge), kept
// redacted under <git-dir>/kontext/inbox/ and never committed. Its writes
// go through the drafts transaction (Tx); engine/drafts builds the rows
// and uses the evidence, related-entry and candidate functions for
// drafts.stage.
package inbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/jsonin"
	"github.com/kontext/kontext/engine/internal/match"
	"github.com/kontext/kontext/engine/internal/redact"
	"github.com/kontext/kontext/engine/internal/render"
	"github.com/kontext/kontext/engine/internal/repopath"
)

// This file owns the local inbox: drafts.capture, inbox.list, inbox.drop,
// inbox.verify and inbox.challenge. Candidates live in this worktree's
// local state (<git-dir>/kontext/inbox/<id>.json), never in team storage.

const (
	inboxPending       = "pending"
	inboxDismissed     = "dismissed"
	inboxPromoted      = "promoted"
	inboxChallengeKind = "challenge"
	inboxMaxTitle      = 200
	inboxMaxEvidence   = 50
	inboxMaxQuote      = 200
	inboxMaxBecause    = 2000
)

var inboxIDRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^cand-[0-9a-f]{12}$`) })

func inboxFile(id string) string { return "inbox/" + id + ".json" }

func (e *box) inboxStamp() string { return e.Now().Format("2006-01-02T15:04:05Z") }

// inboxRedact redacts s, adding its findings to counts.
func inboxRedact(s string, counts map[string]int) string {
	out, c := redact.Text(s)
	for k, n := range c {
		counts[k] += n
	}
	return out
}

func inboxOneLine(field, s string, max int) error {
	if strings.ContainsAny(s, "\r\n") || utf8.RuneCountInString(s) > max {
		return jsonin.Errorf(field, "must be one line of at most %d characters", max)
	}
	return nil
}

// inboxCheckEntry validates and normalises a capture entry against the
// knowledge base of st.
func (e *box) inboxCheckEntry(st *engine.State, en *api.CaptureEntry) error {
	if strings.EqualFold(strings.TrimSpace(en.Kind), inboxChallengeKind) {
		return jsonin.Errorf("entry.kind", "challenge candidates are written by inbox.challenge (kontext challenge <id> --because …), not captured")
	}
	kind, ok := entry.NormalizeKind(en.Kind)
	if !ok {
		return jsonin.Errorf("entry.kind", "unknown kind %q; kinds are %s (alias adr)", en.Kind, strings.Join(entry.Kinds, ", "))
	}
	en.Kind = kind
	en.Title = strings.TrimSpace(en.Title)
	if en.Title == "" {
		return jsonin.Errorf("entry.title", "is empty; pass a one-line title")
	}
	if err := inboxOneLine("entry.title", en.Title, inboxMaxTitle); err != nil {
		return err
	}
	for _, raw := range en.Paths {
		if _, err := match.Compile(raw); err != nil {
			return jsonin.Errorf("entry.paths", "%q: %v", raw, err)
		}
		if _, err := repopath.Normalize(strings.TrimPrefix(raw, "!")); err != nil {
			return jsonin.Errorf("entry.paths", "%q: %v", raw, err)
		}
	}
	for _, t := range en.Tags {
		if strings.TrimSpace(t) == "" || strings.ContainsAny(t, "\r\n") {
			return jsonin.Errorf("entry.tags", "tags are non-empty single words or phrases, got %q", t)
		}
	}
	switch en.Visibility {
	case "", "team", "private":
	default:
		return jsonin.Errorf("entry.visibility", "must be team or private, got %q", en.Visibility)
	}
	if en.ReviewBy != "" {
		if _, err := time.Parse("2006-01-02", en.ReviewBy); err != nil {
			return jsonin.Errorf("entry.review_by", "must be a date YYYY-MM-DD, got %q", en.ReviewBy)
		}
	}
	if err := inboxOneLine("entry.verify", en.Verify, 500); err != nil {
		return err
	}
	for field, ids := range map[string][]string{"extends": en.Extends, "supersedes": en.Supersedes} {
		for _, id := range ids {
			if _, ok := st.Snap.ByID(strings.TrimSpace(id)); !ok {
				return apierr.New(apierr.UnknownEntry, "entry.%s names %q, which this repository does not have; list entries with entries.list", field, id)
			}
		}
	}
	if len(en.Evidence) > inboxMaxEvidence {
		return jsonin.Errorf("entry.evidence", "holds %d references; the limit is %d", len(en.Evidence), inboxMaxEvidence)
	}
	for _, ev := range en.Evidence {
		if _, err := inboxParseRef(ev.Ref); err != nil {
			return err
		}
		if utf8.RuneCountInString(ev.Quote) > inboxMaxQuote {
			return jsonin.Errorf("entry.evidence", "the quote of %q is longer than %d characters", ev.Ref, inboxMaxQuote)
		}
		if _, c := redact.Text(ev.Ref); len(c) > 0 {
			return jsonin.Errorf("entry.evidence", "ref %q holds personal data or a secret; refs name a pr, issue, task, code location or URL only", ev.Ref)
		}
	}
	if en.Paths == nil {
		en.Paths = []string{}
	}
	if en.Tags == nil {
		en.Tags = []string{}
	}
	return nil
}

// inboxRef is a parsed evidence reference.
type inboxRef struct {
	kind       string
	repo, rev  string
	path       string
	from, to   int // 1-based line range; 0 when absent
	identifier string
}

var inboxLineRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^L([0-9]+)(?:-L?([0-9]+))?$`) })

// inboxParseRef parses pr:, issue:, task:, code:<repo>@<rev>:<path>#La-b
// and url: refs; anything else is invalid_input.
func inboxParseRef(ref string) (*inboxRef, error) {
	bad := func(why string) error {
		return jsonin.Errorf("entry.evidence", "ref %q %s; forms: pr:<id>, issue:<id>, task:<id>, code:<repo>@<rev>:<path>#L<a>-<b>, url:<http(s) URL>", ref, why)
	}
	kind, rest, ok := strings.Cut(ref, ":")
	if !ok || strings.ContainsAny(ref, " \t\r\n") {
		return nil, bad("is not a reference")
	}
	r := &inboxRef{kind: kind}
	switch kind {
	case "pr", "issue", "task":
		if rest == "" {
			return nil, bad("has no id")
		}
		r.identifier = rest
	case "url":
		u, err := url.Parse(rest)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, bad("is not an http(s) URL")
		}
	case "code":
		repo, loc, ok := strings.Cut(rest, "@")
		if !ok || repo == "" {
			return nil, bad("names no repository")
		}
		rev, file, ok := strings.Cut(loc, ":")
		if !ok || rev == "" || file == "" {
			return nil, bad("needs <rev>:<path>")
		}
		file, lines, hasRange := strings.Cut(file, "#")
		if hasRange {
			m := inboxLineRange().FindStringSubmatch(lines)
			if m == nil {
				return nil, bad("has a line range other than #L<a>-<b>")
			}
			r.from, _ = strconv.Atoi(m[1])
			r.to = r.from
			if m[2] != "" {
				r.to, _ = strconv.Atoi(m[2])
			}
			if r.from < 1 || r.to < r.from {
				return nil, bad("has an empty line range")
			}
		}
		n, err := repopath.Normalize(file)
		if err != nil || n == "" {
			return nil, bad("has a path outside the repository")
		}
		r.repo, r.rev, r.path = repo, rev, n
	default:
		return nil, bad("has an unknown form")
	}
	return r, nil
}

// inboxThisRepo reports whether a code ref's repository names this one: ".",
// the root's directory name, or owner/<that name>.
func (e *box) inboxThisRepo(repo string) bool {
	if repo == "." {
		return true
	}
	base := path.Base(strings.ReplaceAll(e.Options().Root, "\\", "/"))
	if base == "" || base == "." || base == "/" {
		return false
	}
	repo = strings.TrimSuffix(repo, ".git")
	return repo == base || strings.HasSuffix(repo, "/"+base)
}

// inboxEvidence verifies quotes of code refs into this repository.
func (e *box) inboxEvidence(ctx context.Context, refs []api.CaptureEvidence) []api.EvidenceResult {
	out := make([]api.EvidenceResult, 0, len(refs))
	for _, ev := range refs {
		r, err := inboxParseRef(ev.Ref)
		if err != nil {
			continue // validated before
		}
		res := api.EvidenceResult{Ref: ev.Ref, Kind: r.kind, Quote: ev.Quote, Verification: "none"}
		if ev.Quote != "" {
			res.Verification = e.inboxVerifyQuote(ctx, r, ev.Quote)
		}
		out = append(out, res)
	}
	return out
}

func (e *box) inboxVerifyQuote(ctx context.Context, r *inboxRef, quote string) string {
	if r.kind != "code" || e.Options().History == nil || !e.inboxThisRepo(r.repo) {
		return "unverifiable"
	}
	sha, err := e.Options().History.Resolve(ctx, r.rev)
	if err != nil {
		return "unverifiable"
	}
	data, ok, err := e.Options().History.FileAt(ctx, sha, r.path)
	if err != nil {
		return "unverifiable"
	}
	if !ok {
		return "quote_not_found"
	}
	text := string(data)
	if r.from > 0 {
		lines := strings.Split(text, "\n")
		if r.from > len(lines) {
			return "quote_not_found"
		}
		text = strings.Join(lines[r.from-1:min(r.to, len(lines))], "\n")
	}
	if strings.Contains(inboxCollapse(text), inboxCollapse(quote)) {
		return "verified"
	}
	return "quote_not_found"
}

func inboxCollapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// inboxCandID is cand-<12 hex> of the canonical stored content.
func inboxCandID(v any) string {
	data, _ := json.Marshal(v)
	h := sha256.Sum256(data)
	return "cand-" + hex.EncodeToString(h[:])[:12]
}

// inboxRelated maps entries.related for a candidate (same logic, same
// shape), with a cached model answer's relations (never asking).
func (e *box) inboxRelated(ctx context.Context, text string, paths, exclude []string) ([]api.Candidate, *api.RelatedModel, error) {
	var pos []string
	for _, p := range paths {
		if !strings.HasPrefix(p, "!") {
			pos = append(pos, p)
		}
	}
	if strings.TrimSpace(text) == "" && len(pos) == 0 {
		return []api.Candidate{}, nil, nil
	}
	rr, err := e.DraftRelated(ctx, &api.RelatedInput{Text: text, Paths: pos, ExcludeIDs: exclude})
	if err != nil {
		return nil, nil, err
	}
	if rr == nil || rr.Candidates == nil {
		return []api.Candidate{}, nil, nil
	}
	var m *api.RelatedModel
	if rr.Model != nil {
		m = &api.RelatedModel{Relations: rr.Relations, Model: rr.Model}
	}
	return rr.Candidates, m, nil
}

// inboxLoad reads a candidate of this worktree's inbox; unknown ids
// are not_found, candidates of another worktree worktree_conflict.
func (e *box) inboxLoad(w engine.Writer, id string) (*api.InboxCandidate, error) {
	id = strings.TrimSpace(id)
	if !inboxIDRe().MatchString(id) {
		return nil, apierr.New(apierr.NotFound, "no candidate %q: candidate ids look like cand-<12 hex>; list them with inbox.list", id)
	}
	data, ok, err := w.ReadState(inboxFile(id))
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "reading candidate %s", id)
	}
	if !ok {
		return nil, apierr.New(apierr.NotFound, "no candidate %s in this worktree's inbox; list them with inbox.list", id)
	}
	var c api.InboxCandidate
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "candidate %s is unreadable", id)
	}
	if c.Worktree.Root != "" && e.Options().Root != "" && c.Worktree.Root != e.Options().Root {
		return nil, apierr.New(apierr.WorktreeConflict, "candidate %s belongs to the worktree at %s; change it from there", id, c.Worktree.Root)
	}
	return &c, nil
}

func inboxSave(w engine.Writer, c *api.InboxCandidate) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := w.WriteState(inboxFile(c.ID), append(data, '\n')); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing candidate %s", c.ID)
	}
	return nil
}

func normalize(c *api.InboxCandidate) {
	if c.History == nil {
		c.History = []api.InboxEvent{}
	}
	if c.Evidence == nil {
		c.Evidence = []api.EvidenceResult{}
	}
	if c.Redactions == nil {
		c.Redactions = map[string]int{}
	}
	if c.Entry.Paths == nil {
		c.Entry.Paths = []string{}
	}
	if c.Entry.Tags == nil {
		c.Entry.Tags = []string{}
	}
	c.Publication.State = "local"
}

// inboxStoreNew writes c unless a candidate with its id exists: then the stored
// one is returned (a dismissed one is reopened).
func (e *box) inboxStoreNew(w engine.Writer, c *api.InboxCandidate) (*api.InboxCandidate, []string, error) {
	_, exists, err := w.ReadState(inboxFile(c.ID))
	if err != nil {
		return nil, nil, apierr.Wrap(apierr.OperationFailed, err, "reading the inbox")
	}
	if !exists {
		return c, nil, inboxSave(w, c)
	}
	old, err := e.inboxLoad(w, c.ID)
	if err != nil {
		return nil, nil, err
	}
	normalize(old)
	switch old.State {
	case inboxDismissed:
		old.State = inboxPending
		old.History = append(old.History, api.InboxEvent{At: e.inboxStamp(), Event: "recaptured"})
		return old, []string{"the same content was captured and dismissed before; it is pending again"}, inboxSave(w, old)
	case inboxPromoted:
		return old, []string{"the same content was captured and promoted before; nothing new was stored"}, nil
	}
	return old, []string{"the same content is already pending in the inbox; nothing new was stored"}, nil
}

func runCapture(ctx context.Context, e *box, in *api.CaptureInput) (any, error) {
	if in.Entry == nil {
		return nil, jsonin.Errorf("entry", "is required: pass {kind, title, body, …}")
	}
	w, err := e.tx.Writer()
	if err != nil {
		return nil, err
	}
	fp := e.tx.Fingerprint(in)
	if res, routed, err := e.tx.RouteCapture(ctx, in, fp); routed {
		return res, err
	}
	// Redaction is CPU work on untrusted text: it runs before the lock, so
	// one large capture never holds every other writer up.
	pre := map[string]int{}
	red := struct {
		title, summary, body, source string
		quotes                       []string
	}{title: inboxRedact(strings.TrimSpace(in.Entry.Title), pre), summary: inboxRedact(in.Entry.Summary, pre), body: inboxRedact(in.Entry.Body, pre)}
	for _, ev := range in.Entry.Evidence {
		red.quotes = append(red.quotes, inboxRedact(ev.Quote, pre))
	}
	if in.Source != "" {
		red.source = inboxRedact(in.Source, pre)
	}
	if err := stageable(in.Entry.Kind, red.title, red.summary, red.body); err != nil {
		return nil, err
	}
	return e.tx.Receipted(ctx, w, "drafts.capture", in.OperationID, fp, func(w engine.Writer) (any, error) {
		st, err := e.Read(ctx)
		if err != nil {
			return nil, err
		}
		en := *in.Entry
		en.Paths = append([]string(nil), en.Paths...)
		en.Tags = append([]string(nil), en.Tags...)
		en.Evidence = append([]api.CaptureEvidence(nil), en.Evidence...)
		if err := e.inboxCheckEntry(st, &en); err != nil {
			return nil, err
		}
		counts := map[string]int{}
		for k, n := range pre {
			counts[k] = n
		}
		en.Title, en.Summary, en.Body = red.title, red.summary, red.body
		for i := range en.Evidence {
			en.Evidence[i].Quote = red.quotes[i]
		}
		var source *string
		if in.Source != "" {
			source = &red.source
		}
		evidence := e.inboxEvidence(ctx, en.Evidence)
		now := e.inboxStamp()
		c := &api.InboxCandidate{
			ID: inboxCandID(struct {
				Entry  api.CaptureEntry `json:"entry"`
				Source *string          `json:"source"`
			}{en, source}),
			State: inboxPending, Kind: en.Kind, Entry: en, Source: source, CreatedAt: now,
			History:    []api.InboxEvent{{At: now, Event: "captured"}},
			Worktree:   api.InboxWorktree{Root: e.Options().Root},
			Evidence:   evidence,
			Redactions: counts,
		}
		normalize(c)
		stored, notes, err := e.inboxStoreNew(w, c)
		if err != nil {
			return nil, err
		}
		if notes == nil {
			notes = []string{}
		}
		if n := redact.Total(counts); n > 0 {
			notes = append(notes, "redacted "+strconv.Itoa(n)+" secret(s) or e-mail address(es) before storing")
		}
		if en.Visibility == "private" {
			notes = append(notes, "private: the candidate stays local and can never be staged into team storage")
		}
		for _, ev := range evidence {
			if ev.Verification == "quote_not_found" {
				notes = append(notes, "the quote of "+ev.Ref+" was not found there")
			}
		}
		related, model, err := e.inboxRelated(ctx, engine.DraftText(en.Title, en.Summary, en.Body), en.Paths, nil)
		if err != nil {
			return nil, err
		}
		return &api.CaptureResult{Candidate: stored, Notes: notes, Redactions: counts, Evidence: evidence, RelatedEntries: related, RelatedModel: model}, nil
	})
}

func runInboxList(ctx context.Context, e *box, in *api.InboxListInput) (*api.InboxListResult, error) {
	want := in.State
	if want == "" {
		want = inboxPending
	}
	switch want {
	case inboxPending, inboxDismissed, inboxPromoted, "all":
	default:
		return nil, jsonin.Errorf("state", "must be pending, dismissed, promoted or all, got %q", in.State)
	}
	w, err := e.tx.Writer()
	if err != nil {
		return nil, err
	}
	names, err := w.ListState("inbox")
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "listing the inbox")
	}
	res := &api.InboxListResult{Candidates: []*api.InboxCandidate{}}
	for _, name := range names {
		id := strings.TrimSuffix(path.Base(name), ".json")
		if !inboxIDRe().MatchString(id) || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, ok, err := w.ReadState(name)
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "reading %s", name)
		}
		var c api.InboxCandidate
		if !ok || json.Unmarshal(data, &c) != nil {
			continue
		}
		normalize(&c)
		if want == "all" || c.State == want {
			res.Candidates = append(res.Candidates, &c)
		}
	}
	sort.Slice(res.Candidates, func(i, j int) bool {
		a, b := res.Candidates[i], res.Candidates[j]
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt < b.CreatedAt
		}
		return a.ID < b.ID
	})
	return res, nil
}

// inboxChange loads candidate id under the write lock, lets change edit it
// (keep=false: answer the candidate unchanged), and saves it.
func (e *box) inboxChange(ctx context.Context, id string, change func(c *api.InboxCandidate) (keep bool, err error)) (*api.InboxCandidate, error) {
	var c *api.InboxCandidate
	err := e.tx.Locally(ctx, func(w engine.Writer) error {
		var err error
		c, err = e.inboxLoad(w, id)
		if err != nil {
			return err
		}
		normalize(c)
		keep, err := change(c)
		if err != nil || !keep {
			return err
		}
		return inboxSave(w, c)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func runInboxDrop(ctx context.Context, e *box, in *api.InboxDropInput) (*api.InboxCandidate, error) {
	if err := inboxOneLine("reason", in.Reason, 500); err != nil {
		return nil, err
	}
	reason := ""
	if in.Reason != "" {
		reason = inboxRedact(in.Reason, map[string]int{}) // before the lock
	}
	c, err := e.inboxChange(ctx, in.ID, func(c *api.InboxCandidate) (bool, error) {
		switch c.State {
		case inboxDismissed:
			return false, nil
		case inboxPromoted:
			return false, apierr.New(apierr.OperationConflict, "candidate %s was already promoted to an entry; retire the entry instead", c.ID)
		}
		ev := api.InboxEvent{At: e.inboxStamp(), Event: "dismissed", Reason: reason}
		c.State = inboxDismissed
		c.History = append(c.History, ev)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func runInboxVerify(ctx context.Context, e *box, in *api.InboxVerifyInput) (*api.InboxVerifyResult, error) {
	if in.Verify == nil {
		return nil, jsonin.Errorf("verify", "is required: a one-line command, or \"\" to remove it")
	}
	cmd := strings.TrimSpace(*in.Verify)
	if err := inboxOneLine("verify", cmd, 500); err != nil {
		return nil, err
	}
	c, err := e.inboxChange(ctx, in.ID, func(c *api.InboxCandidate) (bool, error) {
		if c.Kind == inboxChallengeKind {
			return false, apierr.Invalid("candidate %s is a challenge; challenges carry no verify command", c.ID)
		}
		if c.State != inboxPending {
			return false, apierr.New(apierr.OperationConflict, "candidate %s is %s; only pending candidates change", c.ID, c.State)
		}
		if c.Entry.Verify == cmd {
			return false, nil
		}
		c.Entry.Verify = cmd
		event := "verify_set"
		if cmd == "" {
			event = "verify_removed"
		}
		c.History = append(c.History, api.InboxEvent{At: e.inboxStamp(), Event: event})
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return &api.InboxVerifyResult{ID: c.ID, Verify: strp(cmd), Entry: c.Entry}, nil
}

func runInboxChallenge(ctx context.Context, e *box, in *api.InboxChallengeInput) (*api.CaptureResult, error) {
	because := strings.TrimSpace(in.Because)
	if because == "" {
		return nil, jsonin.Errorf("because", "is empty; say why the entry may no longer hold")
	}
	if utf8.RuneCountInString(because) > inboxMaxBecause {
		return nil, jsonin.Errorf("because", "is longer than %d characters", inboxMaxBecause)
	}
	var (
		en     *entry.Entry
		stored *api.InboxCandidate
		notes  []string
		counts = map[string]int{}
	)
	because = inboxRedact(because, counts) // before the lock: CPU work on untrusted text
	err := e.tx.Locally(ctx, func(w engine.Writer) error {
		st, err := e.Read(ctx)
		if err != nil {
			return err
		}
		en, err = st.Snap.Lookup(in.ID)
		if err != nil {
			return err
		}
		blob := st.Snap.Blob(en.File)
		extra := map[string]any{"against": en.ID, "against_revision": strp(st.Head), "against_blob": strp(blob), "because": because}
		title := "Challenge: " + en.Title
		if utf8.RuneCountInString(title) > inboxMaxTitle {
			title = string([]rune(title)[:inboxMaxTitle-1]) + "…"
		}
		ce := api.CaptureEntry{Kind: inboxChallengeKind, Title: title, Body: because, Paths: []string{}, Tags: []string{}}
		now := e.inboxStamp()
		c := &api.InboxCandidate{
			ID:    inboxCandID(map[string]any{"kind": inboxChallengeKind, "against": en.ID, "against_blob": blob, "because": because}),
			State: inboxPending, Kind: inboxChallengeKind, Entry: ce, CreatedAt: now,
			History:  []api.InboxEvent{{At: now, Event: "captured"}},
			Worktree: api.InboxWorktree{Root: e.Options().Root}, Redactions: counts, Extra: extra,
		}
		normalize(c)
		stored, notes, err = e.inboxStoreNew(w, c)
		return err
	})
	if err != nil {
		return nil, err
	}
	notes = append(notes, "a challenge can never be staged as an entry; retiring "+en.ID+" or staging an entry that supersedes it resolves it")
	if entry.Inactive(en.Status) {
		notes = append(notes, en.ID+" is already "+en.Status)
	}
	return &api.CaptureResult{Candidate: stored, Notes: notes, Redactions: counts, Evidence: []api.EvidenceResult{}, RelatedEntries: []api.Candidate{}}, nil
}

// Tx is what the inbox needs of the drafts transaction.
type Tx interface {
	// Writer is the engine's Writer (unsupported_operation without one).
	Writer() (engine.Writer, error)
	// Locally runs a change of local state under the write lock.
	Locally(ctx context.Context, change func(w engine.Writer) error) error
	// Receipted runs write under the lock with the replay/plan/receipt
	// protocol when operationID is set. write plans: its local state
	// changes through the Writer it is given are collected, stored with
	// the plan and applied after it returns; a write that fails stores
	// nothing.
	Receipted(ctx context.Context, w engine.Writer, op, operationID, fp string, write func(w engine.Writer) (any, error)) (any, error)
	// Fingerprint is the stable hash of an input.
	Fingerprint(v any) string
	// RouteCapture performs a capture whose entry paths all lie inside a
	// nested repository in that repository (routed true); routed is
	// false when they do not.
	RouteCapture(ctx context.Context, in *api.CaptureInput, fp string) (res any, routed bool, err error)
}

// box is the engine seen from an inbox operation.
type box struct {
	*engine.Engine
	tx Tx
}

// MaxEvidence is the most evidence references one entry carries.
const MaxEvidence = inboxMaxEvidence

func row[I, O any](tx func(*engine.Engine) Tx, name string, run func(context.Context, *box, *I) (O, error)) engine.Operation {
	return engine.Op(name, engine.NeedsWriter, func(ctx context.Context, e *engine.Engine, in *I) (O, error) {
		return run(ctx, &box{e, tx(e)}, in)
	}).Checked(jsonin.CheckText)
}

// Operations are the inbox rows; tx gives each call the drafts
// transaction of its engine.
func Operations(tx func(*engine.Engine) Tx) []engine.Operation {
	return []engine.Operation{
		row(tx, "drafts.capture", runCapture).Returning(&api.CaptureResult{}),
		row(tx, "inbox.list", runInboxList),
		row(tx, "inbox.drop", runInboxDrop),
		row(tx, "inbox.verify", runInboxVerify),
		row(tx, "inbox.challenge", runInboxChallenge),
	}
}

func call[I, O any](ctx context.Context, e *engine.Engine, tx Tx, name string, run func(context.Context, *box, *I) (O, error), in *I) (O, error) {
	return engine.Invoke(ctx, e, name, func(ctx context.Context, e *engine.Engine, in *I) (O, error) {
		return run(ctx, &box{e, tx}, in)
	}, in)
}

// Capture runs drafts.capture for a Go caller.
func Capture(ctx context.Context, e *engine.Engine, tx Tx, in *api.CaptureInput) (any, error) {
	return call(ctx, e, tx, "drafts.capture", runCapture, in)
}

// List runs inbox.list for a Go caller.
func List(ctx context.Context, e *engine.Engine, tx Tx, in *api.InboxListInput) (*api.InboxListResult, error) {
	return call(ctx, e, tx, "inbox.list", runInboxList, in)
}

// Drop runs inbox.drop for a Go caller.
func Drop(ctx context.Context, e *engine.Engine, tx Tx, in *api.InboxDropInput) (*api.InboxCandidate, error) {
	return call(ctx, e, tx, "inbox.drop", runInboxDrop, in)
}

// Challenge runs inbox.challenge for a Go caller.
func Challenge(ctx context.Context, e *engine.Engine, tx Tx, in *api.InboxChallengeInput) (*api.CaptureResult, error) {
	return call(ctx, e, tx, "inbox.challenge", runInboxChallenge, in)
}

// Evidence verifies evidence references (drafts.stage's evidence).
func Evidence(ctx context.Context, e *engine.Engine, refs []api.CaptureEvidence) []api.EvidenceResult {
	return (&box{Engine: e}).inboxEvidence(ctx, refs)
}

// ParseRef checks one evidence reference.
func ParseRef(ref string) error {
	_, err := inboxParseRef(ref)
	return err
}

// Related lists entries similar to a new insight (text and paths).
func Related(ctx context.Context, e *engine.Engine, text string, paths, exclude []string) ([]api.Candidate, *api.RelatedModel, error) {
	return (&box{Engine: e}).inboxRelated(ctx, text, paths, exclude)
}

// Load reads candidate id of the worktree's inbox.
func Load(e *engine.Engine, w engine.Writer, id string) (*api.InboxCandidate, error) {
	return (&box{Engine: e}).inboxLoad(w, id)
}

// Save stores a candidate.
func Save(w engine.Writer, c *api.InboxCandidate) error { return inboxSave(w, c) }

// Stamp is the time of an inbox event, now.
func Stamp(e *engine.Engine) string { return (&box{Engine: e}).inboxStamp() }

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// stageable refuses a capture that could never be staged: an entry file
// over the size limit, or a title that does not read back as itself once
// written (a title of only heading markers such as "###").
func stageable(kind, title, summary, body string) error {
	k, ok := entry.NormalizeKind(kind)
	if !ok || title == "" {
		return nil // inboxCheckEntry names the field
	}
	return Stageable(k, title, summary, body)
}

// Stageable checks that an entry with this title, summary and body renders
// to a file kontext can read back: at most entry.MaxFileSize bytes, with
// the same title (invalid_input otherwise).
func Stageable(kind, title, summary, body string) error {
	data := render.Frontmatter(render.Entry{Title: title, Status: "active", Date: "2006-01-02", Summary: strings.TrimSpace(summary), Body: body})
	if len(data) > entry.MaxFileSize {
		return jsonin.Errorf("entry.body", "makes an entry file of %d bytes; entry files are limited to %d bytes (1 MiB): shorten it or link to the details", len(data), entry.MaxFileSize)
	}
	parsed, _ := entry.Parse(kind+"/x.md", data, entry.Source{Kind: kind, Style: entry.StyleFrontmatter})
	if parsed == nil || parsed.Title != title {
		return jsonin.Errorf("entry.title", "%q does not read back as the same title once written (Markdown heading markers or leading/trailing spaces?); pass plain text", title)
	}
	return nil
}
