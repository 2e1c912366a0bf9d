// Command raceset splits kontext's packages into the ones `make test` runs
// under the race detector and the ones it runs without it. The rule is
// syntactic, over every Go file of the package that builds on this
// platform (its code, its tests and its external tests). A package is
// concurrent when any of them:
//
//   - has a go statement, a channel type, a send, a receive or a select;
//   - uses sync's Mutex, RWMutex, WaitGroup, Cond or Map (sync.Once,
//     OnceFunc, OnceValue and Pool alone only make lazy values safe for
//     callers elsewhere), or imports sync/atomic, golang.org/x/sync/…,
//     net/http/httptest (handlers run on the server's goroutines) or
//     go-internal's testscript (scripts run in parallel, with background
//     commands);
//   - calls a method Parallel (t.Parallel: tests sharing the package's
//     state at once), Start (exec.Cmd.Start: a child process beside the
//     test, its pipes copied by goroutines), AfterFunc, Serve or
//     ListenAndServe (callbacks on other goroutines).
//
// Every other package runs the same tests without -race: nothing in it
// can start a second goroutine of its own, so the detector has nothing to
// find there that the concurrent packages' runs do not find.
//
//	go run ./build/raceset          # the concurrent packages, one a line
//	go run ./build/raceset -plain   # every other package
//	go run ./build/raceset -why     # each package, race or plain, and the first reason
//
// The two lists are disjoint and together are `go list ./...`.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
}

// concurrentImports are imports that alone make a package concurrent.
var concurrentImports = map[string]bool{
	"sync/atomic":       true,
	"net/http/httptest": true,
	"github.com/rogpeppe/go-internal/testscript": true,
}

// concurrentCalls are method names whose calls start work on another
// goroutine (or beside a child process).
var concurrentCalls = map[string]bool{"Parallel": true, "Start": true, "AfterFunc": true, "Serve": true, "ListenAndServe": true}

func main() {
	plain := flag.Bool("plain", false, "list the packages that are not concurrent")
	why := flag.Bool("why", false, "list every package with its set and the first reason")
	flag.Parse()
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	pkgs, err := list(patterns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "raceset:", err)
		os.Exit(1)
	}
	for _, p := range pkgs {
		reason, err := concurrent(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "raceset:", err)
			os.Exit(1)
		}
		switch {
		case *why && reason != "":
			fmt.Printf("race  %s  (%s)\n", p.ImportPath, reason)
		case *why:
			fmt.Printf("plain %s\n", p.ImportPath)
		case (reason != "") != *plain:
			fmt.Println(p.ImportPath)
		}
	}
}

// list runs go list -json on the patterns.
func list(patterns []string) ([]pkg, error) {
	gotool := os.Getenv("GO")
	if gotool == "" {
		gotool = "go"
	}
	var out bytes.Buffer
	cmd := exec.Command(gotool, append([]string{"list", "-json"}, patterns...)...)
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
}

// concurrent returns why the package is concurrent, or "" when it is not.
func concurrent(p pkg) (string, error) {
	fset := token.NewFileSet()
	for _, group := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles} {
		for _, name := range group {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return "", err
			}
			if r := inFile(f); r != "" {
				return name + ": " + r, nil
			}
		}
	}
	return "", nil
}

// syncTypes are the types of package sync that only concurrent code needs.
var syncTypes = map[string]bool{"Mutex": true, "RWMutex": true, "WaitGroup": true, "Cond": true, "Map": true}

func inFile(f *ast.File) string {
	syncName := ""
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if concurrentImports[path] || strings.HasPrefix(path, "golang.org/x/sync/") {
			return "imports " + path
		}
		if path == "sync" {
			syncName = "sync"
			if imp.Name != nil {
				syncName = imp.Name.Name
			}
		}
	}
	reason := ""
	ast.Inspect(f, func(n ast.Node) bool {
		if reason != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			reason = "go statement"
		case *ast.ChanType:
			reason = "channel type"
		case *ast.SendStmt:
			reason = "channel send"
		case *ast.SelectStmt:
			reason = "select"
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				reason = "channel receive"
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && syncName != "" && x.Name == syncName && syncTypes[n.Sel.Name] {
				reason = "sync." + n.Sel.Name
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && concurrentCalls[sel.Sel.Name] {
				reason = "calls " + sel.Sel.Name
			}
		}
		return true
	})
	return reason
}
