package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/internal/prhost"
	"github.com/kontext/kontext/internal/report"
)

// commentBody builds the pull-request comment of the change: links point
// at the entry files at head in the CI's web view (GitHub, GitLab), else
// at repository-relative paths.
func commentBody(ctx context.Context, g *factory, c changeFlags) (string, error) {
	boundHeap()
	e, err := g.engine()
	if err != nil {
		return "", err
	}
	o := c.reportOptions()
	o.PerFile = true // the comment's directories
	r, err := report.Build(ctx, e, o)
	if err != nil {
		return "", err
	}
	links := report.LinksFor(os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("CI_PROJECT_URL"), r.HeadCommit)
	return report.Markdown(r, links), nil
}

// runReviewMarkdown is `kontext review --format markdown`: the comment
// body on stdout; it never listens or opens a browser.
func runReviewMarkdown(ctx context.Context, g *factory, c changeFlags) int {
	body, err := commentBody(ctx, g, c)
	if err != nil {
		return fail(g, g.io.ErrOut, err)
	}
	return emitRaw(g, func(w io.Writer) error {
		_, err := io.WriteString(w, body)
		return err
	})
}

// prEnv is the environment pr comment reads (os.Getenv in the CLI).
var prEnv = os.Getenv

// prClient is the HTTP client of pr comment (tests shorten its waits).
var prClient = &prhost.Client{}

// runPRCmd is `kontext pr comment`.
func runPRCmd(g *factory, fs *pflag.FlagSet) runFunc {
	var c changeFlags
	number := fs.Int("pr", 0, "pull request number (GitHub) or merge request iid (GitLab); default from the CI's event")
	fs.StringVar(&c.base, "base", "", "base revision (default: GITHUB_BASE_REF, CI_MERGE_REQUEST_DIFF_BASE_SHA, else the drift base)")
	fs.StringVar(&c.head, "head", "", "head revision (default: HEAD plus the working tree)")
	fs.BoolVar(&c.broad, "broad", false, broadUsage)
	provider := fs.String("provider", "", "github or gitlab (default: from the CI's variables)")
	require := fs.Bool("require", false, "fail (exit 1) when the comment cannot be posted: no token, no pull request, no permission")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		if len(pos) > 0 {
			return usageErr(g, stderr, "kontext pr comment takes no arguments (got %q)", pos[0])
		}
		t, skip, err := prTarget(*provider, *number)
		if err != nil {
			return usageErr(g, stderr, "%v", err)
		}
		if skip != "" {
			return prNotPosted(g, *require, skip)
		}
		body, err := commentBody(ctx, g, c)
		if err != nil {
			return fail(g, stderr, err)
		}
		res, err := prClient.Upsert(ctx, *t, report.Marker, body)
		switch {
		case errors.Is(err, prhost.ErrForbidden):
			return prNotPosted(g, *require, fmt.Sprintf("the token may not comment on %s #%d (a pull request from a fork gets a read-only token; give the job pull-requests: write)", t.Repo, t.Number))
		case err != nil:
			return fail(g, stderr, apierr.Wrap(apierr.OperationFailed, err, "pr comment not posted"))
		}
		fmt.Fprintf(stdout, "%s comment %d on %s #%d\n", res.Action, res.ID, t.Repo, t.Number)
		return exitOK
	}
}

// prNotPosted reports a comment that could not be posted for a reason
// the job may accept (no token, no pull request, a fork's read-only
// token): one line and exit 0, or with --require an error (the JSON
// envelope under --json) and exit 1.
func prNotPosted(g *factory, require bool, why string) int {
	if !require {
		fmt.Fprintf(g.io.ErrOut, "kontext: pr comment not posted: %s\n", why)
		return exitOK
	}
	fail(g, g.io.ErrOut, apierr.New(apierr.OperationFailed, "pr comment not posted: %s", why))
	return exitFailed
}

// prTarget reads where the comment goes from the CI's variables. A
// missing token or pull request is a reason to skip (skip != ""); a bad
// flag or API root is an error.
func prTarget(provider string, number int) (t *prhost.Target, skip string, err error) {
	if provider == "" {
		switch {
		case prEnv("GITHUB_REPOSITORY") != "" || prEnv("GITHUB_ACTIONS") == "true":
			provider = "github"
		case prEnv("CI_PROJECT_ID") != "" || prEnv("CI_API_V4_URL") != "":
			provider = "gitlab"
		default:
			return nil, "", errors.New("cannot tell GitHub from GitLab: pass --provider github|gitlab (GITHUB_REPOSITORY and CI_PROJECT_ID are both unset)")
		}
	}
	t = &prhost.Target{Provider: provider, Number: number}
	switch provider {
	case "github":
		t.API, t.Repo, t.Token = prEnv("GITHUB_API_URL"), prEnv("GITHUB_REPOSITORY"), prEnv("GITHUB_TOKEN")
		if t.API == "" {
			t.API = "https://api.github.com"
		}
		if t.Repo == "" {
			return nil, "", errors.New("GITHUB_REPOSITORY is not set (owner/name)")
		}
		if t.Number == 0 {
			if t.Number, err = eventNumber(prEnv("GITHUB_EVENT_PATH")); err != nil {
				return nil, "", err
			}
		}
		if t.Token == "" {
			return t, "GITHUB_TOKEN is not set (pass the action's token input, or env GITHUB_TOKEN: ${{ github.token }})", nil
		}
	case "gitlab":
		t.API, t.Repo, t.Token = prEnv("CI_API_V4_URL"), prEnv("CI_PROJECT_ID"), prEnv("GITLAB_TOKEN")
		if t.API == "" || t.Repo == "" {
			return nil, "", errors.New("CI_API_V4_URL and CI_PROJECT_ID must be set for --provider gitlab")
		}
		if t.Number == 0 {
			if iid := prEnv("CI_MERGE_REQUEST_IID"); iid != "" {
				if t.Number, err = strconv.Atoi(iid); err != nil {
					return nil, "", fmt.Errorf("CI_MERGE_REQUEST_IID %q is not a number", iid)
				}
			}
		}
		if t.Token == "" {
			return t, "GITLAB_TOKEN is not set (a project or personal access token with api scope; CI_JOB_TOKEN cannot write notes)", nil
		}
	default:
		return nil, "", fmt.Errorf("--provider takes github or gitlab, not %q", provider)
	}
	if _, err := prhost.CheckAPI(t.API); err != nil {
		return nil, "", err
	}
	if t.Number <= 0 {
		return t, "no pull request: pass --pr N, or run on a pull_request (GitHub) or merge request (GitLab) pipeline", nil
	}
	return t, "", nil
}

// eventNumber reads the pull request number from GitHub's event payload
// (0 when the event is not about a pull request).
func eventNumber(file string) (int, error) {
	if file == "" {
		return 0, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, fmt.Errorf("GITHUB_EVENT_PATH: %w", err)
	}
	var ev struct {
		Number      int `json:"number"`
		PullRequest *struct {
			Number int `json:"number"`
		} `json:"pull_request"`
		Issue *struct {
			Number      int             `json:"number"`
			PullRequest json.RawMessage `json:"pull_request"`
		} `json:"issue"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return 0, fmt.Errorf("GITHUB_EVENT_PATH %s is not JSON: %w", file, err)
	}
	switch {
	case ev.PullRequest != nil:
		return ev.PullRequest.Number, nil
	case ev.Issue != nil && len(ev.Issue.PullRequest) > 0 && strings.TrimSpace(string(ev.Issue.PullRequest)) != "null":
		return ev.Issue.Number, nil
	}
	return 0, nil
}
