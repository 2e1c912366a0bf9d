package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitFree: every call of kontext pays for package initialisation, so
// no package-level variable of this module compiles a regexp, builds a
// goldmark parser or decodes the operations' schemas while the program
// starts; they are built at first use (sync.OnceValue). Function literals
// are not run at initialisation and are not checked. No init calls
// os.Exit (no code answers before main).
func TestInitFree(t *testing.T) {
	costly := map[string]bool{
		"regexp.MustCompile": true, "regexp.Compile": true, "regexp.MustCompilePOSIX": true,
		"parser.NewParser": true, "engine.InputSchema": true,
	}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", "bench", "build", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				// One road: no code answers before main(), so no init
				// ends the process.
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok {
						if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
							if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && sel.Sel.Name == "Exit" {
								t.Errorf("%s: an init calls os.Exit: answers come from main", fset.Position(call.Pos()))
							}
						}
					}
					return true
				})
				continue
			}
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
						if x, ok := sel.X.(*ast.Ident); ok && costly[x.Name+"."+sel.Sel.Name] {
							t.Errorf("%s: package-level %s.%s runs at every start; build it at first use (sync.OnceValue)",
								fset.Position(n.Pos()), x.Name, sel.Sel.Name)
						}
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
