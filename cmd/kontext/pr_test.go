package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontext/kontext/internal/prhost"
	"github.com/kontext/kontext/internal/prhost/prhosttest"
	"github.com/kontext/kontext/internal/report"
	"github.com/kontext/kontext/internal/testrepo"
)

// runCLI runs kontext in-process with args and returns exit code, stdout
// and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, Streams(strings.NewReader(""), &out, &errOut))
	return code, out.String(), errOut.String()
}

// clearCI unsets the CI variables the host may have.
func clearCI(t *testing.T) {
	for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_REPOSITORY", "GITHUB_TOKEN", "GITHUB_API_URL", "GITHUB_EVENT_PATH",
		"GITHUB_BASE_REF", "GITHUB_SERVER_URL", "CI_PROJECT_ID", "CI_API_V4_URL", "CI_MERGE_REQUEST_IID", "GITLAB_TOKEN",
		"CI_MERGE_REQUEST_DIFF_BASE_SHA", "CI_PROJECT_URL"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// TestPRComment drives kontext pr comment against local stubs of the
// GitHub and GitLab APIs: a missing token and a fork's 403 are one line
// and exit 0 (1 with --require); a 500 is retried; after three runs the
// pull request has exactly one kontext comment, with the review body.
func TestPRComment(t *testing.T) {
	dir := testrepo.Demo(t)
	old := prClient
	prClient = &prhost.Client{Sleep: func(context.Context, time.Duration) error { return nil }}
	t.Cleanup(func() { prClient = old })

	for _, provider := range []string{"github", "gitlab"} {
		t.Run(provider, func(t *testing.T) {
			clearCI(t)
			s := prhosttest.New(provider, "tok")
			defer s.Close()
			s.Add("first review comment")
			s.Add("second")
			s.Add("third")
			if provider == "github" {
				event := filepath.Join(t.TempDir(), "event.json")
				os.WriteFile(event, []byte(`{"action":"synchronize","number":7,"pull_request":{"number":7}}`), 0o644)
				t.Setenv("GITHUB_REPOSITORY", "acme/app")
				t.Setenv("GITHUB_API_URL", s.URL)
				t.Setenv("GITHUB_EVENT_PATH", event)
				t.Setenv("GITHUB_SERVER_URL", "https://github.example")
			} else {
				t.Setenv("CI_API_V4_URL", s.URL)
				t.Setenv("CI_PROJECT_ID", "42")
				t.Setenv("CI_MERGE_REQUEST_IID", "7")
				t.Setenv("CI_PROJECT_URL", "https://gitlab.example/acme/app")
			}
			tokenVar := map[string]string{"github": "GITHUB_TOKEN", "gitlab": "GITLAB_TOKEN"}[provider]

			// No token: one line, exit 0; --require: exit 1.
			code, out, errOut := runCLI(t, "-C", dir, "pr", "comment", "--base", "origin/main")
			if code != 0 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tokenVar+" is not set") {
				t.Fatalf("no token: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if code, _, _ := runCLI(t, "-C", dir, "pr", "comment", "--require"); code != 1 {
				t.Errorf("no token with --require: exit %d, want 1", code)
			}
			t.Setenv(tokenVar, "tok")

			// A fork's read-only token: 403, one line, exit 0.
			s.FailNext(prhosttest.Fail{Status: 403})
			code, _, errOut = runCLI(t, "-C", dir, "pr", "comment", "--base", "origin/main")
			if code != 0 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "fork") {
				t.Fatalf("fork 403: exit %d, stderr %q", code, errOut)
			}
			s.FailNext(prhosttest.Fail{Status: 403})
			if code, _, _ := runCLI(t, "-C", dir, "pr", "comment", "--base", "origin/main", "--require"); code != 1 {
				t.Errorf("fork 403 with --require: exit %d, want 1", code)
			}

			// Three runs, the second after a 500: one comment.
			for i := 0; i < 3; i++ {
				if i == 1 {
					s.FailNext(prhosttest.Fail{Status: 500})
				}
				code, out, errOut := runCLI(t, "-C", dir, "pr", "comment", "--base", "origin/main")
				if code != 0 {
					t.Fatalf("run %d: exit %d: %s", i+1, code, errOut)
				}
				want := "created"
				if i > 0 {
					want = "unchanged"
				}
				if !strings.HasPrefix(out, want+" comment") {
					t.Errorf("run %d: %q, want %s", i+1, out, want)
				}
			}
			var mine []prhosttest.Comment
			for _, c := range s.Comments() {
				if strings.Contains(c.Body, report.Marker) {
					mine = append(mine, c)
				}
			}
			if len(mine) != 1 || len(s.Comments()) != 4 {
				t.Fatalf("%d kontext comments among %d, want 1 among 4", len(mine), len(s.Comments()))
			}
			_, body, _ := runCLI(t, "-C", dir, "review", "--format", "markdown", "--base", "origin/main")
			if mine[0].Body != body {
				t.Errorf("the comment is not review --format markdown's body:\n%s", testrepo.FirstDiff(body, mine[0].Body))
			}
			link := map[string]string{"github": "https://github.example/acme/app/blob/", "gitlab": "https://gitlab.example/acme/app/-/blob/"}[provider]
			if !strings.Contains(body, "]("+link) {
				t.Errorf("the body does not link into %s:\n%.600s", link, body)
			}
			// A new body (a new push) edits the same comment.
			os.WriteFile(filepath.Join(dir, "src", "new.go"), []byte("package src\n"), 0o644)
			code, out, _ = runCLI(t, "-C", dir, "pr", "comment", "--base", "origin/main")
			os.Remove(filepath.Join(dir, "src", "new.go"))
			if code != 0 || !strings.HasPrefix(out, "updated comment") || len(s.Comments()) != 4 {
				t.Errorf("after a push: exit %d, %q, %d comments", code, out, len(s.Comments()))
			}
		})
	}
}

