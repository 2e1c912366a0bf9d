package main

import (
	"bytes"
	"testing"
)

// TestNeutraliserSplitWrites: a painted sequence or a UTF-8 rune cut by a write boundary
// comes out whole; content that imitates the mark without knowing it stays neutralised.
func TestNeutraliserSplitWrites(t *testing.T) {
	n := newNeutraliser()
	in := []byte(n.mark + "[36mid" + n.mark + "[0m é \x1b[2J \x1b\x00[31m \xc2\x9b \xff\n")
	var got []byte
	for i := range in {
		got = append(got, n.feed(in[i:i+1], false)...)
	}
	got = append(got, n.feed(nil, true)...)
	want := "\x1b[36mid\x1b[0m é ␛[2J ␛␀[31m \uFFFD \uFFFD\n"
	if string(got) != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if bytes.Contains([]byte(neutral("a\x1b]0;x\x07b\tc\nd")), []byte{0x1b}) {
		t.Fatal("neutral let ESC through")
	}
}
