// Package prhost posts kontext's one pull-request comment through the
// GitHub or GitLab REST API: it finds the comment kontext posted before by
// its hidden marker and edits it in place, or creates it. It is the only
// network code of the CLI; the engine never reaches it.
//
// GitHub: GET and POST /repos/{repo}/issues/{n}/comments (following
// Link: rel="next"), PATCH /repos/{repo}/issues/comments/{id}. GitLab:
// GET and POST /projects/{id}/merge_requests/{iid}/notes (following
// Link: rel="next"), PUT /projects/{id}/merge_requests/{iid}/notes/{note}.
// Requests that answer 5xx, 429, or 403 because of a rate limit are
// retried with backoff; plain http is refused except for loopback hosts.
// Paging stops with an error after MaxPages pages or when a next link
// names a page already read; a server's answer quoted in an error is cut
// to MaxBodyInError characters.
package prhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Target is where the comment goes.
type Target struct {
	// Provider is github or gitlab.
	Provider string
	// API is the API root: GITHUB_API_URL (https://api.github.com) or
	// CI_API_V4_URL (https://gitlab.com/api/v4).
	API string
	// Repo is owner/name (GitHub) or the project id (GitLab).
	Repo string
	// Number is the pull request number or the merge request iid.
	Number int
	// Token authenticates (GITHUB_TOKEN or GITLAB_TOKEN).
	Token string
}

// Client posts comments. Sleep and Now are injectable for tests.
type Client struct {
	HTTP *http.Client
	// Sleep waits d or until ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	// Retries is how many times a retryable answer is retried (default 4).
	Retries int
	// UserAgent names the client.
	UserAgent string
}

// ErrForbidden is a 403 that is not a rate limit: the token may not write
// (a pull request from a fork gets a read-only token).
var ErrForbidden = errors.New("the token may not comment here (403)")

// StatusError is an answer the client does not retry or gave up on.
type StatusError struct {
	Method, URL string
	Status      int
	Body        string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.Status, clip(e.Body))
}

// MaxPages bounds the comment pages read: the APIs answer at most 100
// comments a page, so 100 pages are 10,000 comments.
const MaxPages = 100

// MaxBodyInError is how much of a server's answer an error quotes.
const MaxBodyInError = 200

// ErrPaging is a list whose next links never end or lead back to a page
// already read.
var ErrPaging = errors.New("the API's comment pages do not end")

// clip trims a server's answer for an error message: at most
// MaxBodyInError characters, then an ellipsis and the full size.
func clip(body string) string {
	body = strings.TrimSpace(body)
	if utf8.RuneCountInString(body) <= MaxBodyInError {
		return body
	}
	r := []rune(body)
	return fmt.Sprintf("%s… (%d bytes in all)", string(r[:MaxBodyInError]), len(body))
}

// Result says what Upsert did.
type Result struct {
	Action string // created | updated | unchanged
	ID     int64
	URL    string
}

// CheckAPI refuses an API root that is not https, or http on a loopback
// host.
func CheckAPI(api string) (*url.URL, error) {
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("API root %q is not a URL", api)
	}
	switch u.Scheme {
	case "https":
		return u, nil
	case "http":
		host := u.Hostname()
		if host == "localhost" {
			return u, nil
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return u, nil
		}
		return nil, fmt.Errorf("API root %q uses plain http; only https (or http on a loopback address) is allowed", api)
	}
	return nil, fmt.Errorf("API root %q: scheme %q is not https", api, u.Scheme)
}

type comment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	URL  string `json:"html_url"`
}

