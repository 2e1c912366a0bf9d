package native

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kontext/kontext/internal/testrepo"
)

// stubModel is the scripted command model: the test binary run with
// KONTEXT_STUB_MODEL set reads one request {task, prompt, schema} and
// answers per task. STUB_MODE picks a wrong answer (unseen, unchanged,
// nonjson, prose, slow, fail, failsecret, hang, badschema); STUB_LOG gets
// every request.
func stubModel() int {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return 2
	}
	var req struct {
		Task   string         `json:"task"`
		Prompt string         `json:"prompt"`
		Schema map[string]any `json:"schema"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		fmt.Fprintln(os.Stderr, "stub: bad request:", err)
		return 2
	}
	if log := os.Getenv("STUB_LOG"); log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			f.Write(append(data, '\n'))
			f.Close()
		}
	}
	mode := os.Getenv("STUB_MODE")
	switch mode {
	case "fail":
		fmt.Fprintln(os.Stderr, "model crashed: out of memory")
		return 3
	case "slow":
		time.Sleep(time.Minute)
	case "failsecret":
		fmt.Fprintln(os.Stderr, "loading weights")
		fmt.Fprintln(os.Stderr, "model crashed: bad token password=hunter2hunter2, tell ops@example.com")
		return 5
	case "hang":
		// A child of its own that would outlive a stopped parent, and a
		// secret on stderr; then no answer.
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "stub: cannot start a child:", err)
			return 2
		}
		fmt.Fprintln(os.Stderr, "thinking; api key password=hunter2hunter2")
		pids := fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)
		if err := os.WriteFile(os.Getenv("STUB_PIDS"), []byte(pids), 0o644); err != nil {
			return 2
		}
		time.Sleep(5 * time.Minute)
	case "nonjson":
		fmt.Println("I think this insight is new.")
		return 0
	case "badschema":
		fmt.Println(`{"relations":[{"relation":"maybe","id":"x"}],"candidates":"none","title":7}`)
		return 0
	}
	var answer any
	switch req.Task {
	case "related":
		rels := []map[string]string{{"relation": "extends", "id": "2026-01-14-vat-is-rounded-per-line"}, {"relation": "conflicts", "id": "no-such-entry"}}
		if mode == "unseen" {
			rels = rels[1:]
		}
		answer = map[string]any{"relations": rels}
	case "extract":
		answer = map[string]any{"candidates": []map[string]any{
			{"kind": "learning", "title": "Credit notes reuse the invoice's VAT rate", "summary": "A credit note takes the rate of the invoice it corrects.",
				"body": "A credit note uses the VAT rate of the invoice it corrects, not today's rate.", "paths": []string{"src/billing/**"}, "quote": "credit notes must use the original rate"},
			{"kind": "decision", "title": "Money is integer cents", "summary": "s", "body": "b", "paths": []string{}, "quote": "we keep cents"},
		}}
	case "formalize":
		answer = map[string]any{"kind": "learning", "title": "Excel needs a BOM in UTF-8 CSV exports", "summary": "Write a UTF-8 BOM so Excel reads exports correctly.",
			"body": "Excel opens UTF-8 CSV files without a byte order mark as ANSI. Write the BOM first.", "paths": []string{"src/export/**"}, "notes": []string{"title made specific"}}
	case "revise":
		b := "Round VAT once per invoice total, then distribute the difference over the lines."
		if mode == "unchanged" {
			_, rest, _ := strings.Cut(req.Prompt, "### Entry body\n\n")
			b, _, _ = strings.Cut(rest, "\n\n### Objections")
		}
		answer = map[string]any{"title": "VAT is rounded per invoice", "summary": "Round VAT on the total.", "body": b, "notes": []string{"answers the objection"}}
	case "guidance":
		answer = map[string]any{"title": "Name the VAT rule in billing reviews", "summary": "Reviews of billing code name the VAT rounding rule.",
			"body": "- Name the rounding rule when VAT code changes.", "paths": []string{"src/billing/**"}, "notes": []string{}}
	default:
		fmt.Fprintln(os.Stderr, "stub: unknown task", req.Task)
		return 4
	}
	out, _ := json.Marshal(answer)
	if mode == "prose" {
		fmt.Printf("Here is the answer:\n%s\nHope that helps.\n", out)
		return 0
	}
	fmt.Println(string(out))
	return 0
}

// useStubModel selects the test binary as the command model.
func useStubModel(t *testing.T, mode string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, _ := json.Marshal([]string{exe, "-test.run=^$"})
	t.Setenv("KONTEXT_LLM", "command")
	t.Setenv("KONTEXT_LLM_COMMAND", string(argv))
	t.Setenv("KONTEXT_STUB_MODEL", "1")
	t.Setenv("STUB_MODE", mode)
	log := filepath.Join(t.TempDir(), "requests.jsonl")
	t.Setenv("STUB_LOG", log)
	return log
}

func noModelEnv(t *testing.T) {
	for _, k := range []string{"KONTEXT_LLM", "KONTEXT_LLM_COMMAND", "KONTEXT_LLM_BASE_URL", "KONTEXT_LLM_MODEL", "KONTEXT_LLM_API_KEY_ENV", "KONTEXT_LLM_TIMEOUT_SECS"} {
		t.Setenv(k, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

const vatRev = "<rev:.ai/decisions/2026-01-14-vat-is-rounded-per-line.md>"
const slogRev = "<rev:.ai/conventions/2026-08-28-log-with-slog.md>"

// revisions replaces <rev:path> by the blob id of the file in dir.
func revisions(t *testing.T, dir, input string) string {
	for {
		i := strings.Index(input, "<rev:")
		if i < 0 {
			return input
		}
		j := strings.Index(input[i:], ">")
		p := input[i+5 : i+j]
		rev := strings.TrimSpace(testrepo.Git(t, dir, "hash-object", p))
		input = input[:i] + rev + input[i+j+1:]
	}
}

// TestContractModelsWithout: the model operations without a model.
func TestContractModelsWithout(t *testing.T) {
	noModelEnv(t)
	dir := testrepo.Demo(t)
	for _, c := range []contractCase{
		{"extend", "drafts.extend", `{"entry_id":"2026-08-28-log-with-slog","entry_revision":"` + slogRev + `","text":"Use slog.Group for request attributes.","llm":true}`},
		{"extend_decision", "drafts.extend", `{"entry_id":"2026-01-14-vat-is-rounded-per-line","entry_revision":"` + vatRev + `","text":"x"}`},
		{"extend_stale", "drafts.extend", `{"entry_id":"2026-08-28-log-with-slog","entry_revision":"0000000000000000000000000000000000000000","text":"x"}`},
		{"extend_too_long", "drafts.extend", `{"entry_id":"2026-08-28-log-with-slog","entry_revision":"` + slogRev + `","text":"` + strings.Repeat("a", 4001) + `"}`},
		{"formalize_as_written", "drafts.formalize", `{"entry":{"kind":"learning","title":"CSV exports need a BOM","body":"Excel reads UTF-8 CSV only with a BOM.","paths":["src/export/**"]},"sources":["external:pr/12"]}`},
		{"formalize_empty", "drafts.formalize", `{"entry":{}}`},
		{"extract_no_model", "drafts.extract", `{"text":"We decided to keep money in cents."}`},
		{"revise_no_model", "drafts.revise", `{"entry_id":"2026-01-14-vat-is-rounded-per-line","entry_revision":"` + vatRev + `","objections":["rounding per line loses cents"]}`},
		{"revise_no_objections", "drafts.revise", `{"entry_id":"2026-01-14-vat-is-rounded-per-line","entry_revision":"` + vatRev + `","objections":[]}`},
		{"guidance_no_model", "guidance.propose", `{"kept":["name the VAT rule"],"dismissed":[],"missed":[]}`},
		{"formalize_llm_no_model", "drafts.formalize", `{"entry":{"title":"x"},"llm":true}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := Request(context.Background(), dir, c.op, []byte(revisions(t, dir, c.input)))
			checkGolden(t, "models_"+c.name, dir, env)
		})
	}
}

