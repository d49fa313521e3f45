package engine

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

// setupProbe is the host's clock that notes, at every reading, how many
// goroutines the process has: the reading that became a segment's
// origin t0 shows whether the segment's workers and collector were
// already made then.
type setupProbe struct {
	wallTime
	mu    sync.Mutex
	calls []probeCall
}

type probeCall struct {
	at         time.Time
	goroutines int
}

func (p *setupProbe) now() time.Time {
	t := time.Now()
	n := runtime.NumGoroutine()
	p.mu.Lock()
	p.calls = append(p.calls, probeCall{t, n})
	p.mu.Unlock()
	return t
}

// TestSegmentSetupBeforeOrigin: each stage's origin t0 (its Start) is
// read after its 64 workers and its collector were started, so their
// setup is not part of the first ops' lag. Before, t0 was read first,
// and on one core the setup (~2-3 ms with a collection) made the first
// ~100-200 ops of a stage late at 50,000 ops/s.
func TestSegmentSetupBeforeOrigin(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: ramp, kind: ramp, concurrency: 64, steps: [{rate: 200, duration: 100ms}, {rate: 400, duration: 100ms}], mix: {read: 100}}
`)
	probe := &setupProbe{}
	sum, err := runWritten(context.Background(), Options{Scenario: sc, Target: &recordingTarget{}, TargetKind: "fake", OutDir: t.TempDir(), time: probe})
	if err != nil {
		t.Fatal(err)
	}
	probe.mu.Lock()
	calls := probe.calls
	probe.mu.Unlock()
	if len(calls) == 0 {
		t.Fatal("the run never read its clock")
	}
	base := calls[0].goroutines // the run's start: no segment yet
	stages := sum.Phases[0].Stages
	if len(stages) != 2 {
		t.Fatalf("%d stages, want 2", len(stages))
	}
	for _, st := range stages {
		found := -1
		for i, c := range calls {
			if c.at.Equal(st.Start) {
				found = i
			}
		}
		if found < 0 {
			t.Fatalf("stage %s: its start %v is no reading of the clock", st.Name, st.Start)
		}
		got := calls[found].goroutines - base
		t.Logf("stage %s: %d goroutines more than at the run's start when t0 was read", st.Name, got)
		if got < 64 {
			t.Errorf("stage %s: %d goroutines more than at the run's start at t0, want at least 64 (the workers, made and started before t0)", st.Name, got)
		}
	}
}
