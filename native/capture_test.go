package native

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// captureSecrets are fake secrets of every redaction kind, built at run
// time so that no scanner flags the repository.
func captureSecrets() map[string]string {
	pemBody := strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 3)
	return map[string]string{
		"private_key":         "-----BEGIN " + "RSA PRIVATE KEY-----\n" + pemBody + "\n-----END " + "RSA PRIVATE KEY-----",
		"gcp_service_account": `{"type": "service_account", "private_key": "` + "-----BEGIN " + "PRIVATE KEY-----\\n" + strings.Repeat("QUJD", 12) + `"}`,
		"aws_access_key":      "AKIA" + strings.Repeat("Q7", 8),
		"aws_secret":          "aws_secret_access_key=" + strings.Repeat("wJalrXUtnFEMIK7MDENG", 2),
		"github_token":        "ghp_" + strings.Repeat("a1B2", 9),
		"slack_token":         "xox" + "b-" + "123456789012-" + strings.Repeat("Ab1", 8),
		"stripe_key":          "sk_" + "live_" + strings.Repeat("4eC39HqLyj", 2),
		"jwt":                 "eyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9",
		"password_assignment": "password=" + "hunter2hunter2",
		"bearer":              "Authorization: Bearer " + strings.Repeat("tok3nValue", 3),
		"email":               "jane.doe" + "@" + "example.com",
		// Issue 42's item 5: shapes the first rules missed.
		"gcp_api_key":        "AIza" + "SyB7x9Kq2mVt4LpR8wN3cZ5dF6gH1jK0sYQ",
		"google_oauth_token": "ya29." + "a0AfH6SMB7x9Kq2mVt4LpR8wN3cZ5dF6gH1jK0sYQe",
		"openai_api_key":     "sk-" + "proj-" + strings.Repeat("Qz7Xk2", 12) + "Ab" + "T3Blbk" + "FJ" + strings.Repeat("Lm4Np8", 12) + "Cd",
		"anthropic_api_key":  "sk-" + "ant-api03-" + strings.Repeat("Rt5Vw9Yz2", 10) + "aBc" + "AA",
		"npm_access_token":   "npm_" + strings.Repeat("k3Jd9Lq2Xz", 3) + "Wm7Pq4",
		"gitlab_pat":         "glpat-" + "Hs8Kd2Lq9Xz4Vm7Pn3Wb",
		"url_credentials":    "postgres://app:" + "Xk9vQ2mTz7Lp" + "@db.example.com/app",
	}
}

func captureRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.write(map[string]string{
		".ai/decisions/money.md": "---\ntitle: Money is integer cents\nstatus: accepted\npaths: [\"src/billing/**\"]\n---\n# Money is integer cents\n\nAmounts are int64 cents.\n",
		"src/billing/tax.go":     "package billing\n\n// Round rounds per line.\nfunc Round() {}\n",
	})
	r.commit("2026-01-01T10:00:00Z", "initial")
	return r
}

func (r *repo) inboxFile(id string) string {
	return filepath.Join(r.git("rev-parse", "--absolute-git-dir"), "kontext", "inbox", id+".json")
}

