package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/soakd/soakd/internal/schedslice"
)

// soakd run --sched-slice D gives soakd's threads (here the test's) the
// slice, or says on stderr that the kernel keeps its own.
func TestRunSchedSlice(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "quick.yaml", quickScenario)
	t.Cleanup(func() { _, _ = schedslice.Apply(schedslice.Default) })
	a, out, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", filepath.Join(dir, "run"), "--listen", "", "--quiet", "--sched-slice", "300us"}); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
	got, err := schedslice.Slice(unix.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	if got != 300*time.Microsecond && !strings.Contains(errb.String(), "--sched-slice 300µs: "+schedslice.ErrUnsupported.Error()) {
		t.Fatalf("after --sched-slice 300us: this thread's slice %v, and stderr %q does not say the kernel keeps its own", got, errb)
	}
}

// A slice out of the kernel's bounds is refused with the flag named,
// before any run.
func TestSchedSliceRefused(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "quick.yaml", quickScenario)
	cfg := write(t, dir, "soakd.yaml", "listen: 127.0.0.1:0\ntoken_env: TOK\ndata_dir: "+filepath.Join(dir, "data")+"\n")
	wantRefused(t, []refusal{
		{[]string{"run", sc, "--sched-slice", "50us"}, "soakd run: --sched-slice 50µs: use 100µs to 100ms, or 0 to keep the kernel's"},
		{[]string{"run", sc, "--sched-slice", "1s"}, "soakd run: --sched-slice 1s: use 100µs to 100ms"},
		{[]string{"run", sc, "--sched-slice", "100"}, "--sched-slice"},
		{[]string{"serve", "--config", cfg, "--sched-slice", "-1ms"}, "soakd serve: --sched-slice -1ms: use 100µs to 100ms"},
	})
}
