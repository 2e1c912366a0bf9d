package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kontext/kontext/internal/edge"
	"github.com/kontext/kontext/internal/testrepo"
	"github.com/rogpeppe/go-internal/testscript"
)

// edgeSetup gives the edge scripts the checkout's workerd (make node-deps
// installs it) as KONTEXT_WORKERD and a free port as EDGE_PORT.
func edgeSetup(env *testscript.Env) error {
	bin := filepath.Join(testrepo.Root(), "node_modules", ".bin", "workerd")
	if _, err := os.Stat(bin); err == nil {
		env.Setenv("KONTEXT_WORKERD", bin)
	}
	port, err := edge.FreePort()
	if err != nil {
		return err
	}
	env.Setenv("EDGE_PORT", strconv.Itoa(port))
	return nil
}

// edgeCondition: [workerd] holds when the checkout has workerd.
func edgeCondition(cond string) (bool, error) {
	if cond != "workerd" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	_, err := os.Stat(filepath.Join(testrepo.Root(), "node_modules", ".bin", "workerd"))
	return err == nil, nil
}

// cmdHTTP: http METHOD URL [BODY] prints "status N" and the body; it waits
// up to 60 s for the server to listen (a background kontext edge serve).
func cmdHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: http METHOD URL [BODY]")
	}
	var body string
	if len(args) == 3 {
		body = args[2]
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, err := http.NewRequest(args[0], args[1], strings.NewReader(body))
		ts.Check(err)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			if time.Now().After(deadline) {
				ts.Fatalf("http %s %s: %v", args[0], args[1], err)
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		ts.Check(err)
		fmt.Fprintf(ts.Stdout(), "status %d\n%s\n", res.StatusCode, data)
		if neg != (res.StatusCode >= 400) {
			ts.Fatalf("http %s %s: status %d", args[0], args[1], res.StatusCode)
		}
		return
	}
}
