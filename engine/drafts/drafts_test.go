package drafts_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/drafts"
)

// fakeWriter is an engine.Writer over a billy filesystem: it records the
// lock, the files written and the paths staged, and keeps local state in
// a map.
type fakeWriter struct {
	fs        billy.Filesystem
	mu        sync.Mutex
	smu       sync.Mutex // guards state: local state is read outside the lock
	locked    bool
	locks     int
	written   []string
	staged    []string
	state     map[string][]byte
	failStage error // when set, Stage fails (git's index.lock held)
	failDone  error // when set, storing a done receipt fails (disk full)
}

func (w *fakeWriter) Lock(context.Context) (func(), error) {
	w.mu.Lock()
	w.locked = true
	w.locks++
	return func() { w.locked = false; w.mu.Unlock() }, nil
}

func (w *fakeWriter) WriteFile(rel string, data []byte) error {
	if !w.locked {
		panic("WriteFile outside the write lock")
	}
	w.written = append(w.written, rel)
	return util.WriteFile(w.fs, rel, data, 0o644)
}

func (w *fakeWriter) Remove(rel string) error {
	if !w.locked {
		panic("Remove outside the write lock")
	}
	if _, err := w.fs.Lstat(rel); err != nil {
		return nil
	}
	return w.fs.Remove(rel)
}

func (w *fakeWriter) MkdirAll(rel string) error {
	if !w.locked {
		panic("MkdirAll outside the write lock")
	}
	return w.fs.MkdirAll(rel, 0o755)
}

func (w *fakeWriter) Stage(_ context.Context, paths ...string) error {
	if w.failStage != nil {
		return w.failStage
	}
	w.staged = append(w.staged, paths...)
	return nil
}

func (w *fakeWriter) ReadState(name string) ([]byte, bool, error) {
	w.smu.Lock()
	defer w.smu.Unlock()
	d, ok := w.state[name]
	return d, ok, nil
}

func (w *fakeWriter) WriteState(name string, data []byte) error {
	w.smu.Lock()
	defer w.smu.Unlock()
	if w.failDone != nil && strings.HasPrefix(name, "operations/") && strings.Contains(string(data), `"state":"done"`) {
		return w.failDone
	}
	w.state[name] = append([]byte(nil), data...)
	return nil
}

