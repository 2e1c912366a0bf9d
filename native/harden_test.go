package native

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// Regression tests of the write hardening: nothing is stored for bad
// input, the same operation_id in parallel writes once, a failed stage
// leaves no half-applied confirm, writes never land in .git or outside.

func confirmRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.write(map[string]string{
		".ai/conventions/a.md": "---\ntitle: A\nstatus: active\npaths: [\"src/**\"]\n---\n# A\n\nBody.\n",
		"src/x.go":             "x\n",
	})
	r.git("config", "user.name", "Ana Reviewer")
	r.commit("2026-01-01T10:00:00Z", "initial")
	return r
}

func TestFailedValidationStoresNothing(t *testing.T) {
	r := confirmRepo(t)
	for _, c := range []struct{ op, in, code string }{
		{"drafts.confirm", `{"id":"no-such-entry","operation_id":"v-1"}`, "unknown_entry"},
		{"drafts.capture", `{"operation_id":"v-2","entry":{"kind":"nonsense","title":"T"}}`, "invalid_input"},
		{"drafts.capture", `{"operation_id":"v-3","entry":{"kind":"learning","title":"###"}}`, "invalid_input"},
		{"drafts.stage", `{"operation_id":"v-4","entry":{"kind":"learning","title":"###"}}`, "invalid_input"},
		{"drafts.stage", `{"operation_id":"v-5","entry":{"kind":"learning","title":"Big","body":"` + strings.Repeat("x", 1<<20+10) + `"}}`, "invalid_input"},
		{"drafts.capture", `{"operation_id":"v-6","entry":{"kind":"learning","title":"Big","body":"` + strings.Repeat("x", 1<<20+10) + `"}}`, "invalid_input"},
	} {
		if got := errCode(r.call(c.op, c.in)); got != c.code && !(c.code == "unknown_entry" && got == "not_found") {
			t.Errorf("%s %.80s: %s, want %s", c.op, c.in, got, c.code)
		}
	}
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("v-%d", i)
		if _, err := os.Stat(r.receiptPath(id)); err == nil {
			t.Errorf("a request that failed validation stored a receipt (%s)", id)
		}
		if c := errCode(r.call("operations.get", `{"operation_id":"`+id+`"}`)); c != "not_found" {
			t.Errorf("operations.get %s: %s, want not_found (never started)", id, c)
		}
	}
	// The id is free for a good request.
	if res := r.api("drafts.confirm", `{"id":"a","operation_id":"v-1"}`); res["id"] != "a" {
		t.Fatalf("confirm after a failed attempt with the same id: %v", res)
	}
	if got := r.api("operations.get", `{"operation_id":"v-1"}`); got["state"] != "done" {
		t.Fatalf("operations.get: %v", got)
	}
}

func TestConfirmWithIndexLockHeld(t *testing.T) {
	r := confirmRepo(t)
	t.Setenv("KONTEXT_LOCK_TIMEOUT", "0.1")
	orig := r.read(".ai/conventions/a.md")
	lock := filepath.Join(r.dir, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	in := `{"id":"a","operation_id":"held-1","because":"re-read"}`
	if c := errCode(r.call("drafts.confirm", in)); c == "" {
		t.Fatal("confirm succeeded with git's index.lock held")
	}
	if got := r.read(".ai/conventions/a.md"); got != orig {
		t.Fatalf("half-applied confirm: the entry file changed:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".ai/confirmations.log")); err == nil {
		t.Fatal("half-applied confirm: the ledger was written")
	}
	if st := r.git("status", "--porcelain"); st != "" {
		t.Fatalf("the worktree changed: %q", st)
	}
	e := r.call("operations.get", `{"operation_id":"held-1"}`)
	ee, _ := e["error"].(map[string]any)
	if errCode(e) != "operation_incomplete" || ee["resumable"] != true || len(ee["files"].([]any)) != 2 {
		t.Fatalf("operations.get of the failed confirm: %v", e)
	}
	os.Remove(lock)
	res := r.api("drafts.confirm", in)
	if res["id"] != "a" || res["replayed"] == true {
		t.Fatalf("retry: %v", res)
	}
	if staged := r.git("diff", "--cached", "--name-only"); staged != ".ai/confirmations.log\n.ai/conventions/a.md" {
		t.Fatalf("staged after the retry: %q", staged)
	}
	if again := r.api("drafts.confirm", in); again["replayed"] != true {
		t.Fatalf("second retry: %v", again)
	}
}

// sameID runs n processes of op with one input and counts fresh writes
// and replays.
func sameID(t *testing.T, dir, op, in string, n int) (fresh, replays int) {
	bin := kontextBin(t, "kontext")
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, code, out := runAPI(bin, dir, op, in)
			mu.Lock()
			defer mu.Unlock()
			if code != 0 || m == nil || m["ok"] != true {
				t.Errorf("%s: %s", op, out)
				return
			}
			if m["result"].(map[string]any)["replayed"] == true {
				replays++
			} else {
				fresh++
			}
		}()
	}
	wg.Wait()
	return fresh, replays
}

