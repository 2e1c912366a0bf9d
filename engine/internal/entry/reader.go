//go:build kontextreader

package entry

import "github.com/kontext/kontext/engine/apierr"

// CanParse is false in the reader engine: it answers from compiled
// snapshots and links no YAML, Markdown or regular-expression parser (their
// package initialisation is most of a WASM engine's start-up).
const CanParse = false

// Parse is not in the reader engine. It returns no entry and the
// diagnostic of NoParser; callers check CanParse first and fail the
// request, so no answer is ever computed without the file.
func Parse(rel string, data []byte, src Source) (*Entry, []Diagnostic) {
	return nil, []Diagnostic{{File: rel, Severity: "error", Code: apierr.UnsupportedOperation, Message: NoParser(rel, 1).Error()}}
}
