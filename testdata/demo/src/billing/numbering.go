package billing

import "fmt"

// FormatNumber renders the legal invoice number <prefix>-<year>-<seq>,
// e.g. "LG-2026-000417". Sequences are gap-free per year: the next value is
// taken from the invoice_sequences row inside the issuing transaction, so a
// rolled-back issue does not burn a number.
func FormatNumber(prefix string, year int, seq int64) string {
	return fmt.Sprintf("%s-%d-%06d", prefix, year, seq)
}
