// Package tomldoctest checks, for the packages that record TOML decodings
// in portable snapshots, that a record reads back as exactly what the
// parser gave: the value, or the same error.
package tomldoctest

import (
	"reflect"
	"testing"

	"github.com/kontext/kontext/engine/internal/tomldoc"
)

// Check decodes each text with the parser into fresh(), records it with
// record, remembers the record and reads it back into another fresh();
// the errors must be equal and, without one, the values after normalize
// (nil for none: what a record keeps of a value that it does not keep
// whole).
func Check(t *testing.T, texts []string, record func([]byte) string, fresh func() any, normalize func(any)) {
	t.Helper()
	for _, text := range texts {
		want, got := fresh(), fresh()
		wantErr := tomldoc.Decode([]byte(text), want)
		rec := record([]byte(text))
		if rec == "" {
			t.Errorf("%q: not recordable (%v)", text, wantErr)
			continue
		}
		tomldoc.Remember(text, rec)
		gotErr := tomldoc.Recorded([]byte(text), got)
		if !reflect.DeepEqual(wantErr, gotErr) {
			t.Errorf("%q: recorded error %#v, parser %#v", text, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			continue // what was decoded before the error is never used
		}
		if normalize != nil {
			normalize(want)
			normalize(got)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%q: recorded %+v, parser %+v", text, got, want)
		}
	}
}
