package main

import (
	"go/parser"
	"go/token"
	"testing"
)

// TestRule: each construct of the rule makes a file concurrent, and code
// without them (sync.Once included) does not.
func TestRule(t *testing.T) {
	for src, want := range map[string]bool{
		`package p; func f() { go g() }; func g() {}`:                                                   true,
		`package p; var c chan int`:                                                                     true,
		`package p; func f(c chan<- int) { c <- 1 }`:                                                    true,
		`package p; func f(c <-chan int) int { return <-c }`:                                            true,
		`package p; func f() { select {} }`:                                                             true,
		`package p; import "sync"; var mu sync.Mutex`:                                                   true,
		`package p; import s "sync"; var wg s.WaitGroup`:                                                true,
		`package p; import "sync"; var m sync.Map`:                                                      true,
		`package p; import "sync/atomic"; var n atomic.Int64`:                                           true,
		`package p; import "golang.org/x/sync/errgroup"; var g errgroup.Group`:                          true,
		`package p; import "net/http/httptest"; var s *httptest.Server`:                                 true,
		`package p; import "github.com/rogpeppe/go-internal/testscript"; var _ testscript.Params`:       true,
		`package p; import "testing"; func TestX(t *testing.T) { t.Parallel() }`:                        true,
		`package p; import "os/exec"; func f() { exec.Command("x").Start() }`:                           true,
		`package p; import "time"; func f() { time.AfterFunc(0, func() {}) }`:                           true,
		`package p; import "sync"; var once sync.Once; var v = sync.OnceValue(func() int { return 1 })`: false,
		`package p; import "os/exec"; func f() { exec.Command("x").Run() }`:                             false,
		`package p; func f(x int) int { return -x }`:                                                    false,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := inFile(f) != ""; got != want {
			t.Errorf("%s: concurrent %v (%q), want %v", src, got, inFile(f), want)
		}
	}
}

// TestPartition: every package of the module is in exactly one of the two
// lists make test runs, so go test of both covers ./... .
func TestPartition(t *testing.T) {
	pkgs, err := list([]string{"github.com/kontext/kontext/..."})
	if err != nil {
		t.Fatal(err)
	}
	race, plain := 0, 0
	for _, p := range pkgs {
		reason, err := concurrent(p)
		if err != nil {
			t.Fatal(err)
		}
		if reason != "" {
			race++
		} else {
			plain++
		}
	}
	if race == 0 || plain == 0 || race+plain != len(pkgs) {
		t.Errorf("%d packages: %d with -race, %d without", len(pkgs), race, plain)
	}
}
