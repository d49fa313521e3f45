package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
)

// TestEveryKindHasAnExecutor: the kind table covers every phase kind.
func TestEveryKindHasAnExecutor(t *testing.T) {
	kinds := phaseKindConsts(t, filepath.Join("..", "scenarios"))
	if len(kinds) == 0 {
		t.Fatal("no phase kind constants found in scenarios/")
	}
	for _, k := range kinds {
		if _, ok := executorFor(scenarios.PhaseKind(k)); !ok {
			t.Errorf("phase kind %s has no executor in kinds.go", k)
		}
	}
	if _, ok := executorFor("no-such-kind"); ok {
		t.Error("an unknown kind has an executor")
	}
}

// TestKindConstantsStayHome: in engine's code a phase kind's constant
// (scenarios.PhaseSweep, ...) appears only in the kind table (kinds.go)
// and in the kind's own files (exec_<kind>.go, <kind>.go): everything
// else reaches a kind through its executor, so a new kind touches only
// its files and the table.
func TestKindConstantsStayHome(t *testing.T) {
	kinds := phaseKindConsts(t, filepath.Join("..", "scenarios"))
	if len(kinds) == 0 {
		t.Fatal("no phase kind constants found in scenarios/")
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "kinds.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "scenarios" {
				return true
			}
			kind, ok := kinds[sel.Sel.Name]
			if !ok || name == "exec_"+kind+".go" || name == kind+".go" {
				return true
			}
			t.Errorf("%s: scenarios.%s outside the %s kind's files and kinds.go", fset.Position(sel.Pos()), sel.Sel.Name, kind)
			return true
		})
	}
}

// phaseKindConsts returns the PhaseKind constants declared in dir, name
// to value.
func phaseKindConsts(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "PhaseKind" {
					continue
				}
				for i, n := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						out[n.Name] = v
					}
				}
			}
		}
	}
	return out
}
