package native

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/native/internal/verifyrun"
)

// verifyRepo is a committed repository with one convention per script:
// .ai/conventions/<name>.md runs `sh ./<name>.sh` and governs src/**.
func verifyRepo(t *testing.T, scripts map[string]string) (*repo, string) {
	t.Helper()
	r := newRepo(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("KONTEXT_VERIFY_TIMEOUT_SECS", "")
	files := map[string]string{"src/x.go": "package x\n", "other.txt": "o\n"}
	for name, body := range scripts {
		files[name+".sh"] = body
		files[".ai/conventions/"+name+".md"] = "---\nstatus: active\npaths: [\"src/**\"]\nverify: sh ./" + name + ".sh\n---\n# " + name + "\n\nBody.\n"
	}
	r.write(files)
	r.git("config", "user.name", "Vera Verifier")
	r.commit("2026-01-01T10:00:00Z", "initial")
	return r, r.api("status", "{}")["root"].(string)
}

func pin(t *testing.T, root, id, command string) {
	t.Helper()
	if _, err := verifyrun.AddPin(root, id, command, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func verifyErr(r *repo, input string) map[string]any {
	m := r.call("drafts.verify", input)
	if m["ok"] != false {
		r.t.Fatalf("drafts.verify %s succeeded: %v", input, m)
	}
	return m["error"].(map[string]any)
}

// pidDead waits up to 3 s for the pid written to file to be gone (or a
// zombie nobody reaps).
func pidDead(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the command did not write its child's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("child %d still runs after the verify returned", pid)
}

func TestVerifyUntrustedRunsNothing(t *testing.T) {
	r, root := verifyRepo(t, map[string]string{"mark": "touch marker\n"})
	e := verifyErr(r, `{"id":"mark"}`)
	cmd := "sh ./mark.sh"
	if e["code"] != "untrusted_verify" || e["id"] != "mark" || e["command"] != cmd ||
		e["command_sha256"] != engine.CommandSHA256(cmd) || e["hint"] != "kontext trust --verify mark" {
		t.Fatalf("error %v", e)
	}
	// A pin of another command, another id or another repository is no pin.
	pin(t, root, "mark", "sh ./mark.sh ")
	pin(t, root, "other", cmd)
	pin(t, filepath.Join(root, "sub"), "mark", cmd)
	if e := verifyErr(r, `{"id":"mark"}`); e["code"] != "untrusted_verify" {
		t.Fatalf("error %v", e)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "marker")); err == nil {
		t.Fatal("an unpinned verify command ran")
	}
	if staged := r.git("diff", "--cached", "--name-only"); staged != "" {
		t.Fatalf("staged %q", staged)
	}
}

func TestVerifyRefusals(t *testing.T) {
	r, root := verifyRepo(t, map[string]string{"mark": "touch marker\n"})
	r.write(map[string]string{
		".ai/conventions/old.md":  "---\nstatus: deprecated\nverify: sh ./mark.sh\n---\n# Old\n",
		".ai/conventions/none.md": "---\nstatus: active\n---\n# None\n",
	})
	pin(t, root, "old", "sh ./mark.sh")
	for input, code := range map[string]string{
		`{"id":"nope"}`: "not_found", `{"id":"none"}`: "invalid_input", `{"id":"old"}`: "operation_conflict",
		`{"id":"old","because":"a\nb"}`: "invalid_input",
	} {
		if e := verifyErr(r, input); e["code"] != code {
			t.Errorf("%s: %v, want %s", input, e, code)
		}
	}
	if _, err := os.Stat(filepath.Join(r.dir, "marker")); err == nil {
		t.Fatal("an inactive entry's verify command ran")
	}
}

func TestVerifyPinnedPasses(t *testing.T) {
	r, root := verifyRepo(t, map[string]string{"ok": "echo all good\n"})
	t.Setenv("KONTEXT_NOW", "2026-11-30T12:34:56Z")
	pin(t, root, "ok", "sh ./ok.sh")
	res := r.api("drafts.verify", `{"id":"ok","because":"after the refactor"}`)
	head := r.git("rev-parse", "HEAD")
	want := map[string]any{"id": "ok", "command": "sh ./ok.sh", "command_sha256": engine.CommandSHA256("sh ./ok.sh"), "ran": true,
		"passed": true, "exit_code": 0.0, "timed_out": false, "output_tail": "all good\n", "at": "2026-11-30T12:34:56Z",
		"commit": head, "dirty": false, "dirty_paths": []any{}, "path": ".ai/confirmations.log"}
	if got, _ := json.Marshal(res); string(got) != mustJSON(t, want) {
		t.Fatalf("result\n%s\nwant\n%s", got, mustJSON(t, want))
	}
	if staged := r.git("diff", "--cached", "--name-only"); staged != ".ai/confirmations.log" {
		t.Fatalf("staged %q", staged)
	}
	line := r.git("show", ":.ai/confirmations.log")
	wantLine := `{"at":"2026-11-30T12:34:56Z","kind":"verify","id":"ok","commit":"` + head + `","by":"application:api","because":"after the refactor","passed":true,"exit_code":0,"command_sha256":"` + engine.CommandSHA256("sh ./ok.sh") + `"}`
	if line != wantLine {
		t.Fatalf("ledger\n%s\nwant\n%s", line, wantLine)
	}
	en := r.entry("ok")
	if en["failing"] == true {
		t.Fatalf("failing after a passed verify: %v", en)
	}
	if lv, _ := en["last_verified"].(map[string]any); lv == nil || lv["kind"] != "verify" {
		t.Fatalf("last_verified %v", en["last_verified"])
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestVerifyFails(t *testing.T) {
	r, root := verifyRepo(t, map[string]string{"bad": "echo broken >&2\nexit 7\n"})
	pin(t, root, "bad", "sh ./bad.sh")
	res := r.api("drafts.verify", `{"id":"bad"}`)
	if res["passed"] != false || res["exit_code"] != 7.0 || res["timed_out"] != false || res["output_tail"] != "broken\n" {
		t.Fatalf("result %v", res)
	}
	if line := r.read(".ai/confirmations.log"); !strings.Contains(line, `"because":null,"passed":false,"exit_code":7,`) {
		t.Fatalf("ledger %s", line)
	}
	if en := r.entry("bad"); en["failing"] != true {
		t.Fatalf("not failing after a failed verify: %v", en)
	}
}

func TestVerifyTimeoutKillsTheTree(t *testing.T) {
	r, root := verifyRepo(t, map[string]string{"slow": "echo started\nsleep 30 &\necho $! > pidfile\nwait\n"})
	pin(t, root, "slow", "sh ./slow.sh")
	t.Setenv("KONTEXT_VERIFY_TIMEOUT_SECS", "1")
	start := time.Now()
	res := r.api("drafts.verify", `{"id":"slow"}`)
	if res["timed_out"] != true || res["exit_code"] != nil || res["passed"] != false || res["output_tail"] != "started\n" {
		t.Fatalf("result %v", res)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("took %v", d)
	}
	pidDead(t, filepath.Join(r.dir, "pidfile"))
	if line := r.read(".ai/confirmations.log"); !strings.Contains(line, `"passed":false,"exit_code":null,`) {
		t.Fatalf("ledger %s", line)
	}
	t.Setenv("KONTEXT_VERIFY_TIMEOUT_SECS", "soon")
	if e := verifyErr(r, `{"id":"slow"}`); e["code"] != "invalid_input" {
		t.Fatalf("bad timeout: %v", e)
	}
}

func TestVerifyChildHoldingStdout(t *testing.T) {
	r, root := verifyRepo(t, map[string]string{"held": "(sleep 30 & echo $! > pidfile)\necho shell done\nexit 0\n"})
	pin(t, root, "held", "sh ./held.sh")
	done := make(chan map[string]any, 1)
	go func() { done <- r.api("drafts.verify", `{"id":"held"}`) }()
	var res map[string]any
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("verify did not return while a child held its stdout open")
	}
	if res["exit_code"] != 0.0 || res["timed_out"] != false || !strings.Contains(res["output_tail"].(string), "shell done") {
		t.Fatalf("result %v", res)
	}
	pidDead(t, filepath.Join(r.dir, "pidfile"))
}

func TestVerifyEnvironment(t *testing.T) {
	r, root := verifyRepo(t, map[string]string{"env": "echo \"hidden=$KONTEXT_TEST_SECRET through=$KONTEXT_TEST_PASS user=$KONTEXT_TEST_USERCONF home=${HOME:+set}\"\n"})
	pin(t, root, "env", "sh ./env.sh")
	t.Setenv("KONTEXT_TEST_SECRET", "s3cret")
	t.Setenv("KONTEXT_TEST_PASS", "visible")
	t.Setenv("KONTEXT_TEST_USERCONF", "alsovisible")
	gitDir := r.git("rev-parse", "--absolute-git-dir")
	writeFile(t, filepath.Join(gitDir, "kontext", "config.toml"), "[verify]\npass_env = [\"KONTEXT_TEST_PASS\"]\n")
	writeFile(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "kontext", "config.toml"), "[verify]\npass_env = [\"KONTEXT_TEST_USERCONF\"]\ntimeout_secs = 30\n[llm]\nadapter = \"x\"\n")
	res := r.api("drafts.verify", `{"id":"env"}`)
	if res["output_tail"] != "hidden= through=visible user=alsovisible home=set\n" {
		t.Fatalf("output %q", res["output_tail"])
	}
	// A committed config cannot pass variables through.
	r.write(map[string]string{".kontext.toml": "version = 1\n\n[verify]\npass_env = [\"KONTEXT_TEST_SECRET\"]\n"})
	if m := r.call("drafts.verify", `{"id":"env"}`); m["ok"] == true && strings.Contains(m["result"].(map[string]any)["output_tail"].(string), "s3cret") {
		t.Fatal("a committed config passed a variable through")
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyOutputRedacted(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3d", 9)
	gcp := "AIza" + "SyB7x9Kq2mVt4LpR8wN3cZ5dF6gH1jK0sYQ"
	pass := "Xk9vQ2mTz7Lp"
	apiToken := strings.Repeat("Zq3kV9xR7m", 3)
	r, root := verifyRepo(t, map[string]string{"leak": "echo \"token=" + token + "\"\n" +
		"echo \"key " + gcp + "\"\n" + "echo \"DATABASE_URL=postgres://app:" + pass + "@db.example.com/app\"\n" +
		"echo \"API_TOKEN=" + apiToken + "\"\n"})
	pin(t, root, "leak", "sh ./leak.sh")
	res := r.api("drafts.verify", `{"id":"leak"}`)
	out := res["output_tail"].(string)
	if strings.Contains(out, token) || !strings.Contains(out, "[redacted:github_token]") {
		t.Fatalf("output %q", out)
	}
	for _, s := range []string{gcp, pass, apiToken} {
		if strings.Contains(out, s) {
			t.Fatalf("%s survived in the output %q", s, out)
		}
	}
	for _, m := range []string{"[redacted:gcp_api_key]", "postgres://app:[redacted:url_credentials]@db.example.com", "API_TOKEN=[redacted:password_assignment]"} {
		if !strings.Contains(out, m) {
			t.Fatalf("%s missing from the output %q", m, out)
		}
	}
	if strings.Contains(r.read(".ai/confirmations.log"), token) {
		t.Fatal("the token reached the ledger")
	}
}

func TestVerifyDirty(t *testing.T) {
	r, root := verifyRepo(t, map[string]string{"ok": "echo ok\n"})
	pin(t, root, "ok", "sh ./ok.sh")
	r.write(map[string]string{"src/x.go": "package x // edited\n", "src/new.go": "package x\n", "other.txt": "ungoverned edit\n"})
	res := r.api("drafts.verify", `{"id":"ok","because":"quick check"}`)
	if res["dirty"] != true || mustJSON(t, res["dirty_paths"]) != `["src/new.go","src/x.go"]` {
		t.Fatalf("result %v", res)
	}
	if line := r.read(".ai/confirmations.log"); !strings.Contains(line, `"because":"quick check [dirty: src/new.go, src/x.go]"`) {
		t.Fatalf("ledger %s", line)
	}
	// The entry's own uncommitted edit is dirty too; the ledger is not.
	r.git("checkout", "--", "src/x.go")
	os.Remove(filepath.Join(r.dir, "src/new.go"))
	r.appendFile(".ai/conventions/ok.md", "More.\n")
	res = r.api("drafts.verify", `{"id":"ok"}`)
	if mustJSON(t, res["dirty_paths"]) != `[".ai/conventions/ok.md"]` {
		t.Fatalf("result %v", res)
	}
	if line := r.read(".ai/confirmations.log"); !strings.Contains(line, `"because":"[dirty: .ai/conventions/ok.md]"`) {
		t.Fatalf("ledger %s", line)
	}
}