// TestContractModels: the model operations against the scripted command
// model (its answers in stubModel), including wrong answers.
func TestContractModels(t *testing.T) {
	noModelEnv(t)
	dir := testrepo.Demo(t)
	cases := []struct {
		contractCase
		mode string
	}{
		{contractCase{"status_llm", "status", `{}`}, ""},
		{contractCase{"related", "entries.related", `{"text":"VAT rounding of credit notes","paths":["src/billing/tax/vat.go"],"llm":true}`}, ""},
		{contractCase{"related_unseen", "entries.related", `{"text":"something about VAT lines","llm":"command"}`}, "unseen"},
		{contractCase{"extract", "drafts.extract", `{"text":"In review: credit notes must use the original rate. Also we keep cents.","source":"external:pr/7","max":3}`}, ""},
		{contractCase{"formalize", "drafts.formalize", `{"entry":{"kind":"learning","title":"CSV BOM","body":"excel needs the bom"},"llm":true}`}, ""},
		{contractCase{"revise", "drafts.revise", `{"entry_id":"2026-01-14-vat-is-rounded-per-line","entry_revision":"` + vatRev + `","objections":["rounding per line loses cents on long invoices"],"llm":true}`}, ""},
		{contractCase{"revise_unchanged", "drafts.revise", `{"entry_id":"2026-01-14-vat-is-rounded-per-line","entry_revision":"` + vatRev + `","objections":["too strict"]}`}, "unchanged"},
		{contractCase{"guidance", "guidance.propose", `{"kept":["name the VAT rule"],"dismissed":["log with slog"],"missed":["credit notes"],"profile_tag":"billing"}`}, ""},
		{contractCase{"nonjson", "drafts.extract", `{"text":"anything"}`}, "nonjson"},
		{contractCase{"prose", "drafts.formalize", `{"entry":{"title":"CSV BOM"},"llm":true}`}, "prose"},
		{contractCase{"badschema", "entries.related", `{"text":"VAT rounding","llm":true}`}, "badschema"},
		{contractCase{"fail", "guidance.propose", `{"kept":["a"],"dismissed":[],"missed":[]}`}, "fail"},
		{contractCase{"llm_none", "drafts.extract", `{"text":"x","llm":"none"}`}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			useStubModel(t, c.mode)
			env := Request(context.Background(), dir, c.op, []byte(revisions(t, dir, c.input)))
			exe, _ := os.Executable()
			checkGolden(t, "models_llm_"+c.name, dir, []byte(strings.ReplaceAll(string(env), exe, "<stub>")))
		})
	}
}

