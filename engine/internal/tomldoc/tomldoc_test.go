//go:build !kontextreader

package tomldoc

import (
	"errors"
	"reflect"
	"testing"
)

type doc struct {
	Version *int                `toml:"version"`
	Name    *string             `toml:"name"`
	Paths   map[string][]string `toml:"paths"`
	Items   []struct {
		Dir string `toml:"dir"`
	} `toml:"item"`
}

// A record reads back as exactly what the parser decoded, value or error.
func TestRecordedIsDecode(t *testing.T) {
	texts := []string{
		"",
		"version = 1\nname = \"x\"\n",
		"[paths]\n\"a b\" = [\"src/**\", 'lit']\nc = []\n",
		"[[item]]\ndir = \"a\"\n[[item]]\ndir = \"b\"\n",
		"version = 1\nbogus = 2\n[paths]\nx = [\"a\"]\n[other]\ny = 1\n", // unknown keys, each with its line
		"version = \n",        // syntax
		"version = \"one\"\n", // type
		"name = \"unterminated\n",
	}
	for _, text := range texts {
		var want, got doc
		wantErr := Decode([]byte(text), &want)
		rec := Encode(&want, wantErr)
		if rec == "" {
			t.Fatalf("%q: no record (err %v)", text, wantErr)
		}
		if err := Recorded([]byte(text), &got); !errors.Is(err, ErrNoParser) {
			t.Fatalf("%q: Recorded before Remember = %v, want ErrNoParser", text, err)
		}
		Remember(text, rec)
		gotErr := Recorded([]byte(text), &got)
		if !reflect.DeepEqual(wantErr, gotErr) {
			t.Errorf("%q: recorded error %#v, decode gave %#v", text, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(want, got) {
			t.Errorf("%q: recorded value %+v, decode gave %+v", text, got, want)
		}
	}
}

// Decode reports every unknown key with its line, and a syntax error with
// its position.
func TestDecodeErrors(t *testing.T) {
	var d doc
	err := Decode([]byte("version = 1\nbogus = 2\n\n[other]\ny = 1\n"), &d)
	var de *Error
	if !errors.As(err, &de) || len(de.Unknown) != 2 || de.Unknown[0].Row != 2 || de.Unknown[1].Row != 4 ||
		!reflect.DeepEqual(de.Unknown[1].Key, []string{"other"}) {
		t.Fatalf("unknown keys: %#v", err)
	}
	err = Decode([]byte("version = 1\n\nname = \n"), &d)
	if !errors.As(err, &de) || !de.Positioned || de.Row != 3 {
		t.Fatalf("syntax error: %#v", err)
	}
}

// A record that does not decode is not remembered, and an error of
// another kind is not recorded.
func TestBadRecords(t *testing.T) {
	for _, rec := range []string{"", "{", `{}`, `{"value":1,"error":{"message":"x"}}`} {
		Remember("bad-record-text", rec)
		if err := Recorded([]byte("bad-record-text"), &doc{}); !errors.Is(err, ErrNoParser) {
			t.Errorf("record %q was remembered: %v", rec, err)
		}
	}
	if rec := Encode(&doc{}, errors.New("disk")); rec != "" {
		t.Errorf("a non-document error was recorded: %s", rec)
	}
}
