// Package tomldoc owns kontext's strict TOML decoding (unknown keys are
// errors with their line) and the decoded records a portable snapshot
// carries, so that the reader engine, which links no TOML parser, answers
// from a bundle whose configuration or path overlay it could not parse.
//
// A record is the outcome of decoding one text: the value (JSON of the
// target struct) or the document's error. The reader engine looks a text
// up among the records its snapshots brought (Remember) and decodes
// nothing else: a text without a record is ErrNoParser, never a default.
package tomldoc

import (
	"encoding/json"
	"errors"
	"sync"
)

// Error is a TOML document's problem: keys its target does not have (each
// with its line), or a syntax or type error, at Row when Positioned.
type Error struct {
	Unknown    []UnknownKey `json:"unknown,omitempty"`
	Row        int          `json:"row,omitempty"`
	Positioned bool         `json:"positioned,omitempty"`
	Message    string       `json:"message"`
}

// UnknownKey is one key the target has no field for.
type UnknownKey struct {
	Row int      `json:"row"`
	Key []string `json:"key"`
}

func (e *Error) Error() string { return e.Message }

// ErrNoParser: this build has no TOML parser and no record of the text.
var ErrNoParser = errors.New("no TOML parser in this build and no recorded decoding of the text")

type record struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error *Error          `json:"error,omitempty"`
}

// Encode is the record of a decoding that gave v (a pointer to the
// target) and err; "" when it cannot be recorded (an error of another
// kind, a value JSON cannot hold).
func Encode(v any, err error) string {
	var rec record
	var de *Error
	switch {
	case errors.As(err, &de):
		rec.Error = de
	case err != nil:
		return ""
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		rec.Value = b
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return ""
	}
	return string(b)
}

// records maps a text to its record: a record is a function of the text
// alone, so records from any number of snapshots share one table.
var records sync.Map

// Remember makes rec (a portable snapshot's record, see Encode) the
// decoding of text for Recorded; a record that does not decode is
// dropped.
func Remember(text, rec string) {
	var r record
	if json.Unmarshal([]byte(rec), &r) != nil || (r.Value == nil) == (r.Error == nil) {
		return
	}
	records.Store(text, r)
}

// Recorded is Decode from text's record (see Remember): its value decoded
// into v, or its error; ErrNoParser when text has no record.
func Recorded(text []byte, v any) error {
	got, ok := records.Load(string(text))
	if !ok {
		return ErrNoParser
	}
	r := got.(record)
	if r.Error != nil {
		e := *r.Error
		return &e
	}
	if err := json.Unmarshal(r.Value, v); err != nil {
		return ErrNoParser
	}
	return nil
}
