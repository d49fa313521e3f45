package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/verdict"
)

// errStoreFull is growingStore's refusal of a write, classified oom.
var errStoreFull = errors.New("OOM command not allowed when used memory > 'maxmemory'")

// growingStore is a store with fixed service times that changes at a
// chosen dataset size: once it holds full records, every op takes slow
// instead of fast (slow 0: no change), and with refuse every set is
// refused for memory (class oom) instead of stored. Its records are the
// distinct keys set, so the change comes at an exact stage of a growth
// phase whatever the order the workers' inserts arrive in.
type growingStore struct {
	fast, slow time.Duration
	full       int
	refuse     bool

	mu   sync.Mutex
	keys map[int64]bool
}

func (s *growingStore) Do(ctx context.Context, r *targets.Request) error {
	s.mu.Lock()
	if s.keys == nil {
		s.keys = map[int64]bool{}
	}
	full := len(s.keys) >= s.full
	var err error
	if r.Op == scenarios.OpSet {
		if full && s.refuse {
			err = errStoreFull
		} else {
			s.keys[r.KeyNum] = true
		}
	}
	s.mu.Unlock()
	d := s.fast
	if full && s.slow > 0 {
		d = s.slow
	}
	time.Sleep(d)
	return err
}

func (s *growingStore) Classify(err error) string {
	if errors.Is(err, errStoreFull) {
		return targets.ClassOOM
	}
	return ""
}

func (s *growingStore) Close() error { return nil }

// growthPerOp is a growth phase measuring get and set each alone,
// closed loop (measure: per_op, as the growth study does), with four
// workers, 200 ms a slice.
func growthPerOp(t *testing.T, batch int) *scenarios.Scenario {
	return scenario(t, fmt.Sprintf(`
name: growth-throughput
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 100}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {get: 80, set: 20}
    growth: {batch: %d, measure: per_op, measure_for: 400ms, after_cliff: 1, max_stages: 10}
`, batch))
}

