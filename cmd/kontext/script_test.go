package main

import (
	"github.com/kontext/kontext/internal/testrepo"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
)

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestMain(m *testing.M) {
	// A -race binary sleeps a second when it exits (the race runtime's
	// atexit_sleep_ms) and the scripts launch hundreds of kontext
	// processes; make test sets GORACE the same way. Races are still
	// reported.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	testscript.Main(testrepo.M(m), map[string]func(){"kontext": main})
}

// TestScripts runs testdata/script/*.txtar against the kontext binary.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join(testrepo.Root(), "testdata", "script"),
		Setup: func(env *testscript.Env) error {
			for k, v := range map[string]string{
				"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
				"GIT_AUTHOR_NAME": "Script Author", "GIT_AUTHOR_EMAIL": "author@example.com",
				"GIT_COMMITTER_NAME": "Script Author", "GIT_COMMITTER_EMAIL": "author@example.com",
				"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
				"KONTEXT_NOW": "2026-11-30T12:00:00Z", "HOME": env.WorkDir, "NO_COLOR": "1",
			} {
				env.Setenv(k, v)
			}
			return edgeSetup(env)
		},
		Condition: edgeCondition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// demo DIR writes the demo repository at DIR (a copy of the
			// one built once for the test binary).
			"demo": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: demo DIR")
				}
				ts.Check(testrepo.DemoAt(ts.MkAbs(args[0])))
			},
			"http": cmdHTTP,
			// fits N fails unless every line of the last command's stdout
			// is at most N runes wide (colour sequences not counted).
			"fits": func(ts *testscript.TestScript, neg bool, args []string) {
				n, err := strconv.Atoi(args[0])
				if err != nil || len(args) != 1 {
					ts.Fatalf("usage: fits N")
				}
				over := 0
				for i, line := range strings.Split(ts.ReadFile("stdout"), "\n") {
					if w := utf8.RuneCountInString(sgr.ReplaceAllString(line, "")); w > n {
						over++
						ts.Logf("line %d is %d wide: %s", i+1, w, line)
					}
				}
				if (over > 0) != neg {
					ts.Fatalf("%d lines over %d columns", over, n)
				}
			},
			// repeat FILE N TEXT appends TEXT (\n read as a newline) N times
			// to FILE.
			"repeat": func(ts *testscript.TestScript, neg bool, args []string) {
				n, err := strconv.Atoi(args[1])
				if err != nil || len(args) != 3 {
					ts.Fatalf("usage: repeat FILE N TEXT")
				}
				f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				ts.Check(err)
				_, err = f.WriteString(strings.Repeat(strings.ReplaceAll(args[2], `\n`, "\n"), n))
				ts.Check(err)
				ts.Check(f.Close())
			},
			// bigfile NAME BYTES writes a JSON object of about BYTES bytes.
			"bigfile": func(ts *testscript.TestScript, neg bool, args []string) {
				n, err := strconv.Atoi(args[1])
				if err != nil {
					ts.Fatalf("bigfile: %v", err)
				}
				body := `{"query":"` + strings.Repeat("a", n) + `"}`
				ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(body), 0o644))
			},
		},
	})
}