// Upsert finds the comment that starts with (or contains) marker and sets
// its body, or creates one: one comment per pull request, whatever the
// number of runs.
func (c *Client) Upsert(ctx context.Context, t Target, marker, body string) (*Result, error) {
	base, err := CheckAPI(t.API)
	if err != nil {
		return nil, err
	}
	root := strings.TrimSuffix(base.String(), "/")
	var list, update string
	switch t.Provider {
	case "github":
		list = fmt.Sprintf("%s/repos/%s/issues/%d/comments?per_page=100", root, t.Repo, t.Number)
		update = root + "/repos/" + t.Repo + "/issues/comments/"
	case "gitlab":
		list = fmt.Sprintf("%s/projects/%s/merge_requests/%d/notes?per_page=100&sort=asc&order_by=created_at", root, url.PathEscape(t.Repo), t.Number)
		update = fmt.Sprintf("%s/projects/%s/merge_requests/%d/notes/", root, url.PathEscape(t.Repo), t.Number)
	default:
		return nil, fmt.Errorf("provider %q: use github or gitlab", t.Provider)
	}
	var found *comment
	seen := map[string]bool{}
	for next := list; next != "" && found == nil; {
		if seen[next] {
			return nil, fmt.Errorf("%w: the next page link points back to a page already read (%s); report this to the API's operator", ErrPaging, clip(next))
		}
		if len(seen) == MaxPages {
			return nil, fmt.Errorf("%w: stopped after %d pages of comments (the next link is %s); report this to the API's operator", ErrPaging, MaxPages, clip(next))
		}
		seen[next] = true
		var page []comment
		resp, err := c.do(ctx, t, http.MethodGet, next, nil, &page)
		if err != nil {
			return nil, err
		}
		for i := range page {
			if strings.Contains(page[i].Body, marker) {
				found = &page[i]
				break
			}
		}
		next = nextLink(resp.Header.Get("Link"))
		if next != "" {
			// Follow only links on the same API host.
			nu, err := url.Parse(next)
			if err != nil || nu.Host != base.Host || nu.Scheme != base.Scheme {
				return nil, fmt.Errorf("the API answered a next page on another host (%s)", next)
			}
		}
	}
	payload := map[string]string{"body": body}
	var out comment
	if found != nil {
		if found.Body == body {
			return &Result{Action: "unchanged", ID: found.ID, URL: found.URL}, nil
		}
		method := http.MethodPatch
		if t.Provider == "gitlab" {
			method = http.MethodPut
		}
		if _, err := c.do(ctx, t, method, update+strconv.FormatInt(found.ID, 10), payload, &out); err != nil {
			return nil, err
		}
		return &Result{Action: "updated", ID: found.ID, URL: out.URL}, nil
	}
	create := strings.Split(list, "?")[0]
	if _, err := c.do(ctx, t, http.MethodPost, create, payload, &out); err != nil {
		return nil, err
	}
	return &Result{Action: "created", ID: out.ID, URL: out.URL}, nil
}

// do sends one request, retrying what a later try can fix, and decodes a
// 2xx JSON answer into out.
func (c *Client) do(ctx context.Context, t Target, method, u string, payload any, out any) (*http.Response, error) {
	var data []byte
	if payload != nil {
		var err error
		if data, err = json.Marshal(payload); err != nil {
			return nil, err
		}
	}
	retries := c.Retries
	if retries == 0 {
		retries = 4
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		ua := c.UserAgent
		if ua == "" {
			ua = "kontext"
		}
		req.Header.Set("User-Agent", ua)
		if payload != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if t.Provider == "github" {
			req.Header.Set("Accept", "application/vnd.github+json")
			req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
			req.Header.Set("Authorization", "Bearer "+t.Token)
		} else {
			req.Header.Set("Accept", "application/json")
			req.Header.Set("PRIVATE-TOKEN", t.Token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil || attempt >= retries {
				return nil, err
			}
			if err := c.wait(ctx, c.backoff(attempt, nil)); err != nil {
				return nil, err
			}
			continue
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		switch {
		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			if out != nil && len(bytes.TrimSpace(body)) > 0 {
				if err := json.Unmarshal(body, out); err != nil {
					return nil, fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, u, err)
				}
			}
			return resp, nil
		case retryable(resp) && attempt < retries:
			if err := c.wait(ctx, c.backoff(attempt, resp)); err != nil {
				return nil, err
			}
			continue
		case resp.StatusCode == http.StatusForbidden && !rateLimited(resp):
			return nil, fmt.Errorf("%w: %s %s: %s", ErrForbidden, method, u, clip(string(body)))
		}
		return nil, &StatusError{Method: method, URL: u, Status: resp.StatusCode, Body: string(body)}
	}
}

func retryable(resp *http.Response) bool {
	return resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode == http.StatusForbidden && rateLimited(resp))
}

// rateLimited: GitHub answers a rate limit with 403 and retry-after or
// x-ratelimit-remaining: 0.
func rateLimited(resp *http.Response) bool {
	return resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0" ||
		resp.Header.Get("RateLimit-Remaining") == "0"
}

// maxWait bounds one wait, whatever the server asks.
const maxWait = 60 * time.Second

// backoff is what the server asks (retry-after seconds, or the rate
// limit's reset time), else 1s, 2s, 4s, … capped at maxWait.
func (c *Client) backoff(attempt int, resp *http.Response) time.Duration {
	d := time.Second << attempt
	if resp != nil {
		if s, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && s >= 0 {
			d = time.Duration(s) * time.Second
		} else if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
				now := time.Now
				if c.Now != nil {
					now = c.Now
				}
				if w := time.Unix(reset, 0).Sub(now()); w > 0 {
					d = w + time.Second
				}
			}
		}
	}
	if d > maxWait {
		d = maxWait
	}
	return d
}

func (c *Client) wait(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// nextLink returns the rel="next" URL of a Link header, or "".
func nextLink(h string) string {
	for _, part := range strings.Split(h, ",") {
		segs := strings.Split(part, ";")
		if len(segs) < 2 {
			continue
		}
		target := strings.TrimSpace(segs[0])
		if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			continue
		}
		for _, p := range segs[1:] {
			p = strings.ReplaceAll(strings.TrimSpace(p), " ", "")
			if p == `rel="next"` || p == "rel=next" {
				return target[1 : len(target)-1]
			}
		}
	}
	return ""
}
