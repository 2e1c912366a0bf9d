// Package apierr owns the one error type of the application API: every
// failure that reaches a client carries one of the codes below, a message
// that says what was wrong and what to do, and optional extra fields.
package apierr

import (
	"errors"
	"fmt"
)

// Codes of the application API (README "The application API").
const (
	InvalidInput         = "invalid_input"
	UnsupportedOperation = "unsupported_operation"
	NotFound             = "not_found"
	UnknownEntry         = "unknown_entry"
	StaleEntry           = "stale_entry"
	OperationConflict    = "operation_conflict"
	OperationIncomplete  = "operation_incomplete"
	WorktreeConflict     = "worktree_conflict"
	AmendNotAdditive     = "amend_not_additive"
	DecisionNotAmended   = "decision_not_amended"
	UntrustedVerify      = "untrusted_verify"
	ModelUnavailable     = "model_unavailable"
	InvalidModelOutput   = "invalid_model_output"
	NoCommits            = "no_commits"
	OperationFailed      = "operation_failed"
	StaleCursor          = "stale_cursor"
)

// aliases lists the older or broader codes a client may branch on as well.
var aliases = map[string][]string{
	StaleEntry:       {OperationConflict},
	ModelUnavailable: {"llm_unavailable"},
}

// Error is an API error: a code, a message, and extra fields that sit next
// to them in the envelope's "error" object.
type Error struct {
	Code    string
	Message string
	Extra   map[string]any
	Err     error // wrapped cause, never shown to clients beyond Message
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Aliases returns the alias codes of e's code (nil when it has none).
func (e *Error) Aliases() []string { return aliases[e.Code] }

// New returns an error with code and a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code whose message is the formatted text
// followed by ": " and err's message; err stays reachable with errors.Is/As.
func Wrap(code string, err error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Error{Code: code, Message: msg, Err: err}
}

// Invalid is shorthand for New(InvalidInput, ...).
func Invalid(format string, args ...any) *Error { return New(InvalidInput, format, args...) }

// As returns the *Error in err's chain, or an operation_failed error
// carrying err's message when there is none.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: OperationFailed, Message: err.Error(), Err: err}
}

// CodeOf returns the API code of err ("" for nil).
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	return As(err).Code
}
