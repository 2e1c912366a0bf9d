package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestGeneratedUpToDate fails when rules_gen.go no longer matches the
// pinned rule list or this generator: run go generate ./engine/internal/redact
// (make generate).
func TestGeneratedUpToDate(t *testing.T) {
	src, err := os.ReadFile("../third_party/gitleaks/gitleaks.toml")
	if err != nil {
		t.Fatal(err)
	}
	want, st, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../rules_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rules_gen.go is stale; run: go generate ./engine/internal/redact")
	}
	skipped := 0
	for reason, ids := range st.Skipped {
		t.Logf("skipped (%s): %s", reason, strings.Join(ids, ", "))
		skipped += len(ids)
	}
	t.Logf("%d upstream rules, %d generated, %d skipped", st.Upstream, st.Compiled, skipped)
	if st.Compiled+skipped != st.Upstream || st.Compiled == 0 {
		t.Errorf("counts do not add up: %+v", st)
	}
}

// TestLicenceBesideTheCopy: the MIT notice travels with the pinned list.
func TestLicenceBesideTheCopy(t *testing.T) {
	b, err := os.ReadFile("../third_party/gitleaks/LICENSE")
	if err != nil || !bytes.Contains(b, []byte("MIT License")) || !bytes.Contains(b, []byte("Permission is hereby granted")) {
		t.Fatalf("third_party/gitleaks/LICENSE: %v", err)
	}
}

// TestSkipsWhatRE2CannotCompile: a rule Go's regexp refuses is left out
// at generation time and counted, never compiled at run time.
func TestSkipsWhatRE2CannotCompile(t *testing.T) {
	src := []byte(`
[[rules]]
id = "lookahead"
regex = '''foo(?=bar)'''
keywords = ["foo"]

[[rules]]
id = "plain"
regex = '''\bplain_[a-z0-9]{8}\b'''
keywords = ["plain_"]
`)
	code, st, err := Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	if st.Upstream != 2 || st.Compiled != 1 || len(st.Skipped["not RE2 (Go's regexp)"]) != 1 {
		t.Fatalf("%+v", st)
	}
	if bytes.Contains(code, []byte("lookahead")) && !bytes.Contains(code, []byte("not RE2 (Go's regexp): lookahead")) {
		t.Fatalf("the skipped rule is in the table:\n%s", code)
	}
	if !bytes.HasPrefix(code, []byte(Generated+"\n")) {
		t.Fatalf("no generated-code header:\n%s", code)
	}
}
