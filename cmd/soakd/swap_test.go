package main

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/swapfile"
)

// swapRecorder stands in for fallocate/mkswap/swapon/swapoff: it records
// each command and makes or leaves the file as the real ones would.
type swapRecorder struct {
	mu   sync.Mutex
	cmds []string
}

func (s *swapRecorder) run(_ context.Context, name string, args ...string) ([]byte, error) {
	s.mu.Lock()
	s.cmds = append(s.cmds, name)
	s.mu.Unlock()
	return nil, nil
}

// allocate stands in for fallocate(2) and is recorded as "fallocate".
func (s *swapRecorder) allocate(*os.File, int64) error {
	s.mu.Lock()
	s.cmds = append(s.cmds, "fallocate")
	s.mu.Unlock()
	return nil
}

// plenty of free space for any swapfile the tests ask for.
func plenty(string) (int64, int64, error) { return 100 << 30, 200 << 30, nil }

func (s *swapRecorder) commands() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.cmds, ",")
}

// TestRunSwapCleanup: soakd run --swap turns the swapfile on before the
// run and off and removes it on every way out: a run that completes, a
// target that cannot be opened (exit 2), SIGINT mid-run (exit 1). Bad
// sizes and a user that may not swapon are refused with exit 2 before
// anything is made or run.
func TestRunSwapCleanup(t *testing.T) {
	dir := t.TempDir()
	ok := write(t, dir, "ok.yaml", "name: swap-ok\nkeyspace: {records: 100}\nphases: [{name: s, kind: steady, rate: 50, duration: 1s, mix: {get: 100}}]\n")
	long := write(t, dir, "long.yaml", "name: swap-long\nkeyspace: {records: 100}\nphases: [{name: s, kind: steady, rate: 50, duration: 30s, mix: {get: 100}}]\n")
	broken := write(t, dir, "broken.yaml", "name: swap-broken\ntarget: {kind: redis, managed: {command: "+filepath.Join(dir, "no-such-redis-server")+"}}\nkeyspace: {records: 100}\nphases: [{name: s, kind: steady, rate: 50, duration: 1s, mix: {get: 100}}]\n")
	// A store nobody listens on: found before any swapfile is made.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downAddr := ln.Addr().String()
	ln.Close()
	down := write(t, dir, "down.yaml", "name: swap-down\ntarget: {kind: redis, url: redis://"+downAddr+"}\nkeyspace: {records: 100}\nphases: [{name: s, kind: steady, rate: 50, duration: 1s, mix: {get: 100}}]\n")
	for _, tc := range []struct {
		name, file, size string
		euid             int
		cancelAfter      time.Duration
		wantCode         int
		wantCmds         string
		wantErr          string
	}{
		{name: "completes", file: ok, size: "64mb", wantCode: 0, wantCmds: "fallocate,mkswap,swapon,swapoff", wantErr: "off and removed"},
		{name: "target fails to open", file: broken, size: "64mb", wantCode: 2, wantCmds: "fallocate,mkswap,swapon,swapoff", wantErr: "off and removed"},
		{name: "SIGINT mid-run", file: long, size: "64mb", cancelAfter: 1500 * time.Millisecond, wantCode: 1, wantCmds: "fallocate,mkswap,swapon,swapoff", wantErr: "off and removed"},
		{name: "target down", file: down, size: "64mb", wantCode: 2, wantCmds: "", wantErr: "unreachable"},
		{name: "not root", file: ok, size: "64mb", euid: 1000, wantCode: 2, wantCmds: "", wantErr: "soakd run: --swap 64mb: turning on a swapfile needs root"},
		{name: "bad size", file: ok, size: "lots", wantCode: 2, wantCmds: "", wantErr: "soakd run: --swap lots: give a size such as 2gb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &swapRecorder{}
			swapDir := t.TempDir()
			a, _, errb := newApp()
			a.Swap = swapfile.Host{Dir: swapDir, Euid: func() int { return tc.euid }, Run: rec.run, Allocate: rec.allocate, Space: plenty}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancelAfter > 0 {
				time.AfterFunc(tc.cancelAfter, cancel)
			}
			out := filepath.Join(t.TempDir(), "run")
			code := a.Main(ctx, []string{"run", tc.file, "--swap", tc.size, "--out", out, "--listen", "", "--quiet"})
			if code != tc.wantCode || rec.commands() != tc.wantCmds || !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("exit %d, commands %q, want %d and %q with %q in stderr:\n%s", code, rec.commands(), tc.wantCode, tc.wantCmds, tc.wantErr, errb)
			}
			left, _ := os.ReadDir(swapDir)
			if len(left) != 0 {
				t.Errorf("left in the swap dir: %v", left)
			}
			if tc.wantCmds == "" {
				if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("refused --swap, yet the run went ahead (%s: %v)", out, err)
				}
			}
		})
	}
}