func TestCaptureRedactsAndDeduplicates(t *testing.T) {
	r := captureRepo(t)
	secrets := captureSecrets()
	var body []string
	for _, s := range secrets {
		body = append(body, "leaked: "+s)
	}
	entry := map[string]any{"kind": "learning", "title": "Rounding mail to " + secrets["email"], "body": strings.Join(body, "\n\n"),
		"paths": []string{"src/billing/*.go"}, "tags": []string{"billing"}, "extends": []string{"money"},
		"evidence": []map[string]string{
			{"ref": "code:.@HEAD:src/billing/tax.go#L1-3", "quote": "package   billing"},
			{"ref": "code:.@HEAD:src/billing/tax.go#L3-4", "quote": "package billing"},
			{"ref": "code:other/repo@abc123:x.go", "quote": "x"},
			{"ref": "code:.@no-such-rev:src/billing/tax.go", "quote": "x"},
			{"ref": "pr:42"},
			{"ref": "url:https://example.org/post", "quote": "y"},
		}}
	input, _ := json.Marshal(map[string]any{"entry": entry, "source": "chat with " + secrets["email"]})
	res := r.api("drafts.capture", string(input))
	red := res["redactions"].(map[string]any)
	for kind := range secrets {
		want := 1.0
		if kind == "email" {
			want = 3 // title, body, source
		}
		if red[kind] != want {
			t.Errorf("redactions[%s] = %v, want %v (all: %v)", kind, red[kind], want, red)
		}
	}
	c := res["candidate"].(map[string]any)
	id := c["id"].(string)
	if !strings.HasPrefix(id, "cand-") || len(id) != 17 || c["state"] != "pending" || c["kind"] != "learning" {
		t.Fatalf("candidate %v", c)
	}
	if c["worktree"].(map[string]any)["root"] != r.git("rev-parse", "--show-toplevel") {
		t.Fatalf("worktree %v", c["worktree"])
	}
	if h := c["history"].([]any); len(h) != 1 || h[0].(map[string]any)["event"] != "captured" {
		t.Fatalf("history %v", h)
	}
	stored, err := os.ReadFile(r.inboxFile(id))
	if err != nil {
		t.Fatal(err)
	}
	for kind, s := range secrets {
		secret := s
		if kind == "url_credentials" {
			secret = "Xk9vQ2mTz7Lp"
		} else if i := strings.LastIndexAny(s, "=: "); i >= 0 && kind != "private_key" && kind != "gcp_service_account" {
			secret = s[i+1:]
		}
		if kind == "private_key" || kind == "gcp_service_account" {
			secret = strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 3)[:40]
			if kind == "gcp_service_account" {
				secret = strings.Repeat("QUJD", 12)
			}
		}
		if strings.Contains(string(stored), secret) || strings.Contains(string(res["candidate"].(map[string]any)["entry"].(map[string]any)["body"].(string)), secret) {
			t.Errorf("%s survived in the stored candidate", kind)
		}
	}
	var verdicts []string
	for _, ev := range res["evidence"].([]any) {
		verdicts = append(verdicts, ev.(map[string]any)["verification"].(string))
	}
	if got := strings.Join(verdicts, ","); got != "verified,quote_not_found,unverifiable,unverifiable,none,unverifiable" {
		t.Fatalf("evidence %s", got)
	}
	rel := res["related_entries"].([]any)
	if len(rel) == 0 || rel[0].(map[string]any)["id"] != "money" {
		t.Fatalf("related %v", rel)
	}
	// The same content again is the same candidate, not a second one.
	again := r.api("drafts.capture", string(input))
	if again["candidate"].(map[string]any)["id"] != id {
		t.Fatalf("recapture made %v", again["candidate"])
	}
	if n := len(r.api("inbox.list", `{}`)["candidates"].([]any)); n != 1 {
		t.Fatalf("%d candidates", n)
	}
}

func TestCaptureReplayAndErrors(t *testing.T) {
	r := captureRepo(t)
	in := `{"entry":{"kind":"adr","title":"Use integer cents","body":"b"},"operation_id":"op-1"}`
	first := r.api("drafts.capture", in)
	if first["candidate"].(map[string]any)["kind"] != "decision" || first["replayed"] != nil {
		t.Fatalf("first %v", first)
	}
	again := r.api("drafts.capture", in)
	if again["replayed"] != true || again["candidate"].(map[string]any)["id"] != first["candidate"].(map[string]any)["id"] {
		t.Fatalf("replay %v", again)
	}
	if c := errCode(r.call("drafts.capture", `{"entry":{"kind":"adr","title":"Other","body":"b"},"operation_id":"op-1"}`)); c != "operation_conflict" {
		t.Fatalf("conflict: %s", c)
	}
	long := strings.Repeat("t", 201)
	for input, code := range map[string]string{
		`{}`: "invalid_input",
		`{"entry":{"kind":"challenge","title":"x"}}`:                                       "invalid_input",
		`{"entry":{"kind":"rule","title":"x"}}`:                                            "invalid_input",
		`{"entry":{"kind":"learning","title":"  "}}`:                                       "invalid_input",
		`{"entry":{"kind":"learning","title":"` + long + `"}}`:                             "invalid_input",
		`{"entry":{"kind":"learning","title":"x","paths":["src/[a"]}}`:                     "invalid_input",
		`{"entry":{"kind":"learning","title":"x","extends":["nope"]}}`:                     "unknown_entry",
		`{"entry":{"kind":"learning","title":"x","evidence":[{"ref":"jira:1"}]}}`:          "invalid_input",
		`{"entry":{"kind":"learning","title":"x","evidence":[{"ref":"url:ftp://x/y"}]}}`:   "invalid_input",
		`{"entry":{"kind":"learning","title":"x","evidence":[{"ref":"code:r@v:p#L3-1"}]}}`: "invalid_input",
		`{"entry":{"kind":"learning","title":"x","verify":"a\nb"}}`:                        "invalid_input",
		`{"entry":{"kind":"learning","title":"x","visibility":"private"}}`:                 "",
	} {
		m := r.call("drafts.capture", input)
		if c := errCode(m); c != code {
			t.Errorf("%s: %q, want %q", input, c, code)
		}
		if code == "invalid_input" && strings.Contains(input, "src/[a") && !strings.Contains(m["error"].(map[string]any)["message"].(string), "src/[a") {
			t.Errorf("the message does not name the pattern: %v", m["error"])
		}
	}
}

