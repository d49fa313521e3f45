package scenarios

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// kindTableFile is the kind table: the one file besides a kind's own
// that names every kind.
const kindTableFile = "scenarios/phase_kinds.go"

// kindConstExceptions are files outside a kind's own that name kind
// constants, each with why: the other layers' kind tables (the engine's
// executors, the report's sections). Do not grow it: a new kind is its
// own files (see ownsKind), a line in each kind table and its result
// type in rundir.
var kindConstExceptions = map[string]string{
	"engine/kinds.go": "the engine's kind table: each kind's executor",
	"report/kinds.go": "the report's kind table: each kind's text and HTML sections and what the report asks of it",
}

// ownsKind is the naming rule for a kind's own files: a non-test .go
// file in any package whose base name, split at "_", has a part that
// begins with the kind's name (phase_sweep.go, sweep.go,
// suite_sweep.go, growthinsert.go, replay.go).
func ownsKind(file string, kind PhaseKind) bool {
	base := strings.TrimSuffix(filepath.Base(file), ".go")
	for _, part := range strings.Split(base, "_") {
		if strings.HasPrefix(part, string(kind)) {
			return true
		}
	}
	return false
}

// phaseKindConsts finds the constants of type PhaseKind declared in this
// package, by name, with their kinds.
func phaseKindConsts(t *testing.T) map[string]PhaseKind {
	t.Helper()
	out := map[string]PhaseKind{}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "PhaseKind" {
					continue
				}
				for i, n := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: %s is not a string literal", f, n.Name)
					}
					v, _ := strconv.Unquote(lit.Value)
					out[n.Name] = PhaseKind(v)
				}
			}
		}
	}
	return out
}

// TestPhaseKindConstantsStayHome fails when a phase kind's constant is
// used in a non-test file that is neither the kind's own (ownsKind),
// the kind table, nor a named exception.
func TestPhaseKindConstantsStayHome(t *testing.T) {
	consts := phaseKindConsts(t)
	if len(consts) != len(PhaseKinds()) {
		t.Fatalf("%d PhaseKind constants, %d kinds in the table", len(consts), len(PhaseKinds()))
	}
	for name, k := range consts {
		if !k.Valid() {
			t.Errorf("constant %s = %q is not in the kind table", name, k)
		}
	}
	const modPath = "github.com/soakd/soakd"
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	var bad []string
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		af, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		inScenarios := af.Name.Name == "scenarios" && filepath.Dir(rel) == "scenarios"
		local := "" // the name this file imports package scenarios by
		for _, im := range af.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == modPath+"/scenarios" {
				local = "scenarios"
				if im.Name != nil {
					local = im.Name.Name
				}
			}
		}
		if !inScenarios && local == "" {
			return nil
		}
		used := map[string]bool{}
		ast.Inspect(af, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && local != "" && id.Name == local {
					if _, ok := consts[x.Sel.Name]; ok {
						used[x.Sel.Name] = true
					}
				}
				return true
			case *ast.Ident:
				if _, ok := consts[x.Name]; ok && inScenarios {
					used[x.Name] = true
				}
			}
			return true
		})
		for c := range used {
			switch {
			case ownsKind(rel, consts[c]), rel == kindTableFile:
			case kindConstExceptions[rel] != "":
			default:
				bad = append(bad, rel+": "+c)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files from %s", checked, root)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: a phase kind constant outside its kind's own files (name them *<kind>*.go) and %s; route it through the kind table", b, kindTableFile)
	}
}

// The naming rule, spelt out.
func TestOwnsKind(t *testing.T) {
	for _, c := range []struct {
		file string
		kind PhaseKind
		want bool
	}{
		{"scenarios/phase_sweep.go", PhaseSweep, true},
		{"report/suite_sweep.go", PhaseSweep, true},
		{"scenarios/growthinsert.go", PhaseGrowth, true},
		{"engine/replay.go", PhaseReplay, true},
		{"scenarios/workload.go", PhaseLoad, false},
		{"engine/run.go", PhaseRamp, false},
		{"scenarios/phase_steady.go", PhaseRamp, false},
	} {
		if got := ownsKind(c.file, c.kind); got != c.want {
			t.Errorf("ownsKind(%s, %s) = %v", c.file, c.kind, got)
		}
	}
}
