// Package ledger owns the verification ledger (<storage>/confirmations.log):
// an append-only JSON Lines journal of looks at entries (read, agent, bulk
// confirmations and verify runs). It parses the bytes; a malformed line is
// a diagnostic and is ignored for every computation.
package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Kinds of ledger lines.
const (
	KindRead   = "read"
	KindAgent  = "agent"
	KindBulk   = "bulk"
	KindVerify = "verify"
)

// Line is one ledger record.
type Line struct {
	At            time.Time `json:"-"`
	AtRaw         string    `json:"at"`
	Kind          string    `json:"kind"`
	ID            string    `json:"id"`
	Commit        *string   `json:"commit"`
	By            string    `json:"by"`
	Because       string    `json:"because,omitempty"`
	Passed        *bool     `json:"passed,omitempty"`
	ExitCode      *int      `json:"exit_code,omitempty"`
	CommandSHA256 string    `json:"command_sha256,omitempty"`
	// Number is the 1-based line number in the file; Text the exact line.
	Number int    `json:"-"`
	Text   string `json:"-"`
}

// Verified reports whether the line counts as verification: a read
// confirmation or a passed verify (agent and bulk lines are stamps).
func (l *Line) Verified() bool {
	return l.Kind == KindRead || (l.Kind == KindVerify && l.Passed != nil && *l.Passed)
}

// FailedVerify reports whether the line is a verify run that failed; such a
// line is shown but is not a look.
func (l *Line) FailedVerify() bool {
	return l.Kind == KindVerify && (l.Passed == nil || !*l.Passed)
}

// Problem is a malformed line.
type Problem struct {
	Line    int
	Message string
}

// Parse reads ledger bytes. Lines are returned in file order; blank lines
// are skipped; malformed ones are reported and left out.
func Parse(data []byte) ([]*Line, []Problem) {
	var lines []*Line
	var problems []Problem
	for i, raw := range bytes.Split(data, []byte("\n")) {
		text := strings.TrimRight(string(raw), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		l, err := parseLine(text)
		if err != nil {
			problems = append(problems, Problem{Line: i + 1, Message: err.Error()})
			continue
		}
		l.Number, l.Text = i+1, text
		lines = append(lines, l)
	}
	return lines, problems
}

func parseLine(text string) (*Line, error) {
	var l Line
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	if l.ID == "" {
		return nil, fmt.Errorf("no id")
	}
	switch l.Kind {
	case KindRead, KindAgent, KindBulk, KindVerify:
	default:
		return nil, fmt.Errorf("unknown kind %q (read, agent, bulk, verify)", l.Kind)
	}
	t, err := time.Parse(time.RFC3339, l.AtRaw)
	if err != nil {
		return nil, fmt.Errorf("at %q is not an RFC 3339 time", l.AtRaw)
	}
	l.At = t.UTC()
	if l.Commit != nil && *l.Commit == "" {
		l.Commit = nil
	}
	return &l, nil
}

// ByID groups lines by entry id, keeping file order.
func ByID(lines []*Line) map[string][]*Line {
	out := map[string][]*Line{}
	for _, l := range lines {
		out[l.ID] = append(out[l.ID], l)
	}
	return out
}