func (w *fakeWriter) ListState(dir string) ([]string, error) {
	w.smu.Lock()
	defer w.smu.Unlock()
	var out []string
	for k := range w.state {
		if strings.HasPrefix(k, dir+"/") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (w *fakeWriter) Identity() string { return "Test User" }

func open(t *testing.T) (*engine.Engine, *fakeWriter) {
	t.Helper()
	fs := memfs.New()
	w := &fakeWriter{fs: fs, state: map[string][]byte{}}
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	e := engine.New(engine.Options{FS: fs, Writer: w, Root: "/repo", Surface: engine.Native,
		Now: func() time.Time { return now }, Operations: drafts.Operations()})
	return e, w
}

func call(t *testing.T, e *engine.Engine, op, input string) map[string]any {
	t.Helper()
	var env struct {
		OK     bool           `json:"ok"`
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(e.Request(context.Background(), op, []byte(input)), &env); err != nil {
		t.Fatal(err)
	}
	if !env.OK {
		t.Fatalf("%s %s: %v", op, input, env.Error)
	}
	return env.Result
}

func TestSetupWritesThroughTheWriter(t *testing.T) {
	e, w := open(t)
	res := call(t, e, "setup", `{}`)
	created, _ := res["created"].([]any)
	if len(created) != 7 || created[0] != ".ai/" || !slices.Contains(created, any(".kontext.toml")) {
		t.Fatalf("created %v", created)
	}
	if w.locks != 1 || !slices.Equal(w.written, []string{".kontext.toml"}) || len(w.staged) != 0 {
		t.Fatalf("locks %d, written %v, staged %v", w.locks, w.written, w.staged)
	}
	for _, d := range []string{".ai/decisions", ".ai/conventions", ".ai/architecture"} {
		if fi, err := w.fs.Stat(d); err != nil || !fi.IsDir() {
			t.Fatalf("%s not created: %v", d, err)
		}
	}
	again := call(t, e, "setup", `{}`)
	if c, _ := again["created"].([]any); len(c) != 0 || len(w.written) != 1 {
		t.Fatalf("setup is not idempotent: created %v, written %v", c, w.written)
	}
}

func TestStageWritesStagesAndReplays(t *testing.T) {
	e, w := open(t)
	call(t, e, "setup", `{}`)
	in := `{"operation_id":"op-1","entry":{"kind":"convention","title":"Indent with tabs","body":"Tabs.","paths":["**/*.go"]}}`
	res := call(t, e, "drafts.stage", in)
	want := ".ai/conventions/2026-03-04-indent-with-tabs.md"
	if res["path"] != want || res["staged"] != true || res["replayed"] != false {
		t.Fatalf("stage: %v", res)
	}
	if !slices.Equal(w.staged, []string{want}) || !slices.Contains(w.written, want) {
		t.Fatalf("written %v, staged %v", w.written, w.staged)
	}
	data, err := util.ReadFile(w.fs, want)
	if err != nil || !strings.Contains(string(data), "# Indent with tabs") {
		t.Fatalf("file %q, %v", data, err)
	}
	again := call(t, e, "drafts.stage", in)
	if again["replayed"] != true || len(w.staged) != 1 {
		t.Fatalf("retry: %v, staged %v", again, w.staged)
	}
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	other := strings.Replace(in, "Tabs.", "Spaces.", 1)
	json.Unmarshal(e.Request(context.Background(), "drafts.stage", []byte(other)), &env)
	if env.Error.Code != "operation_conflict" {
		t.Fatalf("same operation_id, other input: %q", env.Error.Code)
	}
}

func TestWritesAreUnsupportedWithoutAWriter(t *testing.T) {
	e := engine.New(engine.Options{FS: memfs.New(), Surface: engine.Native, Operations: drafts.Operations()})
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(e.Request(context.Background(), "setup", nil), &env)
	if env.Error.Code != "unsupported_operation" {
		t.Fatalf("setup without a Writer: %q", env.Error.Code)
	}
}

func TestInboxCaptureListDrop(t *testing.T) {
	e, w := open(t)
	call(t, e, "setup", `{}`)
	in := `{"entry":{"kind":"learning","title":"Tokens leak","body":"key password=hunter2 here"}}`
	res := call(t, e, "drafts.capture", in)
	cand, _ := res["candidate"].(map[string]any)
	id, _ := cand["id"].(string)
	if !strings.HasPrefix(id, "cand-") || len(w.staged) != 0 {
		t.Fatalf("capture: %v, staged %v", res, w.staged)
	}
	entry, _ := cand["entry"].(map[string]any)
	if body, _ := entry["body"].(string); strings.Contains(body, "hunter2") {
		t.Fatalf("the secret was stored: %q", body)
	}
	if again := call(t, e, "drafts.capture", in); again["candidate"].(map[string]any)["id"] != id {
		t.Fatalf("the same text captured twice got another id: %v", again)
	}
	if l := call(t, e, "inbox.list", `{}`); len(l["candidates"].([]any)) != 1 {
		t.Fatalf("list: %v", l)
	}
	if d := call(t, e, "inbox.drop", `{"id":"`+id+`","reason":"dup"}`); d["state"] != "dismissed" {
		t.Fatalf("drop: %v", d)
	}
	if l := call(t, e, "inbox.list", `{}`); len(l["candidates"].([]any)) != 0 {
		t.Fatalf("list after drop: %v", l)
	}
	if len(w.written) != 1 { // only setup's config: the inbox is local state
		t.Fatalf("the inbox wrote worktree files: %v", w.written)
	}
}

func codeOf(t *testing.T, e *engine.Engine, op, input string) string {
	t.Helper()
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(e.Request(context.Background(), op, []byte(input)), &env)
	return env.Error.Code
}

func receipts(w *fakeWriter) []string {
	names, _ := w.ListState("operations")
	return names
}

func TestBadInputStoresNoPlan(t *testing.T) {
	e, w := open(t)
	call(t, e, "setup", `{}`)
	for _, c := range []struct{ op, in string }{
		{"drafts.capture", `{"operation_id":"c-1","entry":{"kind":"nonsense","title":"T"}}`},
		{"drafts.capture", `{"operation_id":"c-2","entry":{"kind":"learning","title":"###"}}`},
		{"drafts.capture", `{"operation_id":"c-3","entry":{"kind":"learning","title":"T","supersedes":["missing"]}}`},
		{"drafts.stage", `{"operation_id":"s-1","entry":{"kind":"learning","title":"###"}}`},
		{"drafts.stage", `{"operation_id":"s-2","entry":{"kind":"learning","title":"Big","body":"` + strings.Repeat("y", 1<<20) + `"}}`},
		{"drafts.confirm", `{"operation_id":"f-1","id":"missing"}`},
	} {
		if code := codeOf(t, e, c.op, c.in); code == "" || code == "operation_failed" || code == "operation_incomplete" {
			t.Errorf("%s %.60s: %q, want an input error", c.op, c.in, code)
		}
	}
	if r := receipts(w); len(r) != 0 {
		t.Fatalf("requests that failed validation stored plans: %v", r)
	}
}

func TestFailedStageRollsBackAndResumes(t *testing.T) {
	e, w := open(t)
	call(t, e, "setup", `{}`)
	w.failStage = errors.New("index.lock held")
	in := `{"operation_id":"op-r","entry":{"kind":"learning","title":"Roll back"}}`
	if code := codeOf(t, e, "drafts.stage", in); code == "" {
		t.Fatal("stage succeeded although staging failed")
	}
	target := ".ai/learnings/2026-03-04-roll-back.md"
	if _, err := w.fs.Stat(target); err == nil {
		t.Fatalf("%s stays in the worktree after the failed stage", target)
	}
	if code := codeOf(t, e, "operations.get", `{"operation_id":"op-r"}`); code != "operation_incomplete" {
		t.Fatalf("operations.get: %q, want operation_incomplete (a resumable plan)", code)
	}
	w.failStage = nil
	res := call(t, e, "drafts.stage", in)
	if res["path"] != target || res["replayed"] != false || !slices.Equal(w.staged, []string{target}) {
		t.Fatalf("resume: %v, staged %v", res, w.staged)
	}
}

func TestSameCaptureInParallelWritesOnce(t *testing.T) {
	fs := memfs.New()
	w := &fakeWriter{fs: fs, state: map[string][]byte{}}
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	newEngine := func() *engine.Engine {
		return engine.New(engine.Options{FS: fs, Writer: w, Root: "/repo", Surface: engine.Native,
			Now: func() time.Time { return now }, Operations: drafts.Operations()})
	}
	call(t, newEngine(), "setup", `{}`)
	const n = 10
	in := `{"operation_id":"same","entry":{"kind":"learning","title":"Once","body":"b"}}`
	results := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = newEngine().Request(context.Background(), "drafts.capture", []byte(in))
		}()
	}
	wg.Wait()
	fresh, replays := 0, 0
	for _, r := range results {
		var env struct {
			OK     bool           `json:"ok"`
			Result map[string]any `json:"result"`
		}
		json.Unmarshal(r, &env)
		switch {
		case !env.OK:
			t.Errorf("capture: %s", r)
		case env.Result["replayed"] == true:
			replays++
		default:
			fresh++
		}
	}
	if fresh != 1 || replays != n-1 {
		t.Fatalf("%d writes and %d replays, want 1 and %d", fresh, replays, n-1)
	}
}

// TestWriteRowsCheckText: every write row vets its input's text (control
// characters refused) before it runs, as Request and the typed calls
// expect of a write.
func TestWriteRowsCheckText(t *testing.T) {
	for _, op := range drafts.Operations() {
		if op.Needs()&engine.NeedsWriter != 0 && !op.IsChecked() {
			t.Errorf("%s writes but does not check its input's text", op.Name())
		}
	}
}

// TestReceiptLostAfterStaging: when the done receipt cannot be stored (a
// full disk) after the entry is written and staged, the error says so —
// staged, which file, receipt missing, and how to finish — and the same
// request then finishes the receipt.
func TestReceiptLostAfterStaging(t *testing.T) {
	e, w := open(t)
	call(t, e, "setup", `{}`)
	w.failDone = syscall.ENOSPC
	in := `{"operation_id":"op-full","entry":{"kind":"learning","title":"Disk full"}}`
	var env struct {
		Error struct {
			Code        string   `json:"code"`
			Message     string   `json:"message"`
			Staged      bool     `json:"staged"`
			Receipt     string   `json:"receipt"`
			OperationID string   `json:"operation_id"`
			Files       []string `json:"files"`
		} `json:"error"`
	}
	if err := json.Unmarshal(e.Request(context.Background(), "drafts.stage", []byte(in)), &env); err != nil {
		t.Fatal(err)
	}
	target := ".ai/learnings/2026-03-04-disk-full.md"
	x := env.Error
	if x.Code != "operation_failed" || !x.Staged || x.Receipt != "missing" || x.OperationID != "op-full" || !slices.Equal(x.Files, []string{target}) {
		t.Fatalf("error %+v", x)
	}
	for _, want := range []string{target + " is written and staged", "receipt", "no space left on device", `operation_id "op-full"`} {
		if !strings.Contains(x.Message, want) {
			t.Errorf("the message lacks %q: %s", want, x.Message)
		}
	}
	if !slices.Contains(w.staged, target) {
		t.Fatalf("staged %v", w.staged)
	}
	w.failDone = nil
	res := call(t, e, "drafts.stage", in)
	if res["path"] != target {
		t.Fatalf("the same request again: %v", res)
	}
	if again := call(t, e, "drafts.stage", in); again["replayed"] != true {
		t.Fatalf("after the receipt is stored, a retry replays: %v", again)
	}
}
