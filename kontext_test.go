package kontext_test

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kontext/kontext"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/internal/testrepo"
)

// faceImports are the only packages the exported API of package kontext
// may name: the standard library, the API's data and its error type.
var faceImports = map[string]bool{
	"github.com/kontext/kontext/engine/api":    true,
	"github.com/kontext/kontext/engine/apierr": true,
}

// TestPublicFace reads the facade's source and fails when an exported
// declaration (a function's parameters and results, a method, a type, an
// alias, an exported field) names a package other than the standard
// library, engine/api and engine/apierr; and when engine/api imports
// anything but the standard library (it is data only).
func TestPublicFace(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, testrepo.Root(), func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg := pkgs["kontext"]
	if pkg == nil {
		t.Fatal("package kontext not found at the module root")
	}
	checked := 0
	for name, f := range pkg.Files {
		imports := map[string]string{} // local name → path
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			local := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = p
		}
		check := func(where string, n ast.Node) {
			if n == nil {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				p, ok := imports[x.Name]
				if !ok {
					return true
				}
				checked++
				if strings.Contains(p, ".") && !faceImports[p] {
					t.Errorf("%s: %s names %s.%s (%s): the public face may name only the standard library, engine/api and engine/apierr", filepath.Base(name), where, x.Name, sel.Sel.Name, p)
				}
				return false
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil {
					check("the receiver of "+d.Name.Name, d.Recv)
				}
				check(d.Name.Name, d.Type)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					st, isStruct := ts.Type.(*ast.StructType)
					if !isStruct {
						check("type "+ts.Name.Name, ts.Type)
						continue
					}
					for _, fld := range st.Fields.List {
						exported := len(fld.Names) == 0 // embedded
						for _, n := range fld.Names {
							exported = exported || n.IsExported()
						}
						if exported {
							check("a field of "+ts.Name.Name, fld.Type)
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no qualified type found in the facade's exported declarations: the check read nothing")
	}

	apiPkgs, err := parser.ParseDir(fset, filepath.Join(testrepo.Root(), "engine", "api"), nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range apiPkgs {
		for name, f := range p.Files {
			for _, im := range f.Imports {
				if path, _ := strconv.Unquote(im.Path.Value); strings.Contains(path, ".") {
					t.Errorf("engine/api/%s imports %s: engine/api is data only and imports no package of the engine", filepath.Base(name), path)
				}
			}
		}
	}
}

// A file set with one convention: the facade answers governing from it,
// relative and "./" paths alike, and refuses paths outside the root with
// invalid_input, through the typed read and through Request.
func TestOpenFiles(t *testing.T) {
	files := map[string]string{
		".ai/conventions/2026-01-10-money.md": "---\nid: 2026-01-10-money\nkind: convention\ntitle: Money is integer cents\nstatus: active\npaths: [\"src/billing/**\"]\n---\nStore money as int64 cents.\n",
	}
	r, err := kontext.OpenFiles(files, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var answers []string
	for _, p := range []string{"src/billing/tax/vat.go", "./src/billing/tax/vat.go"} {
		res, err := r.Governing(ctx, &api.GoverningInput{Paths: []string{p}})
		if err != nil {
			t.Fatalf("governing %s: %v", p, err)
		}
		if len(res.Entries) != 1 || res.Entries[0].ID != "2026-01-10-money" {
			t.Fatalf("governing %s: want the money convention, got %+v", p, res.Entries)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, string(b))
	}
	if answers[0] != answers[1] {
		t.Errorf("a relative and a ./ path answer differently:\n%s\n%s", answers[0], answers[1])
	}
	for _, p := range []string{"../outside.go", "src/../../outside.go", "/etc/passwd"} {
		_, err := r.Governing(ctx, &api.GoverningInput{Paths: []string{p}})
		var e *kontext.Error
		if !errors.As(err, &e) || e.Code != "invalid_input" {
			t.Errorf("governing %q: want invalid_input, got %v", p, err)
		}
		var env struct {
			OK    bool `json:"ok"`
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		in, _ := json.Marshal(map[string]any{"paths": []string{p}})
		if err := json.Unmarshal(r.Request(ctx, "entries.governing", in), &env); err != nil {
			t.Fatal(err)
		}
		if env.OK || env.Error.Code != "invalid_input" {
			t.Errorf("Request entries.governing %q: want invalid_input, got %+v", p, env)
		}
	}
	if _, err := kontext.OpenFiles(map[string]string{"../x.md": "x"}, ""); err == nil {
		t.Error("OpenFiles accepted a file outside the root")
	}
}

// Open and the package-level Request answer from a repository on disk
// the same envelope.
func TestOpenAndRequest(t *testing.T) {
	dir := testrepo.Demo(t)
	r, err := kontext.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in := []byte(`{"paths":["src/billing/tax/vat.go"]}`)
	a := r.Request(ctx, "entries.governing", in)
	b := kontext.Request(ctx, dir, "entries.governing", in)
	if string(a) != string(b) {
		t.Errorf("Repo.Request and Request differ:\n%s\n%s", a, b)
	}
	res, err := r.Governing(ctx, &api.GoverningInput{Paths: []string{"src/billing/tax/vat.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) == 0 {
		t.Fatal("nothing governs src/billing/tax/vat.go in the demo repository")
	}
	st, err := r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Snapshot != res.Snapshot {
		t.Errorf("status snapshot %q, governing snapshot %q", st.Snapshot, res.Snapshot)
	}
}

// The policy API is pure: a reviewed configuration decides what a blob is.
func TestPolicy(t *testing.T) {
	if got := kontext.ConfigCandidates(); len(got) == 0 {
		t.Fatal("no config candidates")
	}
	p, err := kontext.PolicyFromConfig("", nil)
	if err != nil {
		t.Fatal(err)
	}
	en, err := p.Inspect(".ai/decisions/2026-01-12-money.md", []byte("---\nid: 2026-01-12-money\nkind: decision\ntitle: Money is integer cents\nstatus: accepted\n---\nWe store cents.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if en.ID != "2026-01-12-money" || en.Kind != "decision" || !en.Authority {
		t.Errorf("inspect: got id %q kind %q authority %v", en.ID, en.Kind, en.Authority)
	}
	if _, err := p.Inspect("src/main.go", []byte("package main")); err == nil {
		t.Error("inspect accepted a file outside every knowledge directory")
	}
}