// TestGrowthCliffThroughputStep: the store's service time steps from
// 1 ms to 4 ms once it holds 4000 records, so each op alone falls from
// 4000 to 1000 ops/s (four workers, closed loop) at stage 4 (batches of
// 1000, measured after the stage's batch). The throughput rule must
// find the cliff at that stage and no earlier, for both ops, with the
// figures the stages held; after_cliff 1 runs exactly one stage more.
// The store's times are the bubble's, so the figures are the store's
// alone, not the host's.
func TestGrowthCliffThroughputStep(t *testing.T) {
	t.Parallel()
	tg := &growingStore{fast: time.Millisecond, slow: 4 * time.Millisecond, full: 4000}
	sum := runInBubble(t, growthPerOp(t, 1000), tg, Options{})
	txt := report.Text(sum)
	p := sum.Phases[0]
	if len(p.Stages) != 5 {
		t.Fatalf("%d stages, want 5 (the cliff at stage 4, after_cliff 1):\n%s", len(p.Stages), txt)
	}
	for i, st := range p.Stages {
		want := 4000.0
		if i >= 3 {
			want = 1000
		}
		for _, op := range []string{"get", "set"} {
			r := st.PerOp[op]
			if r == nil || r.Errors != 0 || !near(r.Goodput(), want, 0.02) {
				t.Fatalf("stage %d %s alone: %+v, want %.0f ok ops/s:\n%s", i+1, op, r, want, txt)
			}
		}
	}
	c := p.Cliff
	if c == nil || c.StageIndex != 3 || c.Reason != rundir.CliffThroughput || c.Op != "get" || c.Unconfirmed {
		t.Fatalf("cliff %+v, want get's throughput at stage 4:\n%s", c, txt)
	}
	if len(c.Evidence) != 2 {
		t.Fatalf("evidence %+v, want get's and set's throughput only", c.Evidence)
	}
	for i, op := range []string{"get", "set"} {
		e := c.Evidence[i]
		if e.Reason != rundir.CliffThroughput || e.Op != op || len(e.Earlier) != 3 || e.Next == nil ||
			!near(e.Value, 1000, 0.02) || !near(e.Baseline, 4000, 0.02) || !near(*e.Next, 1000, 0.02) ||
			e.Value > e.Threshold || e.Threshold > e.Baseline/2 {
			t.Errorf("evidence %d: %+v", i, e)
		}
		if want := fmt.Sprintf("%s alone %.0f ok ops/s vs median %.0f of 3 earlier stages", op, e.Value, e.Baseline); !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
}

// TestGrowthCliffThroughputRefused: from 5000 records the store refuses
// every set for memory, as fast as it served them (noeviction at a
// maxmemory). Stage 4's batch (records 4500-5999) stores 500; its set
// slice then refuses all, so set's successful ops/s falls to 0 while
// its achieved rate holds and get's does not move. The phase's cliff is
// the oom at stage 4, with set's throughput fall kept next to it; the
// throughput rule alone (only the set slices' results, no error or oom
// figures to see) finds the same stage.
func TestGrowthCliffThroughputRefused(t *testing.T) {
	t.Parallel()
	tg := &growingStore{fast: time.Millisecond, full: 5000, refuse: true}
	sum := runInBubble(t, growthPerOp(t, 1500), tg, Options{})
	txt := report.Text(sum)
	p := sum.Phases[0]
	if len(p.Stages) != 5 {
		t.Fatalf("%d stages, want 5 (the cliff at stage 4, after_cliff 1):\n%s", len(p.Stages), txt)
	}
	for i, st := range p.Stages {
		wantRec := min(1500*int64(i+1), 5000)
		if st.Records != wantRec {
			t.Errorf("stage %d: %d records, want %d (refused sets are no records)", i+1, st.Records, wantRec)
		}
		get, set := st.PerOp["get"], st.PerOp["set"]
		if get == nil || set == nil || get.Errors != 0 || !near(get.Goodput(), 4000, 0.02) || !near(set.AchievedRate, 4000, 0.02) {
			t.Fatalf("stage %d: get %+v set %+v, want both served at 4000 ops/s:\n%s", i+1, get, set, txt)
		}
		refused := i >= 3
		if (set.Errors == set.Completed) != refused || (set.Errors == 0) == refused || set.Goodput() != map[bool]float64{true: 0, false: set.AchievedRate}[refused] {
			t.Errorf("stage %d set alone: %d of %d refused, goodput %.0f", i+1, set.Errors, set.Completed, set.Goodput())
		}
		if n := verdict.OOMErrors(&st); (n > 0) != refused {
			t.Errorf("stage %d: %d oom errors", i+1, n)
		}
	}
	c := p.Cliff
	if c == nil || c.StageIndex != 3 || c.Reason != rundir.CliffOOM {
		t.Fatalf("cliff %+v, want oom at stage 4:\n%s", c, txt)
	}
	var thr *rundir.CliffEvidence
	for i, e := range c.Evidence {
		if e.Reason == rundir.CliffThroughput {
			if thr != nil || e.Op != "set" {
				t.Errorf("throughput evidence %+v: want set's only", e)
			}
			thr = &c.Evidence[i]
		}
	}
	if thr == nil || thr.Value != 0 || !near(thr.Baseline, 4000, 0.02) || len(thr.Earlier) != 3 || thr.Next == nil || *thr.Next != 0 {
		t.Fatalf("cliff evidence %+v lacks set's throughput fall to 0", c.Evidence)
	}
	if !strings.Contains(strings.Join(c.Signals, "|"), "oom_errors") {
		t.Errorf("signals %q lack oom_errors", c.Signals)
	}
	if want := fmt.Sprintf("set alone 0 ok ops/s vs median %.0f", thr.Baseline); !strings.Contains(txt, want) {
		t.Errorf("text lacks %q:\n%s", want, txt)
	}
	// Throughput alone: stages holding only the set slices' own results.
	stages := make([]rundir.StageResult, len(p.Stages))
	for i, st := range p.Stages {
		set := *st.PerOp["set"]
		set.Ops = nil
		stages[i] = rundir.StageResult{Name: st.Name, Records: st.Records, PerOp: map[string]*rundir.Result{"set": &set}}
	}
	if tc := verdict.DetectCliff(stages, 0); tc == nil || tc.StageIndex != 3 || tc.Reason != rundir.CliffThroughput || tc.Op != "set" {
		t.Fatalf("throughput alone: cliff %+v, want set at stage 4", tc)
	}
}

// near reports whether v is within frac of want.
func near(v, want, frac float64) bool {
	return v >= want*(1-frac) && v <= want*(1+frac)
}
