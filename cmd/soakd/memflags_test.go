package main

import (
	"context"
	"path/filepath"
	"testing"
)

// An interval out of bounds is refused with the flag named, before any
// run; 0 and one in bounds run.
func TestReleaseMemoryEvery(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "quick.yaml", quickScenario)
	cfg := write(t, dir, "soakd.yaml", "listen: 127.0.0.1:0\ntoken_env: TOK\ndata_dir: "+filepath.Join(dir, "data")+"\n")
	wantRefused(t, []refusal{
		{[]string{"run", sc, "--release-memory-every", "10ms"}, "soakd run: --release-memory-every 10ms: use 1s to 24h0m0s, or 0 to never release"},
		{[]string{"run", sc, "--release-memory-every", "-1m"}, "soakd run: --release-memory-every -1m0s: use 1s to 24h0m0s"},
		{[]string{"run", sc, "--release-memory-every", "60"}, "--release-memory-every"},
		{[]string{"serve", "--config", cfg, "--release-memory-every", "25h"}, "soakd serve: --release-memory-every 25h0m0s: use 1s to 24h0m0s"},
	})
	for i, every := range []string{"0", "1s"} {
		a, out, errb := newApp()
		args := []string{"run", sc, "--out", filepath.Join(dir, "run"+every), "--listen", "", "--quiet", "--release-memory-every", every}
		if code := a.Main(context.Background(), args); code != 0 {
			t.Fatalf("%d: %v: exit %d\n%s\n%s", i, args, code, out, errb)
		}
	}
}
