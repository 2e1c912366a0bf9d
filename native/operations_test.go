package native

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// The binaries of the process tests (built once per test run).
var (
	binDir   string
	binOnce  = map[string]*sync.Once{"kontext": {}, "kontext-fault": {}}
	binErr   = map[string]error{}
	binMu    sync.Mutex
	binSetup sync.Once
)

func TestMain(m *testing.M) {
	if os.Getenv("KONTEXT_STUB_MODEL") != "" {
		os.Exit(stubModel()) // this binary is the command adapter's model
	}
	code := testrepo.M(m).Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// kontextBin builds ./cmd/kontext (name kontext-fault: with -tags
// faultinject) and returns its path.
func kontextBin(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the kontext binary")
	}
	binSetup.Do(func() {
		d, err := os.MkdirTemp("", "kontext-bin-")
		if err != nil {
			panic(err)
		}
		binDir = d
	})
	out := filepath.Join(binDir, name)
	binOnce[name].Do(func() {
		args := []string{"build", "-o", out}
		if name == "kontext-fault" {
			args = append(args, "-tags", "faultinject")
		}
		cmd := exec.Command("go", append(args, "./cmd/kontext")...)
		cmd.Dir = testrepo.Root()
		if b, err := cmd.CombinedOutput(); err != nil {
			binMu.Lock()
			binErr[name] = fmt.Errorf("go build: %v\n%s", err, b)
			binMu.Unlock()
		}
	})
	binMu.Lock()
	defer binMu.Unlock()
	if err := binErr[name]; err != nil {
		t.Fatal(err)
	}
	return out
}

// runAPI runs `bin -C dir api op -` with input on stdin; it returns the
// envelope (nil when the process printed none) and the exit code.
func runAPI(bin, dir, op, input string, env ...string) (map[string]any, int, string) {
	cmd := exec.Command(bin, "-C", dir, "api", op, "-")
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return nil, -1, err.Error()
	}
	var m map[string]any
	if json.Unmarshal(stdout.Bytes(), &m) != nil {
		m = nil
	}
	return m, code, stdout.String() + stderr.String()
}

func (r *repo) receiptPath(opID string) string {
	h := sha256.Sum256([]byte(opID))
	return filepath.Join(r.dir, ".git", "kontext", "operations", hex.EncodeToString(h[:])+".json")
}

// tempFiles lists leftover temporary files of atomic writes.
func tempFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && (strings.Contains(fi.Name(), ".kontext-tmp-") || strings.HasPrefix(fi.Name(), ".tmp-")) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func seededRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.write(map[string]string{
		".ai/conventions/2026-01-02-old-rule.md": "---\nstatus: active\n---\n# Old rule\n",
		"other.txt":                              "x\n",
	})
	r.commit("2026-01-05T10:00:00Z", "initial")
	r.write(map[string]string{"other.txt": "staged unrelated\n"})
	r.git("add", "other.txt")
	return r
}

func TestOperationsGet(t *testing.T) {
	r := seededRepo(t)
	if c := errCode(r.call("operations.get", `{"operation_id":"nope"}`)); c != "not_found" {
		t.Fatalf("missing receipt: %s", c)
	}
	res := r.api("drafts.stage", `{"operation_id":"op-1","entry":{"kind":"convention","title":"Get me"},"fingerprint":"fp-1"}`)
	got := r.api("operations.get", `{"operation_id":"op-1"}`)
	if got["state"] != "done" || got["path"] != res["path"] || got["replayed"] != false || got["staged"] != true {
		t.Fatalf("operations.get %v", got)
	}
	if r.api("operations.get", `{"operation_id":"op-1","fingerprint":"fp-1"}`)["state"] != "done" {
		t.Fatal("same fingerprint")
	}
	if c := errCode(r.call("operations.get", `{"operation_id":"op-1","fingerprint":"other"}`)); c != "operation_conflict" {
		t.Fatalf("fingerprint mismatch: %s", c)
	}
	if c := errCode(r.call("operations.get", `{}`)); c != "invalid_input" {
		t.Fatalf("no operation_id: %s", c)
	}
	// A receipt of another worktree is never used here.
	p := r.receiptPath("op-1")
	var rc map[string]any
	data, _ := os.ReadFile(p)
	json.Unmarshal(data, &rc)
	if rc["root"] == nil || rc["root"] == "" {
		t.Fatalf("receipt without root: %s", data)
	}
	rc["root"] = "/elsewhere"
	data, _ = json.Marshal(rc)
	os.WriteFile(p, data, 0o644)
	if c := errCode(r.call("operations.get", `{"operation_id":"op-1"}`)); c != "worktree_conflict" {
		t.Fatalf("other root: %s", c)
	}
}

