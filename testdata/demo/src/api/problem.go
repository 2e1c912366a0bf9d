package api

import (
	"encoding/json"
	"net/http"
)

// problem is an RFC 9457 problem document. Type is stable and documented;
// clients branch on it, never on Title or Detail.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

const problemBase = "https://ledgerly.dev/problems/"

func writeProblem(w http.ResponseWriter, status int, slug, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(problem{
		Type:   problemBase + slug,
		Title:  title,
		Status: status,
		Detail: detail,
	})
}
