package ledger

import "testing"

func TestParse(t *testing.T) {
	data := []byte(`{"at":"2026-10-27T09:12:44Z","kind":"read","id":"a","commit":"0123456789abcdef0123456789abcdef01234567","by":"Jana Nová","because":"checked"}
not json
{"at":"2026-10-27T09:40:02Z","kind":"verify","id":"a","commit":null,"by":"x","passed":false,"exit_code":1,"command_sha256":"ab"}

{"at":"yesterday","kind":"read","id":"b","by":"x"}
{"at":"2026-10-27T09:40:02Z","kind":"poke","id":"b","by":"x"}
{"at":"2026-10-28T10:00:00+02:00","kind":"agent","id":"b","commit":"","by":"application:bot"}
{"at":"2026-10-28T10:00:00Z","kind":"verify","id":"c","by":"x","passed":true}
`)
	lines, problems := Parse(data)
	if len(lines) != 4 || len(problems) != 3 {
		t.Fatalf("lines %d problems %+v", len(lines), problems)
	}
	if problems[0].Line != 2 || problems[1].Line != 5 || problems[2].Line != 6 {
		t.Fatalf("problem lines %+v", problems)
	}
	a := lines[0]
	if !a.Verified() || a.FailedVerify() || a.By != "Jana Nová" || *a.Commit != "0123456789abcdef0123456789abcdef01234567" || a.Number != 1 {
		t.Fatalf("read line %+v", a)
	}
	if lines[1].Verified() || !lines[1].FailedVerify() || lines[1].Commit != nil {
		t.Fatalf("failed verify %+v", lines[1])
	}
	if lines[2].Verified() || lines[2].Commit != nil || lines[2].At.Hour() != 8 {
		t.Fatalf("agent stamp %+v", lines[2])
	}
	if !lines[3].Verified() {
		t.Fatal("a passed verify is verification")
	}
	if g := ByID(lines); len(g["a"]) != 2 || len(g["b"]) != 1 {
		t.Fatalf("ByID %v", g)
	}
}
