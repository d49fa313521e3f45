package engine

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/selfhealth"
	"github.com/soakd/soakd/rundir"
)

// fakeSelf is a selfSource that returns one sample each time.
type fakeSelf struct {
	mu     sync.Mutex
	s      selfhealth.Sample
	n      int
	closed bool
}

func (f *fakeSelf) Sample(time.Time) (selfhealth.Sample, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	return f.s, true
}

func (f *fakeSelf) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
}

// busySelf is a soakd that waits for a CPU half of every second (and
// uses more CPU than any host has): generator-bound by the rule whatever
// the test host's cores.
var busySelf = selfhealth.Sample{CPU: 1e4, RunqueueDelay: 0.5, Load1: 0.1}

func TestSelfHealthRecordedPerPhase(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: quiet, kind: steady, rate: 100, duration: 3s, mix: {get: 100}}
`)
	src := &fakeSelf{s: selfhealth.Sample{CPU: 0.2, ThreadCPUMax: 0.1, RunqueueDelay: 0.01, Load1: 0.5}}
	out := t.TempDir()
	sum := runInBubble(t, sc, &recordingTarget{service: time.Millisecond}, Options{selfSource: src, OutDir: out})
	h := sum.Phases[0].Self
	if h == nil || h.Intervals < 3 || h.CPUMax != 0.2 || h.LoadMax != 0.5 || h.Bound != "" || h.LagP99 != sum.Phases[0].Lag.P99 {
		t.Fatalf("self %+v", h)
	}
	if !src.closed {
		t.Error("the source was not closed at the run's end")
	}
	// self.csv has a line per sample the source gave.
	log, err := os.ReadFile(filepath.Join(out, rundir.SelfLog))
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	if err != nil || lines[0]+"\n" != rundir.SelfLogHeader || len(lines)-1 != src.n || !strings.HasSuffix(lines[1], ",0.2000,0.1000,0.0100,0.5000,0.0000,0") {
		t.Errorf("self.csv (%v), %d samples:\n%s", err, src.n, log)
	}
	// Without a source (and no root) there is no record.
	sum = runInBubble(t, sc, &recordingTarget{service: time.Millisecond}, Options{})
	if sum.Phases[0].Self != nil {
		t.Errorf("self recorded without a source: %+v", sum.Phases[0].Self)
	}
}

func TestCapacityLimitIsSoakdsWhenGeneratorBound(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - name: cap
    kind: capacity
    concurrency: 2
    mix: {get: 100}
    capacity: {start: 50, factor: 4, max: 800, step_duration: 500ms, precision: 0.3}
slo:
  latency: {"*": {p99: 500ms}}
`)
	sum := runInBubble(t, sc, &recordingTarget{service: 10 * time.Millisecond}, Options{selfSource: &fakeSelf{s: busySelf}})
	p := sum.Phases[0]
	c := p.Capacity
	if c == nil || c.HighestRateHeld != 200 {
		t.Fatalf("capacity %+v: want 200 ops/s", c)
	}
	if p.Self == nil || p.Self.Bound != rundir.BoundGenerator {
		t.Fatalf("phase self %+v", p.Self)
	}
	for i, st := range p.Stages {
		if st.Self == nil || st.Self.Bound != rundir.BoundGenerator || c.Curve[i].Bound != rundir.BoundGenerator {
			t.Errorf("probe %d: stage self %+v, point bound %q", i, st.Self, c.Curve[i].Bound)
		}
	}
	if c.Bound != rundir.BoundGenerator || !strings.Contains(c.Note, "the limit found is soakd's, not the store's") {
		t.Errorf("capacity bound %q note %q", c.Bound, c.Note)
	}
}