// TestModelCacheAndRedaction: a second identical question is answered from
// the cache; a changed compared entry asks again; what is sent is redacted.
func TestModelCacheAndRedaction(t *testing.T) {
	noModelEnv(t)
	dir := testrepo.Demo(t)
	log := useStubModel(t, "")
	in := []byte(`{"text":"VAT rounding per line; ask ops@example.com, password=hunter2","llm":true}`)
	related := func() map[string]any {
		t.Helper()
		var env struct {
			OK     bool
			Result struct {
				Model map[string]any
			}
			Error any
		}
		if err := json.Unmarshal(Request(context.Background(), dir, "entries.related", in), &env); err != nil || !env.OK {
			t.Fatalf("related: %v %v", err, env.Error)
		}
		return env.Result.Model
	}
	if m := related(); m["asked"] != true || m["cached"] != false {
		t.Fatalf("first call: %v", m)
	}
	if m := related(); m["asked"] != false || m["cached"] != true {
		t.Fatalf("second call: %v", m)
	}
	// The compared entry changes: the prompt (and key) changes, asked again.
	f := filepath.Join(dir, ".ai/decisions/2026-01-14-vat-is-rounded-per-line.md")
	data, _ := os.ReadFile(f)
	os.WriteFile(f, append(data, []byte("\nAlso for credit notes.\n")...), 0o644)
	if m := related(); m["asked"] != true {
		t.Fatalf("after a change: %v", m)
	}
	sent, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sent), "ops@example.com") || strings.Contains(string(sent), "hunter2") {
		t.Fatalf("a secret reached the model: %s", sent)
	}
	if !strings.Contains(string(sent), "[redacted:email]") || !strings.Contains(string(sent), "[redacted:password_assignment]") {
		t.Fatalf("the redaction markers are missing from what was sent: %s", sent)
	}
	// What is sent: the task, the prompt file, the text and the compared
	// entries, and the schema — nothing else.
	var req map[string]any
	first, _, _ := strings.Cut(string(sent), "\n")
	if err := json.Unmarshal([]byte(first), &req); err != nil {
		t.Fatal(err)
	}
	if len(req) != 3 || req["task"] != "related" || !strings.HasPrefix(req["prompt"].(string), "kontext prompt related v1") {
		t.Fatalf("request = %v", req)
	}
	if strings.Contains(string(sent), "$ref") {
		t.Fatal("a schema sent to the model has $ref")
	}
}