// TestPRTarget: plain http to a non-loopback API is refused; no provider
// variables is a usage error; a push event has no pull request (skipped).
func TestPRTarget(t *testing.T) {
	dir := testrepo.Demo(t)
	clearCI(t)
	if code, _, errOut := runCLI(t, "-C", dir, "pr", "comment"); code != exitUsage || !strings.Contains(errOut, "--provider") {
		t.Errorf("no provider: exit %d, %q", code, errOut)
	}
	t.Setenv("GITHUB_REPOSITORY", "acme/app")
	t.Setenv("GITHUB_TOKEN", "tok")
	t.Setenv("GITHUB_API_URL", "http://api.example.com")
	if code, _, errOut := runCLI(t, "-C", dir, "pr", "comment", "--pr", "3"); code != exitUsage || !strings.Contains(errOut, "plain http") {
		t.Errorf("plain http: exit %d, %q", code, errOut)
	}
	t.Setenv("GITHUB_API_URL", "https://api.example.com")
	event := filepath.Join(t.TempDir(), "push.json")
	os.WriteFile(event, []byte(`{"ref":"refs/heads/main"}`), 0o644)
	t.Setenv("GITHUB_EVENT_PATH", event)
	if code, _, errOut := runCLI(t, "-C", dir, "pr", "comment"); code != 0 || !strings.Contains(errOut, "no pull request") {
		t.Errorf("push event: exit %d, %q", code, errOut)
	}
}

// TestPRCommentPagingLoop: a server whose next link points to itself ends
// in one clear error (exit 1) after one read, not an endless loop; under
// --json the error is the JSON envelope on stderr; a --require skip under
// --json is the envelope too.
func TestPRCommentPagingLoop(t *testing.T) {
	dir := testrepo.Demo(t)
	old := prClient
	prClient = &prhost.Client{Sleep: func(context.Context, time.Duration) error { return nil }}
	t.Cleanup(func() { prClient = old })
	clearCI(t)
	s := prhosttest.New("github", "tok")
	defer s.Close()
	s.Paging = prhosttest.PagingSelf
	s.Add("LGTM")
	t.Setenv("GITHUB_REPOSITORY", "acme/app")
	t.Setenv("GITHUB_API_URL", s.URL)
	t.Setenv("GITHUB_TOKEN", "tok")

	code, out, errOut := runCLI(t, "-C", dir, "pr", "comment", "--pr", "7", "--base", "origin/main")
	if code != exitFailed || out != "" || !strings.Contains(errOut, "points back to a page already read") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("self link: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if len(s.Requests) != 1 {
		t.Errorf("self link: %d requests, want 1", len(s.Requests))
	}
	code, out, errOut = runCLI(t, "--json", "-C", dir, "pr", "comment", "--pr", "7", "--base", "origin/main")
	var env struct {
		OK    bool `json:"ok"`
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(errOut), &env); err != nil || code != exitFailed || out != "" {
		t.Fatalf("--json: exit %d, stdout %q, stderr %q is not the envelope: %v", code, out, errOut, err)
	}
	if env.OK || env.Error.Code != "operation_failed" || !strings.Contains(env.Error.Message, "already read") {
		t.Errorf("--json envelope %+v", env)
	}

	t.Setenv("GITHUB_TOKEN", "")
	code, _, errOut = runCLI(t, "--json", "-C", dir, "pr", "comment", "--pr", "7", "--require")
	if err := json.Unmarshal([]byte(errOut), &env); err != nil || code != exitFailed || !strings.Contains(env.Error.Message, "GITHUB_TOKEN is not set") {
		t.Errorf("--json --require without a token: exit %d, stderr %q", code, errOut)
	}
}
