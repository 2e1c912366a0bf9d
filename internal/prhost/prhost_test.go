package prhost_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kontext/kontext/internal/prhost"
	"github.com/kontext/kontext/internal/prhost/prhosttest"
)

const marker = "<!-- kontext:pr-comment -->"

// client records the waits instead of sleeping.
func client(waits *[]time.Duration) *prhost.Client {
	return &prhost.Client{
		Sleep: func(ctx context.Context, d time.Duration) error { *waits = append(*waits, d); return nil },
		Now:   func() time.Time { return time.Unix(1_800_000_000, 0) },
	}
}

func target(s *prhosttest.Server) prhost.Target {
	t := prhost.Target{Provider: s.Provider, API: s.URL, Number: 7, Token: "tok"}
	if s.Provider == "github" {
		t.Repo = "acme/app"
	} else {
		t.Repo = "42"
	}
	return t
}

// TestUpsert runs against both APIs: the first run creates the comment,
// later runs find it by its marker on the second page and edit it, a 500
// and a rate-limited 403 are retried, and after three runs there is
// exactly one kontext comment among the others.
func TestUpsert(t *testing.T) {
	for _, provider := range []string{"github", "gitlab"} {
		t.Run(provider, func(t *testing.T) {
			s := prhosttest.New(provider, "tok")
			defer s.Close()
			s.Add("LGTM")
			s.Add("please rebase")
			var waits []time.Duration
			c := client(&waits)
			ctx := context.Background()

			res, err := c.Upsert(ctx, target(s), marker, marker+"\nrun 1")
			if err != nil || res.Action != "created" {
				t.Fatalf("run 1: %+v, %v", res, err)
			}
			s.Add("a third comment, so kontext's is not on the last page")
			s.Add("and a fourth")

			// Run 2: the list answers 500 once, then the comment is found
			// on page 2 and updated.
			s.FailNext(prhosttest.Fail{Status: 500})
			res, err = c.Upsert(ctx, target(s), marker, marker+"\nrun 2")
			if err != nil || res.Action != "updated" {
				t.Fatalf("run 2: %+v, %v", res, err)
			}
			if len(waits) != 1 || waits[0] != time.Second {
				t.Errorf("after a 500 waited %v, want [1s]", waits)
			}

			// Run 3: a rate-limited 403 (remaining 0, reset in 5 s), then a
			// 429 with retry-after.
			s.FailNext(prhosttest.Fail{Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1800000005"}},
				prhosttest.Fail{Status: 429, Header: map[string]string{"Retry-After": "3"}})
			waits = nil
			res, err = c.Upsert(ctx, target(s), marker, marker+"\nrun 3")
			if err != nil || res.Action != "updated" {
				t.Fatalf("run 3: %+v, %v", res, err)
			}
			if len(waits) != 2 || waits[0] != 6*time.Second || waits[1] != 3*time.Second {
				t.Errorf("rate limits waited %v, want [6s 3s]", waits)
			}

			mine := 0
			for _, cm := range s.Comments() {
				if strings.Contains(cm.Body, marker) {
					mine++
					if !strings.HasSuffix(cm.Body, "run 3") {
						t.Errorf("kontext's comment is %q, want run 3's body", cm.Body)
					}
				}
			}
			if mine != 1 || len(s.Comments()) != 5 {
				t.Errorf("%d kontext comments among %d, want 1 among 5", mine, len(s.Comments()))
			}
			// The same body again changes nothing.
			if res, err := c.Upsert(ctx, target(s), marker, marker+"\nrun 3"); err != nil || res.Action != "unchanged" {
				t.Errorf("same body: %+v, %v", res, err)
			}
			var pages int
			for _, r := range s.Requests {
				if strings.HasPrefix(r, "GET") {
					pages++
				}
			}
			if pages < 5 {
				t.Errorf("requests %v: the list was not paged", s.Requests)
			}
		})
	}
}

// TestForbidden: a 403 without rate-limit headers (a fork's read-only
// token) is ErrForbidden at once, never retried.
func TestForbidden(t *testing.T) {
	s := prhosttest.New("github", "tok")
	defer s.Close()
	s.FailNext(prhosttest.Fail{Status: 403})
	var waits []time.Duration
	_, err := client(&waits).Upsert(context.Background(), target(s), marker, marker+"\nbody")
	if !errors.Is(err, prhost.ErrForbidden) {
		t.Fatalf("err = %v, want ErrForbidden", err)
	}
	if len(waits) != 0 || len(s.Requests) != 1 {
		t.Errorf("a fork 403 was retried: waits %v, requests %v", waits, s.Requests)
	}
}

// TestGivesUp: a server that keeps failing is retried 4 times with
// growing waits, then reported with its status.
func TestGivesUp(t *testing.T) {
	s := prhosttest.New("gitlab", "tok")
	defer s.Close()
	for i := 0; i < 5; i++ {
		s.FailNext(prhosttest.Fail{Status: 502})
	}
	var waits []time.Duration
	_, err := client(&waits).Upsert(context.Background(), target(s), marker, marker)
	var se *prhost.StatusError
	if !errors.As(err, &se) || se.Status != 502 {
		t.Fatalf("err = %v, want a 502 StatusError", err)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}
	if len(waits) != len(want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	for i := range want {
		if waits[i] != want[i] {
			t.Errorf("waits %v, want %v", waits, want)
		}
	}
}

// TestCheckAPI: https anywhere, plain http only on loopback.
func TestCheckAPI(t *testing.T) {
	for api, ok := range map[string]bool{
		"https://api.github.com": true, "http://127.0.0.1:8080": true, "http://localhost:1": true, "http://[::1]:9/api/v4": true,
		"http://api.github.com": false, "http://10.0.0.1": false, "ftp://x": false, "not a url": false,
	} {
		if _, err := prhost.CheckAPI(api); (err == nil) != ok {
			t.Errorf("CheckAPI(%q) = %v, want ok=%v", api, err, ok)
		}
	}
}

// TestPagingEnds: a next link that points to itself stops at the second
// request, a server that links next pages without end stops at MaxPages;
// both are ErrPaging, not an endless loop.
func TestPagingEnds(t *testing.T) {
	for _, provider := range []string{"github", "gitlab"} {
		for _, paging := range []string{prhosttest.PagingSelf, prhosttest.PagingEndless} {
			t.Run(provider+"/"+paging, func(t *testing.T) {
				s := prhosttest.New(provider, "tok")
				defer s.Close()
				s.Paging = paging
				s.Add("LGTM")
				var waits []time.Duration
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_, err := client(&waits).Upsert(ctx, target(s), marker, marker+"\nbody")
				if !errors.Is(err, prhost.ErrPaging) {
					t.Fatalf("err = %v, want ErrPaging", err)
				}
				want := map[string]int{prhosttest.PagingSelf: 1, prhosttest.PagingEndless: prhost.MaxPages}[paging]
				if len(s.Requests) != want {
					t.Errorf("%d requests, want %d", len(s.Requests), want)
				}
				if paging == prhosttest.PagingSelf && !strings.Contains(err.Error(), "already read") {
					t.Errorf("err = %v, want it to say the link points back", err)
				}
				if len(s.Comments()) != 1 {
					t.Errorf("a comment was posted after the paging error")
				}
			})
		}
	}
}

// TestErrorBodyClipped: a server's answer quoted in an error is cut to
// MaxBodyInError characters.
func TestErrorBodyClipped(t *testing.T) {
	s := prhosttest.New("github", "tok")
	defer s.Close()
	long := `{"message":"` + strings.Repeat("x", 5000) + `"}`
	s.FailNext(prhosttest.Fail{Status: 404, Body: long})
	var waits []time.Duration
	_, err := client(&waits).Upsert(context.Background(), target(s), marker, marker)
	var se *prhost.StatusError
	if !errors.As(err, &se) || se.Status != 404 {
		t.Fatalf("err = %v, want a 404 StatusError", err)
	}
	if n := strings.Count(err.Error(), "x"); n != prhost.MaxBodyInError-len(`{"message":"`) {
		t.Errorf("the error quotes %d x's of the body: %.300s", n, err)
	}
	if !strings.Contains(err.Error(), "5014 bytes in all") {
		t.Errorf("the error does not give the body's size: %.400s", err)
	}
	s.FailNext(prhosttest.Fail{Status: 403, Body: long})
	if _, err := client(&waits).Upsert(context.Background(), target(s), marker, marker); !errors.Is(err, prhost.ErrForbidden) || len(err.Error()) > 600 {
		t.Errorf("fork 403 error not clipped: %d bytes", len(err.Error()))
	}
}
