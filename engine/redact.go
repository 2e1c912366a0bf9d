package engine

import "github.com/kontext/kontext/engine/internal/redact"

// Redact replaces secrets and e-mail addresses in s by
// "[redacted:<kind>]" (the capture redaction); every text sent to a model
// and every excerpt of a model's reply in a message passes through it.
func Redact(s string) string {
	out, _ := redact.Text(s)
	return out
}