// TestCrashMidWrite kills kontext between plan, write, stage and receipt
// (KONTEXT_FAULT in a -tags faultinject build) and resumes.
func TestCrashMidWrite(t *testing.T) {
	testrepo.Env(t)
	fault := kontextBin(t, "kontext-fault")
	for i, point := range []string{"after_plan", "after_write", "after_stage"} {
		for _, byFingerprint := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/fingerprint=%v", point, byFingerprint), func(t *testing.T) {
				r := seededRepo(t)
				opID := fmt.Sprintf("crash-%d", i)
				in := `{"operation_id":"` + opID + `","entry":{"kind":"convention","title":"Crash safe","body":"Body.\n","supersedes":["2026-01-02-old-rule"]}}`
				target := ".ai/conventions/2026-11-30-crash-safe.md"
				m, code, out := runAPI(fault, r.dir, "drafts.stage", in, "KONTEXT_FAULT="+point)
				if code != 99 || m != nil {
					t.Fatalf("exit %d, want 99 (killed): %s", code, out)
				}
				e := r.call("operations.get", `{"operation_id":"`+opID+`"}`)
				if errCode(e) != "operation_incomplete" {
					t.Fatalf("operations.get after the crash: %v", e)
				}
				fp, _ := e["error"].(map[string]any)["fingerprint"].(string)
				if fp == "" {
					t.Fatalf("operation_incomplete without fingerprint: %v", e)
				}
				if tmp := tempFiles(t, r.dir); len(tmp) > 0 {
					t.Fatalf("temporary files left: %v", tmp)
				}
				before, err := os.ReadFile(filepath.Join(r.dir, target))
				if point == "after_plan" && err == nil {
					t.Fatalf("%s written before the write step", target)
				}
				resume := in
				if byFingerprint {
					resume = `{"operation_id":"` + opID + `","fingerprint":"` + fp + `"}`
				}
				res := r.api("drafts.stage", resume)
				if res["replayed"] != false || res["path"] != target || res["staged"] != true {
					t.Fatalf("resume: %v", res)
				}
				final := r.read(target)
				if err == nil && string(before) != final {
					t.Fatalf("half-written file after the crash:\n%s\nfinal:\n%s", before, final)
				}
				if !strings.Contains(final, "# Crash safe") || !strings.Contains(final, "supersedes: [2026-01-02-old-rule]") {
					t.Fatalf("file:\n%s", final)
				}
				staged := r.git("diff", "--cached", "--name-only")
				if staged != ".ai/conventions/2026-01-02-old-rule.md\n"+target+"\nother.txt" {
					t.Fatalf("staged: %q", staged)
				}
				if !strings.Contains(r.git("show", ":.ai/conventions/2026-01-02-old-rule.md"), "status: superseded") {
					t.Fatal("the superseded entry was not staged")
				}
				if got := r.api("operations.get", `{"operation_id":"`+opID+`","fingerprint":"`+fp+`"}`); got["state"] != "done" || got["path"] != target {
					t.Fatalf("operations.get after the resume: %v", got)
				}
				if again := r.api("drafts.stage", resume); again["replayed"] != true || again["path"] != target {
					t.Fatalf("second resume: %v", again)
				}
				if files, _ := filepath.Glob(filepath.Join(r.dir, ".ai/conventions/*crash-safe*")); len(files) != 1 {
					t.Fatalf("entry files: %v", files)
				}
				if tmp := tempFiles(t, r.dir); len(tmp) > 0 {
					t.Fatalf("temporary files left: %v", tmp)
				}
			})
		}
	}
}

