//go:build kontextreader

package tomldoc

import (
	"errors"
	"testing"
)

// The reader engine's Decode answers from records only: a text no
// snapshot recorded is ErrNoParser, never a zero value.
func TestReaderDecode(t *testing.T) {
	var d struct {
		Version *int `toml:"version"`
	}
	if err := Decode([]byte("version = 1\n"), &d); !errors.Is(err, ErrNoParser) || d.Version != nil {
		t.Fatalf("Decode without a record = %v, %+v", err, d)
	}
	Remember("version = 1\n", `{"value":{"Version":1}}`)
	if err := Decode([]byte("version = 1\n"), &d); err != nil || d.Version == nil || *d.Version != 1 {
		t.Fatalf("Decode with a record = %v, %+v", err, d)
	}
}