// TestCommittedLLMConfigIgnored: a committed [llm] never selects an
// adapter; reads keep working and report a warning.
func TestCommittedLLMConfigIgnored(t *testing.T) {
	noModelEnv(t)
	dir := fileRepo(t, map[string]string{
		".kontext.toml":                 "version = 1\n\n[llm]\nadapter = \"command\"\ncommand = [\"sh\", \"-c\", \"touch pwned\"]\n",
		".ai/learnings/2026-01-01-a.md": "---\nstatus: active\ndate: 2026-01-01\n---\n# A\n\nBody.\n",
	})
	var st struct {
		Result struct {
			LLM struct {
				Selected bool
			}
			Diagnostics int
		}
	}
	json.Unmarshal(Request(context.Background(), dir, "status", nil), &st)
	if st.Result.LLM.Selected || st.Result.Diagnostics != 1 {
		t.Fatalf("status: %+v", st)
	}
	env := string(Request(context.Background(), dir, "entries.list", nil))
	if !strings.Contains(env, `"code":"local_only_key"`) || !strings.Contains(env, `"line":3`) || !strings.Contains(env, `"title":"A"`) {
		t.Fatalf("entries.list: %s", env)
	}
	env = string(Request(context.Background(), dir, "drafts.extract", []byte(`{"text":"x"}`)))
	if !strings.Contains(env, "model_unavailable") {
		t.Fatalf("extract: %s", env)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("the committed command ran")
	}
}

