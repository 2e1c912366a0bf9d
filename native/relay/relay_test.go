package relay

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// The client encodes requests by hand; the daemon decodes them with
// encoding/json: every valid string must arrive unchanged.
func TestAppendRequestDecodes(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "€", "𝄞", "<", ">", "&", "\u2028", "{", "]"}
	str := func() string {
		var b strings.Builder
		for n := r.Intn(12); n > 0; n-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		return b.String()
	}
	for i := 0; i < 2000; i++ {
		req := Request{V: r.Intn(3), Op: str(), Key: str(), Dir: str(), Input: str(), Columns: str()}
		for n := r.Intn(4); n > 0; n-- {
			req.Args = append(req.Args, str())
		}
		line, ok := AppendRequest(nil, &req)
		if !ok {
			t.Fatalf("valid UTF-8 refused: %#v", req)
		}
		if line[len(line)-1] != '\n' || strings.Count(string(line), "\n") != 1 {
			t.Fatalf("not one line: %q", line)
		}
		var got Request
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if !reflect.DeepEqual(got, req) {
			t.Fatalf("sent %#v\nreceived %#v\nline %q", req, got, line)
		}
	}
}

func TestAppendRequestRefusesInvalidUTF8(t *testing.T) {
	for _, bad := range []string{"\xff", "a\xc3", "\xed\xa0\x80", "\xc0\xaf"} {
		if _, ok := AppendRequest(nil, &Request{Args: []string{"governing", bad}}); ok {
			t.Errorf("%q: sent, though JSON would change it", bad)
		}
	}
}

func TestCommandReplyFraming(t *testing.T) {
	for _, rep := range []Reply{
		{Served: true, Code: 3, Stdout: "out\n", Stderr: "err\x00\xff"},
		{Served: true},
		{Fallback: "the client is another build"},
		{Served: true, Code: 130, Stdout: strings.Repeat("x", 70000)},
	} {
		b := AppendCommandReply(nil, &rep)
		got, err := ParseCommandReply(b)
		if err != nil || !reflect.DeepEqual(*got, rep) {
			t.Fatalf("%+v: got %+v, %v", rep, got, err)
		}
		// Every truncation and an extra byte are refused, never read as
		// a shorter answer.
		for n := 0; n < len(b) && n < 64; n++ {
			if _, err := ParseCommandReply(b[:n]); err == nil {
				t.Fatalf("%+v: truncated to %d bytes was accepted", rep, n)
			}
		}
		if _, err := ParseCommandReply(append(b, 0)); err == nil {
			t.Fatalf("%+v: a trailing byte was accepted", rep)
		}
	}
	// A JSON reply (a daemon that could not read the request) is no answer.
	if _, err := ParseCommandReply([]byte(`{"fallback":"protocol"}` + "\n")); err == nil {
		t.Fatal("a JSON reply was read as a command reply")
	}
}

func TestFingerprint(t *testing.T) {
	a := Fingerprint("bin", []string{"HOME=/h", "GIT_DIR=x", "PWD=/a", "COLUMNS=80"})
	if b := Fingerprint("bin", []string{"GIT_DIR=x", "HOME=/h", "PWD=/b", "SHLVL=3"}); a != b {
		t.Error("order or a shell-session variable changed the fingerprint")
	}
	for _, other := range [][]string{
		{"HOME=/h", "GIT_DIR=y"},
		{"HOME=/h", "GIT_DIR=x", "KONTEXT_LLM=openai"},
		{"HOME=/h"},
	} {
		if Fingerprint("bin", other) == a {
			t.Errorf("%v: the same fingerprint as another environment", other)
		}
	}
	if Fingerprint("bin2", []string{"HOME=/h", "GIT_DIR=x"}) == a {
		t.Error("another binary: the same fingerprint")
	}
	// A variable is ignored by its whole name, not by a prefix.
	if Fingerprint("bin", nil) == Fingerprint("bin", []string{"PWD_X=1"}) {
		t.Error("a variable that only starts like an ignored one was ignored")
	}
}