func TestSameOperationParallelCaptureAndConfirm(t *testing.T) {
	testrepo.Env(t)
	r := confirmRepo(t)
	const n = 10
	for _, c := range []struct{ op, in string }{
		{"drafts.capture", `{"operation_id":"same-c","entry":{"kind":"learning","title":"Once","body":"x"}}`},
		{"drafts.confirm", `{"operation_id":"same-f","id":"a"}`},
	} {
		if fresh, replays := sameID(t, r.dir, c.op, c.in, n); fresh != 1 || replays != n-1 {
			t.Errorf("%s: %d writes and %d replays, want 1 and %d", c.op, fresh, replays, n-1)
		}
	}
	if led := r.read(".ai/confirmations.log"); strings.Count(led, "\n") != 1 {
		t.Fatalf("ledger:\n%s", led)
	}
}

func TestWritesNeverLandInGitOrOutside(t *testing.T) {
	r := confirmRepo(t)
	outside := t.TempDir()
	hooks := filepath.Join(r.dir, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	for _, c := range []struct{ kind, link string }{
		{"learnings", "../.git/hooks"},
		{"incidents", outside},
	} {
		if err := os.Symlink(c.link, filepath.Join(r.dir, ".ai", c.kind)); err != nil {
			t.Fatal(err)
		}
	}
	for _, kind := range []string{"learning", "incident"} {
		in := `{"operation_id":"link-` + kind + `","entry":{"kind":"` + kind + `","title":"Through a link"}}`
		if c := errCode(r.call("drafts.stage", in)); c != "invalid_input" {
			t.Errorf("stage through the %s link: %s, want invalid_input", kind, c)
		}
	}
	for _, dir := range []string{hooks, outside} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".md") || strings.Contains(e.Name(), "kontext-tmp") {
				t.Errorf("written through a link: %s", filepath.Join(dir, e.Name()))
			}
		}
	}
}

func TestBadPathsAreInvalidInput(t *testing.T) {
	r := confirmRepo(t)
	for _, p := range []string{".git/hooks/x.md", ".ai/conventions/.GIT/x.md", ".ai/conventions/a\u0000b.md", ".ai/conventions/notes.txt", ".ai/conventions/x.MD"} {
		in := fmt.Sprintf(`{"operation_id":"p-%x","requested_path":%q,"entry":{"kind":"convention","title":"P"}}`, p, p)
		if c := errCode(r.call("drafts.stage", in)); c != "invalid_input" {
			t.Errorf("requested_path %q: %s, want invalid_input", p, c)
		}
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".ai/conventions/notes.txt")); err == nil {
		t.Errorf("requested_path notes.txt made a directory")
	}
	// A directory with a dot in its name is still a directory: with a
	// trailing slash, or when it exists.
	for i, p := range []string{".ai/conventions/v1.2/", ".ai/conventions/v1.2"} {
		in := fmt.Sprintf(`{"operation_id":"dot-%d","requested_path":%q,"entry":{"kind":"convention","title":"Dotted dir %d"}}`, i, p, i)
		if env := r.call("drafts.stage", in); errCode(env) != "" {
			t.Errorf("requested_path %q: %v", p, env)
		}
	}
	head := r.git("rev-parse", "HEAD")
	for _, ref := range []string{"refs/heads/../main", "refs/heads/a..b", "refs/heads/x.lock", "refs/heads/a b"} {
		in := fmt.Sprintf(`{"revision":%q,"review_ref":%q}`, head, ref)
		if c := errCode(r.call("entries.export", in)); c != "invalid_input" {
			t.Errorf("review_ref %q: %s, want invalid_input", ref, c)
		}
	}
}

func TestSetupThroughLinksIsDiagnosed(t *testing.T) {
	outside := t.TempDir()
	for name, link := range map[string]func(r *repo) string{
		"absolute inside": func(r *repo) string {
			os.Mkdir(filepath.Join(r.dir, "know"), 0o755)
			return filepath.Join(r.dir, "know")
		},
		"outside":      func(r *repo) string { return outside },
		"relative out": func(r *repo) string { return "../x" },
	} {
		r := newRepo(t)
		if err := os.Symlink(link(r), filepath.Join(r.dir, ".ai")); err != nil {
			t.Fatal(err)
		}
		if c := errCode(r.call("setup", `{}`)); c != "invalid_input" {
			t.Errorf("%s: setup through the linked .ai: %s, want invalid_input", name, c)
		}
		if _, err := os.Lstat(filepath.Join(r.dir, ".kontext.toml")); err == nil {
			t.Errorf("%s: setup wrote .kontext.toml before refusing", name)
		}
		for _, d := range []string{filepath.Join(r.dir, "know"), outside} {
			if entries, _ := os.ReadDir(d); len(entries) > 0 {
				t.Errorf("%s: setup created %s/%s", name, d, entries[0].Name())
			}
		}
	}
	r := newRepo(t)
	cfg := filepath.Join(outside, "k.toml")
	os.WriteFile(cfg, []byte("version = 1\nstorage = \"kb\"\n"), 0o644)
	os.Symlink(cfg, filepath.Join(r.dir, ".kontext.toml"))
	if c := errCode(r.call("status", `{}`)); c != "invalid_input" {
		t.Fatalf("a configuration linked outside the repository was ignored silently: %s", c)
	}
}
