package scenarios

import (
	"testing"
	"time"
)

// TestSLOWindow: slo.window decodes as a duration; under 1 s, or with
// no latency limit to judge, it is refused at its line.
func TestSLOWindow(t *testing.T) {
	const head = `name: t
phases:
  - kind: steady
    rate: 100
    duration: 1m
    mix: {read: 100}
slo:
`
	sc, err := Parse("w.yaml", []byte(head+"  latency: {read: {p99: 5ms}}\n  window: 5m\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.SLO.Window.D() != 5*time.Minute {
		t.Fatalf("window %v, want 5m", sc.SLO.Window)
	}
	for _, c := range []struct{ src, msg string }{
		{"  latency: {read: {p99: 5ms}}\n  window: 500ms\n", "must be at least 1s"},
		{"  max_error_ratio: 0.01\n  window: 5m\n", "slo.latency sets none"},
	} {
		ps := problemsOf(t, head+c.src)
		if !hasProblem(ps, 9, "slo.window", c.msg) {
			t.Errorf("%q: problems %v, want slo.window at line 9: %q", c.src, ps, c.msg)
		}
	}
	for _, c := range []struct{ src, msg string }{
		{"  latency: {read: {p99: 5ms}}\n  stop_after: 3\n", "set slo.window too"},
		{"  latency: {read: {p99: 5ms}}\n  stop_after: -1\n", "1 or more"},
	} {
		ps := problemsOf(t, head+c.src)
		if !hasProblem(ps, 9, "slo.stop_after", c.msg) {
			t.Errorf("%q: problems %v, want slo.stop_after at line 9: %q", c.src, ps, c.msg)
		}
	}
}
