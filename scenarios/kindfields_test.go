package scenarios

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// kindFieldExceptions are files outside a kind's own that read a kind's
// spec or result fields, each with why. Do not grow it: route the read
// through a kind table (this package's kindDef, engine/kinds.go,
// report/kinds.go) instead.
var kindFieldExceptions = map[string]string{
	"engine/custom.go":                "growth's insert op: the engine's op table is being restructured (issue 43, op sources); listed there",
	"internal/studytest/studytest.go": "a test helper (imported by store tests only): checks a shipped sweep study's points as its tests do",
}

// kindOfType says which phase kind a named type belongs to: a
// scenarios type <Kind>Spec (the kind's keys) or a rundir type
// <Kind>Result (its results), e.g. GrowthSpec, CapacityResult.
func kindOfType(t types.Type) (PhaseKind, bool) {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return "", false
	}
	var base string
	switch n.Obj().Pkg().Path() {
	case modulePath + "/scenarios":
		base, ok = strings.CutSuffix(n.Obj().Name(), "Spec")
	case modulePath + "/rundir":
		base, ok = strings.CutSuffix(n.Obj().Name(), "Result")
	default:
		return "", false
	}
	if !ok {
		return "", false
	}
	k := PhaseKind(strings.ToLower(base))
	return k, k.Valid()
}

const modulePath = "github.com/soakd/soakd"

// goListed is one package of the module as `go list -export` sees it.
type goListed struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
	Standard                bool
}

// listModule runs `go list -export -deps` over the module: its own
// packages (to check) and the export data of everything they import.
func listModule(t *testing.T, root string) (own []goListed, export map[string]string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,Standard", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	export = map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out)).Decode
	for {
		var p goListed
		if err := dec(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		export[p.ImportPath] = p.Export
		if !p.Standard && strings.HasPrefix(p.ImportPath, modulePath) {
			own = append(own, p)
		}
	}
	return own, export
}

// TestKindFieldsStayHome fails when a phase kind's spec fields (the
// fields of its <Kind>Spec, or a field holding one, such as
// Phase.Growth) or result fields (its rundir <Kind>Result, or
// PhaseResult.Capacity) are read in a non-test file that is neither the
// kind's own (ownsKind), a kind table, nor a named exception.
func TestKindFieldsStayHome(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module")
	}
	root, _ := filepath.Abs("..")
	own, export := listModule(t, root)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := export[path]
		if !ok || f == "" {
			return nil, os.ErrNotExist
		}
		return os.Open(f)
	})
	tables := map[string]bool{kindTableFile: true, "engine/kinds.go": true, "report/kinds.go": true}
	var bad []string
	checked := 0
	for _, p := range own {
		var files []*ast.File
		for _, name := range p.GoFiles {
			af, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, af)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		checked++
		seen := map[string]bool{}
		for sel, s := range info.Selections {
			if s.Kind() != types.FieldVal {
				continue
			}
			k, ok := kindOfType(s.Obj().Type()) // a field holding a kind's spec or result
			if !ok {
				k, ok = kindOfType(s.Recv()) // a field of one
			}
			if !ok {
				continue
			}
			rel, _ := filepath.Rel(root, fset.Position(sel.Pos()).Filename)
			rel = filepath.ToSlash(rel)
			if ownsKind(rel, k) || tables[rel] || kindFieldExceptions[rel] != "" {
				continue
			}
			// A sweep that measures capacity carries capacity's spec and
			// result: the sweep's files read them.
			if k == PhaseCapacity && ownsKind(rel, PhaseSweep) {
				continue
			}
			msg := rel + ": " + string(k) + "'s " + s.Obj().Name()
			if !seen[msg] {
				seen[msg] = true
				bad = append(bad, msg+" (line "+strconv.Itoa(fset.Position(sel.Pos()).Line)+")")
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d packages", checked)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: a phase kind's spec or result field read outside its kind's own files and the kind tables; route it through a kind table", b)
	}
}
