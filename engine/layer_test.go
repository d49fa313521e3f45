package engine

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// engine is load generation: it writes its logs and returns the
// summary; reading the logs back, the summary files and every rendering
// are internal/runpath's and report's. None of its non-test files
// imports a package that stands above it.
func TestEngineImportsNoPackageAboveIt(t *testing.T) {
	above := []string{"github.com/soakd/soakd/report", "github.com/soakd/soakd/internal/runpath", "github.com/soakd/soakd/daemon"}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			for _, a := range above {
				if p == a {
					t.Errorf("%s imports %s", fset.Position(im.Pos()), p)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no non-test sources checked")
	}
}
