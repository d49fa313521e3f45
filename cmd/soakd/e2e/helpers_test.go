// Package e2e holds soakd's slow end-to-end tests: the built binary
// against real redis-server, Prometheus, Alertmanager and Chromium, the
// README's commands, signals. A package of its own so `go test ./...`
// runs it beside cmd/soakd's quicker tests rather than after them, and
// `make test-short` (-short) leaves it out.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	redistarget "github.com/soakd/soakd/targets/redis"
)

// soakd's exit codes (cmd/soakd/app.go).
const (
	exitOK     = 0
	exitFailed = 1
)

// binary is the soakd binary the package's tests share, built once.
var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("e2e: every test here is slow: left out under -short")
		os.Exit(0)
	}
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// buildSoakd is the path of a soakd binary built from ../ (once for
// the package's tests).
func buildSoakd(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "soakd-e2e-")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "soakd")
		if out, err := exec.Command("go", "build", "-o", binary.path, "..").CombinedOutput(); err != nil {
			binary.err = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// runSoakd runs the built binary with args and returns its exit code
// and output.
func runSoakd(t *testing.T, args ...string) (int, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(context.Background(), buildSoakd(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), &out, &errb
	case err != nil:
		t.Fatal(err)
	}
	return 0, &out, &errb
}

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	return testutil.WriteFile(t, dir, name, body)
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	return testutil.HTTPGet(t, url)
}

func startTestRedis(t *testing.T) *redistarget.Server {
	t.Helper()
	testutil.NeedTool(t, "redis-server")
	s, err := redistarget.StartServer(context.Background(), redistarget.ServerConfig{Persistence: "none"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}
