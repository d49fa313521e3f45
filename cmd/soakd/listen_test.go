package main

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/soakd/soakd/metrics"
)

// A second run on a host whose default metrics port is taken moves to a
// free port and says where; an address the user gave fails loudly.
func TestMetricsPortTakenMovesOnlyTheDefault(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()

	a, _, errb := newApp()
	stop, err := a.serveMetrics(metrics.NewExporter("sc", "0", nil, nil), addr, false)
	if err != nil {
		t.Fatalf("default address taken: %v, want a free port", err)
	}
	stop()
	msg := errb.String()
	// Said even under --quiet: the address moved.
	if !strings.Contains(msg, addr+" is taken") || !strings.Contains(msg, "metrics on http://127.0.0.1:") || strings.Contains(msg, "http://"+addr+"/") {
		t.Errorf("stderr does not name the taken port and the new one:\n%s", msg)
	}

	a, _, _ = newApp()
	if _, err := a.serveMetrics(metrics.NewExporter("sc", "0", nil, nil), addr, true); err == nil || !strings.Contains(err.Error(), "--listen "+addr) {
		t.Fatalf("given --listen on a taken port: err %v, want a --listen error", err)
	}
}

// `--concurrency 0`, `--repeat 0` and `--checkpoint-every 0` are refused by flag name, before
// anything runs, as the scenario file refuses 0 (--repeat by the run
// overrides' own rule, 1..100).
func TestZeroCountFlagsRefused(t *testing.T) {
	sc := write(t, t.TempDir(), "s.yaml", "phases: [{kind: steady, rate: 10, duration: 1s, mix: {get: 100}}]\n")
	for fl, want := range map[string]string{"--concurrency": "--concurrency 0: give at least 1", "--repeat": "--repeat 0: use a whole number in 1..100",
		"--checkpoint-every": "--checkpoint-every 0s: use 1s to 10s"} {
		a, _, errb := newApp()
		if code := a.Main(context.Background(), []string{"run", sc, fl, "0", "--listen", ""}); code != exitRefused {
			t.Errorf("%s 0: exit %d, want %d", fl, code, exitRefused)
		}
		if !strings.Contains(errb.String(), want) {
			t.Errorf("%s 0: stderr %q lacks %q", fl, errb, want)
		}
	}
}
