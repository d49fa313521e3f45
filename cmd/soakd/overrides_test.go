package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

const longScenario = `
name: long
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 8}
phases:
  - {name: load, kind: load, concurrency: 16}
  - {name: steady, kind: steady, rate: 2000, duration: 10m, warmup: 1m, concurrency: 32, mix: {read: 100}}
slo: {max_dropped_ratio: 1, min_achieved_ratio: 0.01}
`

// TestRunOverridesForAQuickTry: a shipped-style scenario (10 minutes,
// 1 minute of warmup, 100k records) tried in a second from the command
// line: --records, --concurrency, --rate, --duration (the warmup shrinks
// to a fifth, said on stderr) and --warmup.
func TestRunOverridesForAQuickTry(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "long.yaml", longScenario)
	run := func(args ...string) (*rundir.Summary, string) {
		t.Helper()
		out := filepath.Join(dir, "run"+strings.Join(args, "_"))
		a, _, errb := newApp()
		argv := append([]string{"run", sc, "--out", out, "--listen", "", "--quiet", "--records", "500", "--concurrency", "3", "--rate", "200", "--duration", "1s", "--seed", "7"}, args...)
		if code := a.Main(context.Background(), argv); code != 0 {
			t.Fatalf("soakd %s: exit %d\n%s", strings.Join(argv, " "), code, errb)
		}
		s, err := rundir.ReadSummary(out)
		if err != nil {
			t.Fatal(err)
		}
		return s, errb.String()
	}
	s, stderr := run()
	if got := s.Phases[0].Ops["insert"].Count; got != 500 {
		t.Errorf("load inserted %d records, want --records 500", got)
	}
	// 1 s at 200 ops/s with the warmup cut to 200 ms: 160 measured ops.
	if st := s.Phases[1]; st.Scheduled != 160 || st.DurationSeconds != 0.8 {
		t.Errorf("steady: %d scheduled over %.2fs, want 160 over 0.8s", st.Scheduled, st.DurationSeconds)
	}
	if !strings.Contains(stderr, "warmup 1m is not shorter than --duration 1s; using warmup 200ms") {
		t.Errorf("stderr does not explain the warmup:\n%s", stderr)
	}
	s, _ = run("--warmup", "0s")
	if st := s.Phases[1]; st.Scheduled != 200 || st.DurationSeconds != 1 {
		t.Errorf("--warmup 0s: %d scheduled over %.2fs, want 200 over 1s", st.Scheduled, st.DurationSeconds)
	}
	for _, bad := range [][]string{{"--records", "x"}, {"--records", "0"}, {"--concurrency", "-1"}, {"--warmup", "soon"}, {"--seed", "1.5"}} {
		a, _, errb := newApp()
		argv := append([]string{"run", sc, "--listen", ""}, bad...)
		if code := a.Main(context.Background(), argv); code != 2 || !strings.Contains(errb.String(), bad[0]) {
			t.Errorf("%v: exit %d, stderr %q: want 2 naming the flag", bad, code, errb)
		}
	}
}