func TestInboxListDropVerifyChallenge(t *testing.T) {
	r := captureRepo(t)
	a := r.api("drafts.capture", `{"entry":{"kind":"learning","title":"A","body":"a"}}`)["candidate"].(map[string]any)["id"].(string)
	b := r.api("drafts.capture", `{"entry":{"kind":"convention","title":"B","body":"b"}}`)["candidate"].(map[string]any)["id"].(string)

	dropped := r.api("inbox.drop", `{"id":"`+a+`","reason":"duplicate of money"}`)
	h := dropped["history"].([]any)
	if dropped["state"] != "dismissed" || len(h) != 2 || h[1].(map[string]any)["reason"] != "duplicate of money" {
		t.Fatalf("drop %v", dropped)
	}
	if again := r.api("inbox.drop", `{"id":"`+a+`"}`); again["state"] != "dismissed" || len(again["history"].([]any)) != 2 {
		t.Fatalf("drop again %v", again)
	}
	ids := func(state string) []string {
		var out []string
		for _, c := range r.api("inbox.list", `{"state":"`+state+`"}`)["candidates"].([]any) {
			out = append(out, c.(map[string]any)["id"].(string))
		}
		return out
	}
	if p, d, all := ids("pending"), ids("dismissed"), ids("all"); len(p) != 1 || p[0] != b || len(d) != 1 || d[0] != a || len(all) != 2 {
		t.Fatalf("pending %v dismissed %v all %v", p, d, all)
	}
	if c := errCode(r.call("inbox.list", `{"state":"open"}`)); c != "invalid_input" {
		t.Fatal(c)
	}

	v := r.api("inbox.verify", `{"id":"`+b+`","verify":"go test ./src/billing"}`)
	if v["verify"] != "go test ./src/billing" || v["entry"].(map[string]any)["verify"] != "go test ./src/billing" {
		t.Fatalf("verify %v", v)
	}
	if v := r.api("inbox.verify", `{"id":"`+b+`","verify":""}`); v["verify"] != nil {
		t.Fatalf("removed %v", v)
	}
	for input, code := range map[string]string{
		`{"id":"` + b + `","verify":"a\nb"}`:                             "invalid_input",
		`{"id":"` + b + `","verify":"` + strings.Repeat("x", 501) + `"}`: "invalid_input",
		`{"id":"cand-000000000000","verify":"x"}`:                        "not_found",
		`{"id":"../../config","verify":"x"}`:                             "not_found",
		`{"id":"` + a + `","verify":"x"}`:                                "operation_conflict",
	} {
		if c := errCode(r.call("inbox.verify", input)); c != code {
			t.Errorf("verify %s: %q, want %q", input, c, code)
		}
	}
	if c := errCode(r.call("inbox.drop", `{"id":"cand-000000000000"}`)); c != "not_found" {
		t.Fatal(c)
	}

	ch := r.api("inbox.challenge", `{"id":"money","because":"we now store micros; ask `+"ops"+"@"+"example.com"+`"}`)
	c := ch["candidate"].(map[string]any)
	extra := c["extra"].(map[string]any)
	if c["kind"] != "challenge" || extra["against"] != "money" || extra["against_revision"] != r.git("rev-parse", "HEAD") ||
		extra["against_blob"] != r.git("rev-parse", "HEAD:.ai/decisions/money.md") {
		t.Fatalf("challenge %v", c)
	}
	if ch["redactions"].(map[string]any)["email"] != 1.0 || strings.Contains(c["entry"].(map[string]any)["body"].(string), "example.com") {
		t.Fatalf("challenge not redacted: %v", ch)
	}
	if !strings.Contains(strings.Join(toStrings(ch["notes"]), " "), "never be staged") {
		t.Fatalf("notes %v", ch["notes"])
	}
	if p := ids("pending"); len(p) != 2 {
		t.Fatalf("pending after challenge %v", p)
	}
	if code := errCode(r.call("inbox.verify", `{"id":"`+c["id"].(string)+`","verify":"x"}`)); code != "invalid_input" {
		t.Fatalf("verify of a challenge: %s", code)
	}
	for input, code := range map[string]string{`{"id":"nope","because":"x"}`: "not_found", `{"id":"money","because":" "}`: "invalid_input"} {
		if got := errCode(r.call("inbox.challenge", input)); got != code {
			t.Errorf("challenge %s: %s, want %s", input, got, code)
		}
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

func TestInboxWorktreeConflict(t *testing.T) {
	r := captureRepo(t)
	id := "cand-0123456789ab"
	cand := `{"id":"` + id + `","state":"pending","kind":"learning","entry":{"kind":"learning","title":"T"},"created_at":"2026-01-01T00:00:00Z","history":[],"worktree":{"root":"/some/other/worktree"}}`
	if err := os.MkdirAll(filepath.Dir(r.inboxFile(id)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.inboxFile(id), []byte(cand), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := errCode(r.call("inbox.drop", `{"id":"`+id+`"}`)); c != "worktree_conflict" {
		t.Fatalf("drop: %s", c)
	}
	if c := errCode(r.call("inbox.verify", `{"id":"`+id+`","verify":"make test"}`)); c != "worktree_conflict" {
		t.Fatalf("verify: %s", c)
	}
}