// TestReadmeRecipes runs every model recipe of the models guide
// (docs/models.md, linked from the README) against local stubs: an
// OpenAI-compatible server on 127.0.0.1 (its URL substituted for base_url)
// and the scripted command model (substituted for command).
func TestReadmeRecipes(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(testrepo.Root(), "docs", "models.md"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "" && r.Header.Get("Authorization") != "Bearer sk-recipe-test" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		content := `{"kind":"learning","title":"Excel needs a BOM in CSV exports","summary":"s","body":"Write the BOM first.","paths":[]}`
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}}})
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	baseURL := regexp.MustCompile(`(?m)^base_url = "[^"]*"`)
	command := regexp.MustCompile(`(?m)^command = \[[^\n]*\]`)
	blocks := regexp.MustCompile("<!-- recipe: (\\w+) -->\n```toml\n((?s:.*?))```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 3 {
		t.Fatalf("%d recipes found in docs/models.md, want the two openai ones and the command one", len(blocks))
	}
	for i, b := range blocks {
		t.Run(fmt.Sprintf("%d-%s", i, b[1]), func(t *testing.T) {
			noModelEnv(t)
			dir := testrepo.Demo(t)
			text := b[2]
			switch b[1] {
			case "openai":
				text = baseURL.ReplaceAllString(text, `base_url = "`+srv.URL+`/v1"`)
				t.Setenv("OPENAI_API_KEY", "sk-recipe-test")
			case "command":
				useStubModel(t, "")
				t.Setenv("KONTEXT_LLM", "")
				t.Setenv("KONTEXT_LLM_COMMAND", "")
				exe, _ := os.Executable()
				argv, _ := json.Marshal([]string{exe, "-test.run=^$"})
				text = command.ReplaceAllString(text, "command = "+string(argv))
			}
			gitDir := strings.TrimSpace(testrepo.Git(t, dir, "rev-parse", "--absolute-git-dir"))
			os.MkdirAll(filepath.Join(gitDir, "kontext"), 0o755)
			if err := os.WriteFile(filepath.Join(gitDir, "kontext", "config.toml"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var st struct {
				Result struct{ LLM map[string]any }
			}
			json.Unmarshal(Request(context.Background(), dir, "status", nil), &st)
			if st.Result.LLM["available"] != true || st.Result.LLM["adapter"] != b[1] {
				t.Fatalf("status.llm = %v", st.Result.LLM)
			}
			env := string(Request(context.Background(), dir, "drafts.formalize", []byte(`{"entry":{"kind":"learning","title":"csv bom","body":"excel needs the bom"},"llm":true}`)))
			if !strings.Contains(env, `"ok":true`) || !strings.Contains(env, `"asked":true`) || !strings.Contains(env, `"title":"Excel needs a BOM in`) {
				t.Fatalf("formalize: %s", env)
			}
		})
	}
}

// requestLines counts the questions the stub model was asked.
func requestLines(t *testing.T, log string) int {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// okResult decodes the result of a successful envelope.
func okResult(t *testing.T, op string, env []byte) map[string]any {
	t.Helper()
	var e struct {
		OK     bool           `json:"ok"`
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.Unmarshal(env, &e); err != nil || !e.OK {
		t.Fatalf("%s: %v %v", op, err, e.Error)
	}
	return e.Result
}

// TestDraftsReuseCachedRelations: drafts.capture, drafts.formalize and
// drafts.stage carry the model's relations when entries.related {llm}
// answered the same question before, and never ask the model themselves.
func TestDraftsReuseCachedRelations(t *testing.T) {
	noModelEnv(t)
	dir := testrepo.Demo(t)
	log := useStubModel(t, "")
	ctx := context.Background()
	draft := `"kind":"learning","title":"VAT rounding of credit notes","summary":"Credit notes round like invoices.","body":"Round VAT per line on credit notes too.","paths":["src/billing/tax/vat.go"]`
	text := "VAT rounding of credit notes\nCredit notes round like invoices.\nRound VAT per line on credit notes too."

	// Nothing cached yet: the model-free related entries, no model call.
	formalize := []byte(`{"entry":{` + draft + `}}`)
	res := okResult(t, "formalize", Request(ctx, dir, "drafts.formalize", formalize))
	rel := res["related_entries"].(map[string]any)
	if _, ok := rel["relations"]; ok || rel["model"] != nil || len(rel["candidates"].([]any)) == 0 {
		t.Fatalf("formalize before any relation answer: %v", rel)
	}
	if n := requestLines(t, log); n != 0 {
		t.Fatalf("formalize asked the model %d time(s)", n)
	}

	// The relation question, asked once.
	in, _ := json.Marshal(map[string]any{"text": text, "paths": []string{"src/billing/tax/vat.go"}, "llm": true})
	asked := okResult(t, "related", Request(ctx, dir, "entries.related", in))
	if m := asked["model"].(map[string]any); m["asked"] != true {
		t.Fatalf("related: %v", asked)
	}
	want, _ := json.Marshal(asked["relations"])
	if !strings.Contains(string(want), `"extends"`) {
		t.Fatalf("the stub's relation is missing: %s", want)
	}
	cachedModel := func(op string, m any) {
		t.Helper()
		mm, _ := m.(map[string]any)
		if mm["asked"] != false || mm["cached"] != true || mm["adapter"] != "command" {
			t.Fatalf("%s: model = %v, want asked false, cached true", op, m)
		}
	}

	res = okResult(t, "formalize", Request(ctx, dir, "drafts.formalize", formalize))
	rel = res["related_entries"].(map[string]any)
	cachedModel("formalize", rel["model"])
	if got, _ := json.Marshal(rel["relations"]); string(got) != string(want) {
		t.Fatalf("formalize relations = %s, want %s", got, want)
	}
	env := Request(ctx, dir, "drafts.capture", []byte(`{"entry":{`+draft+`},"operation_id":"cap-cached"}`))
	checkGolden(t, "models_llm_capture_cached", dir, []byte(strings.ReplaceAll(string(env), mustExe(t), "<stub>")))
	res = okResult(t, "capture", env)
	cachedModel("capture", res["related_model"].(map[string]any)["model"])
	if got, _ := json.Marshal(res["related_model"].(map[string]any)["relations"]); string(got) != string(want) {
		t.Fatalf("capture relations = %s, want %s", got, want)
	}
	env = Request(ctx, dir, "drafts.stage", []byte(`{"entry":{`+draft+`},"operation_id":"stage-cached"}`))
	checkGolden(t, "models_llm_stage_cached", dir, []byte(strings.ReplaceAll(string(env), mustExe(t), "<stub>")))
	res = okResult(t, "stage", env)
	cachedModel("stage", res["related_model"].(map[string]any)["model"])
	if n := requestLines(t, log); n != 1 {
		t.Fatalf("the model was asked %d times, want once (by entries.related)", n)
	}

	// Another text: nothing cached, nothing asked, no model part.
	res = okResult(t, "capture", Request(ctx, dir, "drafts.capture", []byte(`{"entry":{"kind":"learning","title":"VAT on refunds","body":"Refunds keep the VAT of the sale.","paths":["src/billing/tax/vat.go"]}}`)))
	if _, ok := res["related_model"]; ok || len(res["related_entries"].([]any)) == 0 {
		t.Fatalf("capture of another text: %v", res)
	}
	if n := requestLines(t, log); n != 1 {
		t.Fatalf("a draft operation asked the model (%d questions)", n)
	}

	// No model selected: the cached answer is not used.
	t.Setenv("KONTEXT_LLM", "none")
	res = okResult(t, "formalize", Request(ctx, dir, "drafts.formalize", formalize))
	if rel := res["related_entries"].(map[string]any); rel["model"] != nil || rel["relations"] != nil {
		t.Fatalf("formalize without a selected model: %v", rel)
	}
}

func mustExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestModelCommandFailures: a failing or hanging command model, through an
// operation: the error envelope, the redacted stderr tail, and a timeout
// that stops the command's whole process group.
func TestModelCommandFailures(t *testing.T) {
	noModelEnv(t)
	dir := testrepo.Demo(t)
	ctx := context.Background()
	errorOf := func(env []byte) map[string]any {
		t.Helper()
		var e struct {
			OK    bool           `json:"ok"`
			Error map[string]any `json:"error"`
		}
		if err := json.Unmarshal(env, &e); err != nil || e.OK {
			t.Fatalf("want an error envelope: %s", env)
		}
		return e.Error
	}

	t.Run("exit", func(t *testing.T) {
		useStubModel(t, "failsecret")
		env := Request(ctx, dir, "drafts.formalize", []byte(`{"entry":{"title":"CSV BOM"},"llm":true}`))
		env = []byte(strings.ReplaceAll(string(env), mustExe(t), "<stub>"))
		checkGolden(t, "models_llm_fail_redacted", dir, env)
		e := errorOf(env)
		msg, _ := e["message"].(string)
		if e["code"] != "model_unavailable" || !strings.Contains(msg, "exit code 5") || !strings.Contains(msg, "model crashed") {
			t.Fatalf("error = %v", e)
		}
		if strings.Contains(msg, "hunter2") || strings.Contains(msg, "ops@example.com") ||
			!strings.Contains(msg, "[redacted:password_assignment]") || !strings.Contains(msg, "[redacted:email]") {
			t.Fatalf("the stderr tail is not redacted: %s", msg)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		if _, err := exec.LookPath("sleep"); err != nil {
			t.Skip("no sleep program for the stub's child")
		}
		useStubModel(t, "hang")
		pidFile := filepath.Join(t.TempDir(), "pids")
		t.Setenv("STUB_PIDS", pidFile)
		t.Setenv("KONTEXT_LLM_TIMEOUT_SECS", "5")
		env := Request(ctx, dir, "drafts.extract", []byte(`{"text":"We keep money in cents."}`))
		data, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatalf("the stub never started its child (%v): %s", err, env)
		}
		env = []byte(strings.ReplaceAll(string(env), mustExe(t), "<stub>"))
		checkGolden(t, "models_llm_timeout", dir, env)
		e := errorOf(env)
		msg, _ := e["message"].(string)
		if e["code"] != "model_unavailable" || !strings.Contains(msg, "did not answer within 5s") ||
			strings.Contains(msg, "hunter2") || !strings.Contains(msg, "[redacted:password_assignment]") {
			t.Fatalf("error = %v", e)
		}
		for _, f := range strings.Fields(string(data)) {
			var pid int
			fmt.Sscan(f, &pid)
			if pid <= 0 {
				t.Fatalf("bad pid %q", f)
			}
			if !gone(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d survived the timeout", pid)
			}
		}
	})
}

// gone reports whether pid has exited (absent, or a zombie nobody reaped
// yet). A SIGKILLed process needs a moment to finish exiting, so it is
// looked at until it has, for at most half a minute.
func gone(pid int) bool {
	for i := 0; i < 300; i++ {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			if syscall.Kill(pid, 0) == syscall.ESRCH {
				return true
			}
		} else if _, rest, ok := strings.Cut(string(stat), ") "); ok && (strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X")) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// TestReviseRedactsEntryBody: drafts.revise sends the entry's body to the
// model through the same redaction as captures (issue 42's shapes).
func TestReviseRedactsEntryBody(t *testing.T) {
	noModelEnv(t)
	dir := testrepo.Demo(t)
	log := useStubModel(t, "")
	secrets := []string{
		"AIza" + "SyB7x9Kq2mVt4LpR8wN3cZ5dF6gH1jK0sYQ",
		"sk-" + "ant-api03-" + strings.Repeat("Rt5Vw9Yz2", 4),
		"Xk9vQ2mTz7Lp",
		strings.Repeat("Zq3kV9xR7m", 3),
	}
	f := filepath.Join(dir, ".ai/decisions/2026-01-14-vat-is-rounded-per-line.md")
	data, _ := os.ReadFile(f)
	body := "\nThe rate service: key " + secrets[0] + ", model key " + secrets[1] +
		", DATABASE_URL=postgres://app:" + secrets[2] + "@db.example.com/app, API_TOKEN=" + secrets[3] + "\n"
	os.WriteFile(f, append(data, body...), 0o644)
	if out, err := exec.Command("git", "-C", dir, "commit", "-qam", "rate service").CombinedOutput(); err != nil {
		t.Fatalf("commit: %v %s", err, out)
	}
	in := `{"entry_id":"2026-01-14-vat-is-rounded-per-line","entry_revision":"` + vatRev + `","objections":["rounding per line loses cents on long invoices"],"llm":true}`
	var env struct {
		OK    bool
		Error any
	}
	if err := json.Unmarshal(Request(context.Background(), dir, "drafts.revise", []byte(revisions(t, dir, in))), &env); err != nil || !env.OK {
		t.Fatalf("revise: %v %v", err, env.Error)
	}
	sent, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(string(sent), s) {
			t.Fatalf("a secret reached the model: %s", s)
		}
	}
	for _, m := range []string{"[redacted:gcp_api_key]", "[redacted:anthropic_api_key]", "[redacted:url_credentials]", "API_TOKEN=[redacted:password_assignment]"} {
		if !strings.Contains(string(sent), m) {
			t.Fatalf("%s missing from what was sent: %s", m, sent)
		}
	}
}
