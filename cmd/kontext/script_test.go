package main

import (
	"github.com/kontext/kontext/internal/testrepo"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"kontext": main})
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
			// demo DIR builds the demo repository at DIR.
			"demo": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: demo DIR")
				}
				cmd := exec.Command("bash", filepath.Join(testrepo.Root(), "build", "demo-repo.sh"), ts.MkAbs(args[0]))
				cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
				if out, err := cmd.CombinedOutput(); err != nil {
					ts.Fatalf("demo-repo.sh: %v\n%s", err, out)
				}
			},
			"http": cmdHTTP,
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
