package drafts_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/drafts"
	"github.com/kontext/kontext/engine/worktree"
)

// nestedPair is an outer repository at /repo whose lib/ holds its own .git,
// and the engine of lib (root /repo/lib) that Options.Nested opens.
type nestedPair struct {
	outer, inner   *engine.Engine
	ow, iw         *fakeWriter
	opened         int
	nestedRootSeen string // the root the opener answers with (a moved repository)
}

func openNested(t *testing.T) *nestedPair {
	t.Helper()
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	clock := func() time.Time { return now }
	p := &nestedPair{nestedRootSeen: "/repo/lib"}
	ofs, ifs := memfs.New(), memfs.New()
	if err := util.WriteFile(ofs, "lib/.git", []byte("gitdir: ../.git/modules/lib\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.iw = &fakeWriter{fs: ifs, state: map[string][]byte{}}
	p.ow = &fakeWriter{fs: ofs, state: map[string][]byte{}}
	p.inner = engine.New(engine.Options{FS: ifs, Writer: p.iw, Root: "/repo/lib", Surface: engine.Native, Now: clock, Operations: drafts.Operations()})
	p.outer = engine.New(engine.Options{FS: ofs, Writer: p.ow, Root: "/repo", Surface: engine.Native, Now: clock, Operations: drafts.Operations(),
		Nested: func(dir string) (*engine.Engine, error) {
			if dir != "lib" {
				t.Fatalf("opened nested %q", dir)
			}
			p.opened++
			if p.nestedRootSeen != "/repo/lib" {
				return engine.New(engine.Options{FS: ofs, Writer: p.ow, Root: p.nestedRootSeen, Surface: engine.Native, Now: clock, Operations: drafts.Operations()}), nil
			}
			return p.inner, nil
		}})
	p.outer.UseBoundaryFinder(worktree.Boundaries)
	call(t, p.outer, "setup", `{}`)
	call(t, p.inner, "setup", `{}`)
	return p
}

const routedStage = `{"operation_id":"op-r","entry":{"kind":"convention","title":"Lib logs with slog","body":"Use slog.","paths":["lib/**/*.go","!lib/gen/**","!cmd/**"]}}`

func TestStageRoutesIntoTheNestedRepository(t *testing.T) {
	p := openNested(t)
	res := call(t, p.outer, "drafts.stage", routedStage)
	want := ".ai/conventions/2026-03-04-lib-logs-with-slog.md"
	if res["repository"] != "lib" || res["path"] != want || res["replayed"] != false {
		t.Fatalf("routed stage: %v", res)
	}
	en := res["entry"].(map[string]any)
	if paths, _ := json.Marshal(en["paths"]); string(paths) != `["**/*.go","!gen/**"]` {
		t.Fatalf("paths not rebased: %s", paths)
	}
	notes, _ := json.Marshal(res["notes"])
	if !strings.Contains(string(notes), "routed to the nested repository lib") || !strings.Contains(string(notes), "!cmd/** lies outside lib") {
		t.Fatalf("notes %s", notes)
	}
	// the nested repository wrote, staged and receipted it; the outer one wrote nothing
	if !slices.Equal(p.iw.staged, []string{want}) || len(p.ow.staged) != 0 || slices.Contains(p.ow.written, want) {
		t.Fatalf("inner staged %v, outer staged %v written %v", p.iw.staged, p.ow.staged, p.ow.written)
	}
	if _, err := p.inner.FS().Stat(want); err != nil {
		t.Fatalf("not in the nested repository: %v", err)
	}
	if len(receipts(p.iw)) != 1 || len(receipts(p.ow)) != 1 {
		t.Fatalf("receipts: inner %v, outer %v", receipts(p.iw), receipts(p.ow))
	}

	// replay from the outer repository: the stored result, nothing staged again
	again := call(t, p.outer, "drafts.stage", routedStage)
	if again["replayed"] != true || again["repository"] != "lib" || len(p.iw.staged) != 1 {
		t.Fatalf("replay: %v, inner staged %v", again, p.iw.staged)
	}
	if code := codeOf(t, p.outer, "drafts.stage", strings.Replace(routedStage, "Use slog.", "Use zap.", 1)); code != "operation_conflict" {
		t.Fatalf("same id, other input: %q", code)
	}
	// operations.get finds it from the outer repository, and in lib
	got := call(t, p.outer, "operations.get", `{"operation_id":"op-r"}`)
	if got["state"] != "done" || got["repository"] != "lib" || got["path"] != want {
		t.Fatalf("operations.get (outer): %v", got)
	}
	if got := call(t, p.inner, "operations.get", `{"operation_id":"op-r"}`); got["state"] != "done" || got["path"] != want {
		t.Fatalf("operations.get (lib): %v", got)
	}
}

// A write that died after the outer repository stored its routed plan
// (before lib wrote anything, or after lib finished) is completed by a
// retry: lib's receipt replays or the routing runs again, once.
func TestRoutedWriteResumesAfterACrash(t *testing.T) {
	p := openNested(t)
	call(t, p.outer, "drafts.stage", routedStage)
	name := receipts(p.ow)[0]
	var r map[string]any
	json.Unmarshal(p.ow.state[name], &r)
	// the outer process died before its done receipt: only the plan is stored
	r["state"], r["result"] = "planned", nil
	delete(r, "result")
	var input map[string]any
	json.Unmarshal([]byte(routedStage), &input)
	r["input"] = input
	p.ow.state[name], _ = json.Marshal(r)

	got := call(t, p.outer, "operations.get", `{"operation_id":"op-r"}`)
	if got["state"] != "done" || got["repository"] != "lib" {
		t.Fatalf("operations.get of a routed plan asks lib: %v", got)
	}
	res := call(t, p.outer, "drafts.stage", routedStage)
	if res["repository"] != "lib" || len(p.iw.staged) != 1 {
		t.Fatalf("retry: %v, inner staged %v", res, p.iw.staged)
	}
	json.Unmarshal(p.ow.state[name], &r)
	if r["state"] != "done" || r["routed"] != "lib" {
		t.Fatalf("outer receipt after the retry: %v", r)
	}

	// a stored routed plan that lib never saw: the retry by operation_id
	// and fingerprint (no entry) routes the stored input
	fp := r["fingerprint"].(string)
	in2 := strings.Replace(routedStage, "op-r", "op-s", 1)
	in2 = strings.Replace(in2, "Lib logs with slog", "Lib wraps errors", 1)
	call(t, p.outer, "drafts.stage", in2)
	n2 := ""
	for _, n := range receipts(p.ow) {
		if n != name {
			n2 = n
		}
	}
	json.Unmarshal(p.ow.state[n2], &r)
	fp = r["fingerprint"].(string)
	// forget the write in lib entirely, as if the process died right after the plan
	for _, n := range receipts(p.iw) {
		var ir map[string]any
		json.Unmarshal(p.iw.state[n], &ir)
		if ir["fingerprint"] == fp {
			delete(p.iw.state, n)
		}
	}
	p.iw.fs.Remove(".ai/conventions/2026-03-04-lib-wraps-errors.md")
	r["state"] = "planned"
	delete(r, "result")
	json.Unmarshal([]byte(in2), &input)
	r["input"] = input
	p.ow.state[n2], _ = json.Marshal(r)
	if code := codeOf(t, p.outer, "operations.get", `{"operation_id":"op-s"}`); code != "not_found" {
		t.Fatalf("operations.get of a plan lib never saw: %q", code)
	}
	res = call(t, p.outer, "drafts.stage", `{"operation_id":"op-s","fingerprint":"`+fp+`"}`)
	if res["repository"] != "lib" || res["path"] != ".ai/conventions/2026-03-04-lib-wraps-errors.md" {
		t.Fatalf("resume by fingerprint: %v", res)
	}
	if _, err := p.inner.FS().Stat(".ai/conventions/2026-03-04-lib-wraps-errors.md"); err != nil {
		t.Fatalf("resume did not write in lib: %v", err)
	}
}

// A refused routed write stores nothing that holds its operation_id.
func TestRefusedRoutedWriteLeavesTheIDFree(t *testing.T) {
	p := openNested(t)
	bad := `{"operation_id":"op-b","entry":{"kind":"convention","title":"","body":"x","paths":["lib/**"]}}`
	if code := codeOf(t, p.outer, "drafts.stage", bad); code != "invalid_input" {
		t.Fatalf("bad routed input: %q", code)
	}
	if code := codeOf(t, p.outer, "operations.get", `{"operation_id":"op-b"}`); code != "not_found" {
		t.Fatalf("operations.get after a refusal: %q", code)
	}
	good := strings.Replace(bad, `"title":""`, `"title":"Lib"`, 1)
	if res := call(t, p.outer, "drafts.stage", good); res["repository"] != "lib" {
		t.Fatalf("the id is free again: %v", res)
	}
}

// Receipts are never used to write into another checkout: a routed plan
// whose directory no longer opens as its own repository is refused.
func TestRoutedPlanNeverWritesIntoAnotherCheckout(t *testing.T) {
	p := openNested(t)
	p.nestedRootSeen = "/repo" // lib lost its .git: opening it opens the outer repository
	if code := codeOf(t, p.outer, "drafts.stage", routedStage); code != "worktree_conflict" {
		t.Fatalf("routing into a directory that is not a repository: %q", code)
	}
	if len(p.ow.staged) != 0 || len(p.iw.staged) != 0 {
		t.Fatalf("staged outer %v inner %v", p.ow.staged, p.iw.staged)
	}
}

func TestCaptureRoutesIntoTheNestedInbox(t *testing.T) {
	p := openNested(t)
	res := call(t, p.outer, "drafts.capture", `{"operation_id":"cap","entry":{"kind":"learning","title":"Lib flakes","body":"Retry.","paths":["lib/ci/**"]}}`)
	if res["repository"] != "lib" {
		t.Fatalf("capture: %v", res)
	}
	if l := call(t, p.inner, "inbox.list", `{}`); len(l["candidates"].([]any)) != 1 {
		t.Fatalf("lib inbox: %v", l)
	}
	if l := call(t, p.outer, "inbox.list", `{}`); len(l["candidates"].([]any)) != 0 {
		t.Fatalf("outer inbox: %v", l)
	}
}

func TestSpanningPathsStayWithANote(t *testing.T) {
	p := openNested(t)
	res := call(t, p.outer, "drafts.stage", `{"operation_id":"span","entry":{"kind":"convention","title":"Shared","body":"x","paths":["lib/**","cmd/**"]}}`)
	notes, _ := json.Marshal(res["notes"])
	if res["repository"] != nil || p.opened != 0 || !strings.Contains(string(notes), "nested repository lib") {
		t.Fatalf("spanning: %v", res)
	}
	gov := call(t, p.outer, "entries.governing", `{"paths":["lib/a.go","cmd/b.go"]}`)
	b, _ := json.Marshal(gov["boundaries"])
	if string(b) != `[{"path":"lib/a.go","repository":"lib","repository_path":"a.go"}]` {
		t.Fatalf("boundaries %s", b)
	}
}

// Without an opener (no nested engine can be opened) the write is refused
// naming the repository, as before routing existed.
func TestNoOpenerRefuses(t *testing.T) {
	e, w := open(t)
	call(t, e, "setup", `{}`)
	util.WriteFile(w.fs, "lib/.git", []byte("gitdir: x\n"), 0o644)
	var env struct {
		Error map[string]any `json:"error"`
	}
	json.Unmarshal(e.Request(context.Background(), "drafts.stage", []byte(routedStage)), &env)
	if env.Error["code"] != "invalid_input" || env.Error["repository"] != "lib" {
		t.Fatalf("no opener: %v", env.Error)
	}
}

// A candidate of the outer inbox (captured before lib was a repository)
// whose paths all lie in lib is promoted into lib and marked promoted here;
// a retry after a crash that lost the outer receipt completes from lib's.
func TestPromotionRoutesAndMarksTheCandidate(t *testing.T) {
	p := openNested(t)
	p.ow.fs.Remove("lib/.git")
	cap := call(t, p.outer, "drafts.capture", `{"entry":{"kind":"learning","title":"Lib retries","body":"Once.","paths":["lib/net/**"]}}`)
	if cap["repository"] != nil {
		t.Fatalf("captured before lib was a repository: %v", cap)
	}
	id := cap["candidate"].(map[string]any)["id"].(string)
	util.WriteFile(p.ow.fs, "lib/.git", []byte("gitdir: x\n"), 0o644)
	in := `{"operation_id":"prom","candidate_id":"` + id + `"}`
	res := call(t, p.outer, "drafts.stage", in)
	want := ".ai/learnings/2026-03-04-lib-retries.md"
	if res["repository"] != "lib" || res["path"] != want {
		t.Fatalf("promotion: %v", res)
	}
	notes, _ := json.Marshal(res["notes"])
	if !strings.Contains(string(notes), "promoted candidate "+id) {
		t.Fatalf("notes %s", notes)
	}
	if data, err := util.ReadFile(p.inner.FS(), want); err != nil || !strings.Contains(string(data), `paths: ["net/**"]`) {
		t.Fatalf("lib file %q %v", data, err)
	}
	l := call(t, p.outer, "inbox.list", `{"state":"promoted"}`)
	if c := l["candidates"].([]any); len(c) != 1 {
		t.Fatalf("outer inbox promoted: %v", l)
	}
	// the outer process died before its done receipt: the candidate is
	// already promoted, so the retry completes from lib's receipt
	name := receipts(p.ow)[0]
	var r map[string]any
	json.Unmarshal(p.ow.state[name], &r)
	r["state"] = "planned"
	delete(r, "result")
	p.ow.state[name], _ = json.Marshal(r)
	again := call(t, p.outer, "drafts.stage", in)
	if again["repository"] != "lib" || again["path"] != want || len(p.iw.staged) != 1 {
		t.Fatalf("retry: %v, lib staged %v", again, p.iw.staged)
	}
	if got := call(t, p.outer, "operations.get", `{"operation_id":"prom"}`); got["state"] != "done" {
		t.Fatalf("operations.get: %v", got)
	}
}

// operations.get with the caller's fingerprint of an unfinished routed
// capture: checked against the receipt here, then answered by lib's
// receipt (whose fingerprint is of the rebased input).
func TestRoutedCaptureOperationsGetWithFingerprint(t *testing.T) {
	p := openNested(t)
	call(t, p.outer, "drafts.capture", `{"operation_id":"cap-f","entry":{"kind":"learning","title":"Lib flakes","body":"Retry.","paths":["lib/ci/**"]}}`)
	name := receipts(p.ow)[0]
	var r map[string]any
	json.Unmarshal(p.ow.state[name], &r)
	fp := r["fingerprint"].(string)
	r["state"] = "planned"
	delete(r, "result")
	p.ow.state[name], _ = json.Marshal(r)
	got := call(t, p.outer, "operations.get", `{"operation_id":"cap-f","fingerprint":"`+fp+`"}`)
	if got["state"] != "done" || got["repository"] != "lib" {
		t.Fatalf("operations.get: %v", got)
	}
	if code := codeOf(t, p.outer, "operations.get", `{"operation_id":"cap-f","fingerprint":"other"}`); code != "operation_conflict" {
		t.Fatalf("another fingerprint: %q", code)
	}
}
