package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServerLogRoundTrip: the logged figures of each sample come back
// grouped by sample, the others are not kept; a torn last line is
// dropped, a bad line before it is an error naming file and line.
func TestServerLogRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w := CreateServerLog(dir)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.Add(t0, map[string]float64{"cmd_get_calls_total": 10, "cmd_get_seconds_total": 2e-5, "cmd_get_p99_seconds": 1, "keys": 5, "rdb_bgsave_in_progress": 1})
	w.Add(t0.Add(time.Second), map[string]float64{"cmd_get_calls_total": 20, "cmd_get_seconds_total": 4e-5})
	w.Add(t0.Add(2*time.Second), nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var nilw *ServerLogWriter
	nilw.Add(t0, map[string]float64{"cmd_x_calls_total": 1})
	got, err := ReadServerLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].Stats) != 3 || got[0].Stats["cmd_get_calls_total"] != 10 || got[1].Stats["cmd_get_seconds_total"] != 4e-5 || !got[1].At.Equal(t0.Add(time.Second)) {
		t.Fatalf("%+v", got)
	}
	p := filepath.Join(dir, ServerLog)
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append(b, "2026-01-01T00:00:03.000Z,cmd_get_ca"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadServerLog(dir); err != nil || len(got) != 2 {
		t.Fatalf("torn last line: %v %d", err, len(got))
	}
	if err := os.WriteFile(p, append(b[:len(b):len(b)], "garbage\n2026-01-01T00:00:03.000Z,cmd_get_calls_total,30\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadServerLog(dir); err == nil || !strings.Contains(err.Error(), "server.csv:") {
		t.Fatalf("bad line: %v", err)
	}
	if got, err := ReadServerLog(t.TempDir()); got != nil || err != nil {
		t.Fatalf("no log: %v %v", got, err)
	}
}
