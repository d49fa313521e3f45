package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// slowLoad is a shard's view of a shared store whose inserts are slow,
// so this shard finishes its slice of the load well after the others.
type slowLoad struct {
	targets.Target
	delay time.Duration
}

func (s *slowLoad) Do(ctx context.Context, r *targets.Request) error {
	if r.Op == scenarios.OpInsert {
		time.Sleep(s.delay)
	}
	return s.Target.Do(ctx, r)
}

func (s *slowLoad) Arrive(ctx context.Context, key string) (int, error) {
	return s.Target.(targets.Barrier).Arrive(ctx, key)
}

func (s *slowLoad) Arrived(ctx context.Context, key string) (int, error) {
	return s.Target.(targets.Barrier).Arrived(ctx, key)
}

const barrierScenario = `
name: barrier
target: {kind: embedded}
record: {fields: 1, field_bytes: 8}
keyspace: {records: 600, distribution: uniform}
phases:
  - {name: load, kind: load, concurrency: 2}
  - {name: steady, kind: steady, rate: 400, duration: 1s, concurrency: 2, mix: {read: 100}}
`

// runShards runs two shards of barrierScenario in this process against
// one embedded store; shard 1 loads slowly.
func runShards(t *testing.T, runID string, progress io.Writer) []*rundir.Summary {
	t.Helper()
	sc := scenario(t, barrierScenario)
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sums := make([]*rundir.Summary, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range sums {
		var stg targets.Target = &slowLoad{Target: tg}
		if i == 1 {
			// 300 inserts at 10 ms over 2 workers: 1.5 s, longer than the
			// fast shard's whole 1 s steady phase, however busy the host.
			stg = &slowLoad{Target: tg, delay: 10 * time.Millisecond}
		}
		o := Options{Scenario: sc, Target: stg, TargetKind: "embedded", OutDir: t.TempDir(),
			Shard: rundir.Shard{Index: i, Count: 2}, RunID: runID, BarrierTimeout: 20 * time.Second}
		if progress != nil && i == 0 {
			o.Progress = progress
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[i], errs[i] = Run(context.Background(), o)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	return sums
}

// syncBuffer collects progress output written by the shards' goroutines.
type syncBuffer = testutil.SyncBuffer

// TestBarrierHoldsShardsUntilAllLoaded: without a run id the fast shard
// reads records the slow one has not loaded yet; with one, it waits at
// the barrier after the load, outside the steady phase's timing.
func TestBarrierHoldsShardsUntilAllLoaded(t *testing.T) {
	sums := runShards(t, "", nil)
	if nf := sums[0].Phases[1].Ops["read"].Errors[targets.ClassNotFound]; nf == 0 {
		t.Fatal("without a barrier the fast shard read no missing record: the test cannot tell a barrier from none")
	}

	var progress syncBuffer
	sums = runShards(t, fmt.Sprintf("t%d", time.Now().UnixNano()), &progress)
	for i, s := range sums {
		st := s.Phases[1]
		if st.Errors != 0 || st.Completed == 0 {
			t.Fatalf("shard %d steady: %d errors of %d: %+v", i, st.Errors, st.Completed, st.Ops)
		}
		// The wait is not in the steady phase: it starts after the slow
		// shard's load ended (its length is the host's: not asserted).
		if st.Start.Before(sums[1].Phases[0].End) {
			t.Fatalf("shard %d started steady at %s, before shard 1 finished loading at %s", i, st.Start, sums[1].Phases[0].End)
		}
		if s.Status != rundir.StatusCompleted {
			t.Fatalf("shard %d status %s", i, s.Status)
		}
	}
	if out := progress.String(); !strings.Contains(out, "[barrier after load] 1/2 shards") {
		t.Fatalf("no barrier progress line:\n%s", out)
	}
	// On a terminal the wait is shown in place and cleared when it ends.
	live := &liveBuffer{}
	runShards(t, fmt.Sprintf("t%d", time.Now().UnixNano()), live)
	if !slices.Contains(live.seen, "[barrier after load] 1/2 shards") {
		t.Errorf("no barrier line shown in place: %q", live.seen)
	}
	if strings.Contains(live.out.String(), "[barrier") {
		t.Errorf("barrier line written for good on a terminal:\n%s", live.out.String())
	}
}

// TestBarrierTimeoutEndsRun: a shard alone at a barrier gives up after
// the timeout with an error naming it, the barrier and the arrivals, and
// still writes its (interrupted) run directory; a cancelled ctx ends the
// wait at once and marks the run interrupted without an error.
func TestBarrierTimeoutEndsRun(t *testing.T) {
	sc := scenario(t, barrierScenario)
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	dir := t.TempDir()
	o := Options{Scenario: sc, Target: tg, TargetKind: "embedded", OutDir: dir,
		Shard: rundir.Shard{Index: 1, Count: 3}, RunID: "timeout", BarrierTimeout: 300 * time.Millisecond}
	sum, err := runWritten(context.Background(), o)
	if err == nil || !errors.Is(err, targets.ErrBarrierTimeout) {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{"shard 1/3", "barrier before load", "soakd:barrier:timeout:barrier:0", "1 of 3 shards arrived"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q lacks %q", err, want)
		}
	}
	if sum == nil || sum.Status != rundir.StatusInterrupted || len(sum.Phases) != 0 {
		t.Fatalf("summary %+v", sum)
	}
	if _, err := rundir.ReadSummary(dir); err != nil {
		t.Fatalf("run directory: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	o.OutDir, o.RunID, o.BarrierTimeout = t.TempDir(), "cancel", time.Minute
	t0 := time.Now()
	sum, err = runWritten(ctx, o)
	if err != nil || sum.Status != rundir.StatusInterrupted || time.Since(t0) > 5*time.Second {
		t.Fatalf("cancelled at a barrier: %v, %+v after %s", err, sum, time.Since(t0))
	}
}