func TestResumeErrors(t *testing.T) {
	r := seededRepo(t)
	if c := errCode(r.call("drafts.stage", `{"operation_id":"none","fingerprint":"x"}`)); c != "not_found" {
		t.Fatalf("resume without a plan: %s", c)
	}
	r.api("drafts.stage", `{"operation_id":"op-r","fingerprint":"f1","entry":{"kind":"convention","title":"R"}}`)
	if res := r.api("drafts.stage", `{"operation_id":"op-r","fingerprint":"f1"}`); res["replayed"] != true {
		t.Fatalf("resume of a done receipt: %v", res)
	}
	if c := errCode(r.call("drafts.stage", `{"operation_id":"op-r","fingerprint":"f2"}`)); c != "operation_conflict" {
		t.Fatalf("other fingerprint: %s", c)
	}
}

func stagedEntries(r *repo) []string {
	var out []string
	for _, l := range strings.Split(r.git("diff", "--cached", "--name-only"), "\n") {
		if strings.HasPrefix(l, ".ai/") {
			out = append(out, l)
		}
	}
	return out
}

func TestConcurrentWriters(t *testing.T) {
	testrepo.Env(t)
	bin := kontextBin(t, "kontext")
	r := seededRepo(t)
	const n = 20
	var wg sync.WaitGroup
	outs := make([]string, n)
	oks := make([]bool, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			in := fmt.Sprintf(`{"operation_id":"par-%d","entry":{"kind":"learning","title":"Parallel learning %d"}}`, i, i)
			m, code, out := runAPI(bin, r.dir, "drafts.stage", in)
			oks[i], outs[i] = code == 0 && m != nil && m["ok"] == true, out
		}(i)
	}
	wg.Wait()
	for i := range oks {
		if !oks[i] {
			t.Fatalf("process %d: %s", i, outs[i])
		}
	}
	if got := stagedEntries(r); len(got) != n {
		t.Fatalf("%d staged entries, want %d: %v", len(got), n, got)
	}
	if r.git("show", ":other.txt") != "staged unrelated" {
		t.Fatal("the unrelated staged change was lost")
	}
	r.git("fsck", "--no-progress")
	r.git("status", "--porcelain")
	if tmp := tempFiles(t, r.dir); len(tmp) > 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
}

func TestSameOperationParallel(t *testing.T) {
	testrepo.Env(t)
	bin := kontextBin(t, "kontext")
	r := seededRepo(t)
	const n = 10
	in := `{"operation_id":"same","entry":{"kind":"learning","title":"Only once"}}`
	var wg sync.WaitGroup
	replayed := make([]any, n)
	outs := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			m, code, out := runAPI(bin, r.dir, "drafts.stage", in)
			outs[i] = out
			if code == 0 && m != nil && m["ok"] == true {
				replayed[i] = m["result"].(map[string]any)["replayed"]
			}
		}(i)
	}
	wg.Wait()
	fresh, again := 0, 0
	for i, v := range replayed {
		switch v {
		case false:
			fresh++
		case true:
			again++
		default:
			t.Fatalf("process %d: %s", i, outs[i])
		}
	}
	if fresh != 1 || again != n-1 {
		t.Fatalf("%d fresh writes and %d replays, want 1 and %d", fresh, again, n-1)
	}
	if got := stagedEntries(r); len(got) != 1 || got[0] != ".ai/learnings/2026-11-30-only-once.md" {
		t.Fatalf("staged entries: %v", got)
	}
	if files, _ := filepath.Glob(filepath.Join(r.dir, ".ai/learnings/*.md")); len(files) != 1 {
		t.Fatalf("entry files: %v", files)
	}
}
