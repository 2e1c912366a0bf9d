// Package prhosttest is a local stand-in for the comment endpoints of the
// GitHub and GitLab REST APIs, served on 127.0.0.1 for tests: it keeps
// comments in memory, pages them two at a time with Link: rel="next", and
// can be told to fail the next requests (500, rate-limited 403, fork 403)
// or to page badly (a next link to itself, next pages without end).
package prhosttest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Comment is one stored comment (note).
type Comment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	URL  string `json:"html_url,omitempty"`
}

// Fail is a canned answer for the next request.
type Fail struct {
	Status int
	Header map[string]string
	// Body replaces the default {"message":"canned <status>"}.
	Body string
}

// Paging modes of a misbehaving server.
const (
	// PagingSelf: every list page's next link points to itself.
	PagingSelf = "self"
	// PagingEndless: every list page links a next page, forever.
	PagingEndless = "endless"
)

// Server is the stub API.
type Server struct {
	*httptest.Server
	Provider string // github | gitlab
	Token    string
	PageSize int
	// Paging makes the list's Link header misbehave: PagingSelf or
	// PagingEndless ("" pages correctly).
	Paging string

	mu       sync.Mutex
	comments []Comment
	nextID   int64
	fails    []Fail
	// Requests lists "METHOD path" of every request, in order.
	Requests []string
}

// New starts a stub of provider on 127.0.0.1 that accepts token.
func New(provider, token string) *Server {
	s := &Server{Provider: provider, Token: token, PageSize: 2, nextID: 100}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s.Server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(s.serve)}}
	s.Start()
	return s
}

// Add stores a comment written by someone else (or by kontext before).
func (s *Server) Add(body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	s.comments = append(s.comments, Comment{ID: s.nextID, Body: body})
}

// FailNext queues canned answers for the next requests.
func (s *Server) FailNext(f ...Fail) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails = append(s.fails, f...)
}

// Comments returns the stored comments.
func (s *Server) Comments() []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Comment(nil), s.comments...)
}

// Paths of the stub: GitHub's repository acme/app, pull request 7;
// GitLab's project 42, merge request 7.
const (
	GitHubList   = "/repos/acme/app/issues/7/comments"
	GitHubUpdate = "/repos/acme/app/issues/comments/"
	GitLabList   = "/projects/42/merge_requests/7/notes"
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Requests = append(s.Requests, r.Method+" "+r.URL.Path)
	if len(s.fails) > 0 {
		f := s.fails[0]
		s.fails = s.fails[1:]
		for k, v := range f.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(f.Status)
		if f.Body != "" {
			fmt.Fprint(w, f.Body)
		} else {
			fmt.Fprintf(w, `{"message":"canned %d"}`, f.Status)
		}
		return
	}
	auth := r.Header.Get("Authorization") == "Bearer "+s.Token
	if s.Provider == "gitlab" {
		auth = r.Header.Get("PRIVATE-TOKEN") == s.Token
	}
	if !auth {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"Bad credentials"}`)
		return
	}
	list, update := GitHubList, GitHubUpdate
	updateMethod := http.MethodPatch
	if s.Provider == "gitlab" {
		list, update, updateMethod = GitLabList, GitLabList+"/", http.MethodPut
	}
	switch {
	case r.URL.Path == list && r.Method == http.MethodGet:
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page < 1 {
			page = 1
		}
		from := min((page-1)*s.PageSize, len(s.comments))
		to := min(from+s.PageSize, len(s.comments))
		switch s.Paging {
		case PagingSelf:
			w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, s.URL, r.URL.RequestURI()))
		case PagingEndless:
			q := r.URL.Query()
			q.Set("page", strconv.Itoa(page+1))
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, s.URL, list, q.Encode()))
		}
		if to < len(s.comments) && s.Paging == "" {
			q := r.URL.Query()
			q.Set("page", strconv.Itoa(page+1))
			w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next", <%s%s?page=1>; rel="first"`, s.URL, list, q.Encode(), s.URL, list))
		}
		json.NewEncoder(w).Encode(s.comments[from:to])
	case r.URL.Path == list && r.Method == http.MethodPost:
		var in struct{ Body string }
		if json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == "" {
			w.WriteHeader(http.StatusUnprocessableEntity)
			return
		}
		s.nextID++
		c := Comment{ID: s.nextID, Body: in.Body, URL: fmt.Sprintf("%s/c/%d", s.URL, s.nextID)}
		s.comments = append(s.comments, c)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(c)
	case strings.HasPrefix(r.URL.Path, update) && r.Method == updateMethod:
		id, err := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, update), 10, 64)
		var in struct{ Body string }
		if err != nil || json.NewDecoder(r.Body).Decode(&in) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		for i := range s.comments {
			if s.comments[i].ID == id {
				s.comments[i].Body = in.Body
				json.NewEncoder(w).Encode(s.comments[i])
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"message":"no route %s %s"}`, r.Method, r.URL.Path)
	}
}
