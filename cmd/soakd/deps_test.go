package main

import (
	"os/exec"
	"strings"
	"testing"
)

// depsCeiling bounds what a cold `go run ./cmd/soakd` compiles. It was
// 1,384 packages (858 of them go-elasticsearch's typed API) and a cold
// first run took 20 minutes on a 2-core machine; the Elasticsearch
// adapter on elastic-transport-go alone brought it to 522, and OTLP spans
// written on protowire instead of otlptracehttp (which pulls in gRPC) to
// 413 (docs/testing.md
// has the build times). Raise it only with a reason in the commit.
const depsCeiling = 430

// heavyDeps are package paths soakd must not import: each compiles
// hundreds of packages soakd never calls.
var heavyDeps = []string{
	"github.com/elastic/go-elasticsearch/v8/typedapi",
	"google.golang.org/grpc",
	"go.opentelemetry.io/otel/exporters",
	"go.mongodb.org/mongo-driver/x/mongo/driver/auth/internal/gssapi",
}

func TestDependencyCeiling(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) > depsCeiling {
		t.Errorf("cmd/soakd depends on %d packages, over the ceiling of %d: find the import that grew it (go list -deps ./cmd/soakd)", len(pkgs), depsCeiling)
	}
	for _, p := range pkgs {
		for _, h := range heavyDeps {
			if strings.HasPrefix(p, h) {
				t.Errorf("cmd/soakd imports %s", p)
			}
		}
	}
	t.Logf("%d packages", len(pkgs))
}
