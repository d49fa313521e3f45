package engine

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// recorded is one request a recordingTarget saw.
type recorded struct {
	Op    scenarios.Op
	Key   string
	Query string
	At    time.Time
	Batch int // size of the DoBatch it came in; 0 = Do
}

// recordingTarget is a store with a fixed service time that records what
// the engine sends it. With batch > 1 it is a Batcher that batches
// inserts only; its DoBatch stamps each op's own End, spread over the
// batch as a store answering one op after another would.
type recordingTarget struct {
	service time.Duration
	batch   int

	mu   sync.Mutex
	reqs []recorded
	// stamped and whole add up, over batched ops, the service time from
	// DoBatch's entry to each op's own End and to the batch's end.
	stamped, whole time.Duration
	batches        int
}

func (t *recordingTarget) note(r *targets.Request, batch int) {
	t.mu.Lock()
	t.reqs = append(t.reqs, recorded{Op: r.Op, Key: string(r.Key), Query: r.Query, At: time.Now(), Batch: batch})
	t.mu.Unlock()
}

func (t *recordingTarget) Do(ctx context.Context, r *targets.Request) error {
	t.note(r, 0)
	if t.service > 0 {
		time.Sleep(t.service)
	}
	return nil
}

func (t *recordingTarget) Close() error { return nil }

func (t *recordingTarget) seen() []recorded {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]recorded(nil), t.reqs...)
}

type batchingTarget struct{ *recordingTarget }

func (t batchingTarget) MaxBatch() int                  { return t.batch }
func (t batchingTarget) Batchable(op scenarios.Op) bool { return op == scenarios.OpInsert }

func (t batchingTarget) DoBatch(ctx context.Context, reqs []*targets.Request, errs []error) {
	entry := time.Now()
	for _, r := range reqs {
		t.note(r, len(reqs))
	}
	time.Sleep(time.Millisecond)
	end := time.Now()
	n := time.Duration(len(reqs))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.batches++
	for i, r := range reqs {
		r.End = entry.Add(end.Sub(entry) * time.Duration(i+1) / n)
		t.stamped += r.End.Sub(entry)
		t.whole += end.Sub(entry)
		errs[i] = nil
	}
}

func runWith(t *testing.T, sc *scenarios.Scenario, tg targets.Target, o Options) *rundir.Summary {
	t.Helper()
	o.Scenario, o.Target, o.TargetKind = sc, tg, "fake"
	if o.OutDir == "" {
		o.OutDir = t.TempDir()
	}
	sum, err := runWritten(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestWarmupCountsByIntendedStart: an op belongs to the measured window
// by its intended start. rate 200 for 3 s with warmup 1 s measures
// exactly the 400 ops intended in [1 s, 3 s), at 200 ops/s. In a
// synctest bubble, with a 20 ms store: the 3 measured ops intended in
// the window's last 20 ms complete in the drain (15 ms after it), and
// the 3 warmup ops completing after the warmup's end make up for them
// in completed_in_window.
func TestWarmupCountsByIntendedStart(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 3s, warmup: 1s, concurrency: 4, mix: {read: 100}}
`)
	tg := &recordingTarget{service: 20 * time.Millisecond}
	sum := runInBubble(t, sc, tg, Options{Interval: 250 * time.Millisecond})
	p := sum.Phases[0]
	if p.Scheduled != 400 || p.Completed != 400 || p.Dropped != 0 {
		t.Errorf("scheduled %d, completed %d + dropped %d: want the 400 ops intended after the warmup", p.Scheduled, p.Completed, p.Dropped)
	}
	if p.DurationSeconds != 2 {
		t.Errorf("measured window %.3fs, want 2s (3s less the 1s warmup)", p.DurationSeconds)
	}
	if late := p.Ops["read"].Late; late != 3 || p.CompletedInWindow != 400 || p.DrainSeconds != 0.015 {
		t.Errorf("late %d, completed in the window %d, drain %.3fs: want 3, 400 (397 measured, 3 warmup) and 15ms", late, p.CompletedInWindow, p.DrainSeconds)
	}
	if p.AchievedRate != 200 {
		t.Errorf("achieved %.3f ops/s, want 200 (397 measured and 3 warmup ops completed in the 2 s window)", p.AchievedRate)
	}
	if n := len(tg.seen()); n != 600 {
		t.Errorf("the store saw %d ops, want all 600 scheduled (warmup included)", n)
	}
}

// TestAchievedCountsByCompletionTime: the achieved rate counts the ops
// that completed inside the window, whatever their intended start. A
// store with a 200 ms service time and enough workers holds 200 ops/s:
// the 39 measured ops intended after 2.8 s are still in flight when the
// window ends, and the 39 warmup ops intended after 0.8 s finish inside
// it, so the rate comes out at 200, not 180.
func TestAchievedCountsByCompletionTime(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 3s, warmup: 1s, concurrency: 100, max_lag: 1h, mix: {read: 100}}
`)
	sum := runInBubble(t, sc, &recordingTarget{service: 200 * time.Millisecond}, Options{})
	p := sum.Phases[0]
	if p.Scheduled != 400 || p.Completed != 400 || p.Ops["read"].Late != 39 || p.CompletedInWindow != 400 {
		t.Fatalf("scheduled %d completed %d late %d in window %d: want 400, 400, 39 late and 400 (361 measured, 39 warmup)", p.Scheduled, p.Completed, p.Ops["read"].Late, p.CompletedInWindow)
	}
	if p.AchievedRate != 200 {
		t.Errorf("achieved %.3f ops/s: the warmup's tail is not counted", p.AchievedRate)
	}
	if p.DrainSeconds != 0.195 {
		t.Errorf("drain %.3fs, want 195ms (the last op, intended at 2.995s)", p.DrainSeconds)
	}
}

// TestAchievedIsCompletedInWindow: ops that finish after the window do
// not count toward the achieved rate. One worker at 20 ms per op
// completes 50 of the 100 ops a 1 s window at 100 ops/s calls for; the
// other 50 complete in the drain, which lasts exactly 1 s more, and the
// achieved ratio SLO fails.
func TestAchievedIsCompletedInWindow(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 1s, concurrency: 1, max_lag: 1h, mix: {read: 100}}
slo: {min_achieved_ratio: 0.9}
`)
	sum := runInBubble(t, sc, &recordingTarget{service: 20 * time.Millisecond}, Options{})
	p := sum.Phases[0]
	if p.Scheduled != 100 || p.Completed != 100 {
		t.Fatalf("scheduled %d completed %d, want 100 and 100", p.Scheduled, p.Completed)
	}
	if p.CompletedInWindow != 50 || p.AchievedRate != 50 {
		t.Errorf("completed in window %d, achieved %.1f ops/s: a 20 ms store with one worker completes 50 in 1 s",
			p.CompletedInWindow, p.AchievedRate)
	}
	if late := p.Ops["read"].Late; late != 50 {
		t.Errorf("read late %d, want 50", late)
	}
	if p.DrainSeconds != 1 {
		t.Errorf("drain %.3fs, want 1s (the last op ends at 2s)", p.DrainSeconds)
	}
	// Op k waits for the k before it: op 99, intended at 990 ms, ends
	// at 2 s.
	if max := p.Ops["read"].Latency.Max; max < 1.009 || max > 1.011 {
		t.Errorf("max latency %.4fs, want 1.01s", max)
	}
	if sum.SLO.Passed {
		t.Errorf("SLO passed at %.1f of 100 ops/s completed in the window", p.AchievedRate)
	}
	var ratio *rundir.Check
	for i, c := range sum.SLO.Checks {
		if c.What == "achieved_ratio" {
			ratio = &sum.SLO.Checks[i]
		}
	}
	if ratio == nil || ratio.Passed || ratio.Actual != 0.5 {
		t.Errorf("achieved_ratio check %+v", ratio)
	}
}

// TestBatchesHoldOnlyBatchableOps: the dispatcher hands the target's
// DoBatch only the ops it says it batches (inserts here); reads go one
// by one and never wait behind a batch. Each batched op is recorded at
// its own End, not the batch's.
func TestBatchesHoldOnlyBatchableOps(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 20000, duration: 300ms, concurrency: 4, max_lag: 1h, mix: {insert: 50, read: 50}}
`)
	tg := batchingTarget{&recordingTarget{batch: 16}}
	sum := runInBubble(t, sc, tg, Options{})
	multi := 0
	for _, r := range tg.seen() {
		if r.Batch > 0 && r.Op != scenarios.OpInsert {
			t.Fatalf("a %s went to DoBatch in a batch of %d", r.Op, r.Batch)
		}
		if r.Batch > 1 {
			multi++
		}
	}
	if multi == 0 {
		t.Fatal("no batch of more than one insert was sent at 10k inserts/s")
	}
	ins := sum.Phases[0].Ops["insert"]
	// The engine's service time of a batched op is its own End less the
	// send: summed over the inserts it must match the stamps, not the
	// batches' ends.
	tg.mu.Lock()
	stamped, whole := tg.stamped, tg.whole
	tg.mu.Unlock()
	engineSum := time.Duration(ins.Service.Mean * float64(ins.Count) * 1e9)
	gap := whole - stamped
	if gap <= 0 {
		t.Fatalf("stamped %s whole %s: no spread to tell them apart", stamped, whole)
	}
	if d := engineSum - stamped; math.Abs(float64(d)) > float64(gap)/4 {
		t.Errorf("insert service summed %s; per-op stamps sum %s, batch ends %s: the engine ignores Request.End",
			engineSum, stamped, whole)
	}
}

// TestShardsDrawTheirOwnStreams: shards 0/2 and 1/2 of one run choose
// different keys (each shard, phase and worker has its own stream), and
// shard 1's schedule starts half an op interval after shard 0's, so
// together they interleave.
func TestShardsDrawTheirOwnStreams(t *testing.T) {
	t.Parallel()
	src := `
keyspace: {records: 1000000}
phases:
  - {name: steady, kind: steady, rate: 10, duration: 1s, concurrency: 1, mix: {read: 100}}
`
	var keys [2][]string
	var first [2]time.Duration
	for i := 0; i < 2; i++ {
		sc := scenario(t, src)
		tg := &recordingTarget{}
		sum := runInBubble(t, sc, tg, Options{Shard: rundir.Shard{Index: i, Count: 2}})
		seen := tg.seen()
		if len(seen) != 5 {
			t.Fatalf("shard %d/2 sent %d ops, want 5 (rate 10 split in two, 1 s)", i, len(seen))
		}
		for _, r := range seen {
			keys[i] = append(keys[i], r.Key)
		}
		first[i] = seen[0].At.Sub(sum.Phases[0].Start)
	}
	same := 0
	for j := range keys[0] {
		if keys[0][j] == keys[1][j] {
			same++
		}
	}
	if same > 1 {
		t.Errorf("shards 0/2 and 1/2 read the same keys: %v and %v", keys[0], keys[1])
	}
	// Shard 1 of 2 at 10 ops/s in all starts at 1/10 s (in a synctest
	// bubble, exactly).
	if first[0] != 0 || first[1] != 100*time.Millisecond {
		t.Errorf("shards' first ops %s and %s after their start, want 0 and 100ms (interleaved)", first[0], first[1])
	}
}

// TestSeedChangesTheStream: the same scenario with another seed reads
// other keys; with the same seed, the same keys.
func TestSeedChangesTheStream(t *testing.T) {
	run := func(seed int64) []string {
		sc := scenario(t, `
keyspace: {records: 1000000}
phases:
  - {name: steady, kind: steady, rate: 0, duration: 100ms, concurrency: 1, mix: {read: 100}}
`)
		sc.Seed = seed
		tg := &recordingTarget{}
		runWith(t, sc, tg, Options{})
		var out []string
		for _, r := range tg.seen()[:8] {
			out = append(out, r.Key)
		}
		return out
	}
	a, b, c := run(1), run(1), run(2)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 1 twice: %v vs %v", a, b)
		}
	}
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same > 1 {
		t.Errorf("seeds 1 and 2 chose the same keys: %v", a)
	}
}

// TestInterruptedSaysWhy: a run stopped early says so and why; it does
// not claim an SLO verdict for a run that did not finish.
func TestInterruptedSaysWhy(t *testing.T) {
	t.Parallel()
	if got := report.VerdictLine(rundir.StatusInterrupted, "", rundir.Verdict{Passed: false, Checks: []rundir.Check{{Passed: true}}}); got != "interrupted: stopped before its end (signal or stop request)" {
		t.Errorf("got %q", got)
	}
	if got := report.VerdictLine(rundir.StatusInterrupted, "target down mid-run: exit 1", rundir.Verdict{}); got != "interrupted: target down mid-run: exit 1" {
		t.Errorf("got %q", got)
	}
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 10s, concurrency: 1, mix: {read: 100}}
`)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 305*time.Millisecond)
		defer cancel()
		sum, err := Run(ctx, Options{Scenario: sc, Target: &recordingTarget{}, TargetKind: "fake", OutDir: t.TempDir(), time: bubbleTime{}})
		if err != nil {
			t.Fatal(err)
		}
		txt := report.Text(sum)
		if !containsLine(txt, "interrupted: stopped before its end (signal or stop request)") || containsLine(txt, "SLO FAILED") {
			t.Errorf("interrupted run's text:\n%s", txt)
		}
		// Ops 0-30 were sent by 300 ms; the end wakes the dispatcher at
		// 305 ms.
		if p := sum.Phases[0]; p.DurationSeconds != 0.305 || p.Scheduled != 31 {
			t.Errorf("interrupted at 0.305s: window %.3fs, %d scheduled; want 0.305s and 31", p.DurationSeconds, p.Scheduled)
		}
	})
}

func containsLine(txt, line string) bool {
	for _, l := range splitLines(txt) {
		if l == line {
			return true
		}
	}
	return false
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// TestOverloadDropsAreCountedAtOnce: at the rate ceiling against a store
// that cannot keep up, the pacer counts millions of dropped ops without
// walking them one by one, every scheduled op is accounted for, and a
// cancel ends the phase promptly.
func TestOverloadDropsAreCountedAtOnce(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 10000000, duration: 10s, concurrency: 1, max_lag: 1ms, mix: {read: 90, update: 10}}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	sum, err := Run(ctx, Options{Scenario: sc, Target: &recordingTarget{service: 5 * time.Millisecond}, TargetKind: "fake", OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("cancel after 0.5s took %s to end the run", took)
	}
	p := sum.Phases[0]
	if p.Scheduled < 100_000 {
		t.Fatalf("scheduled %d in ~0.5s at 10M ops/s", p.Scheduled)
	}
	if uint64(p.Completed+p.Dropped) != p.Scheduled {
		t.Errorf("completed %d + dropped %d != scheduled %d", p.Completed, p.Dropped, p.Scheduled)
	}
	r, u := p.Ops["read"].Dropped, p.Ops["update"].Dropped
	if frac := float64(u) / float64(r+u); frac < 0.08 || frac > 0.12 {
		t.Errorf("dropped reads %d updates %d: the split should follow the 90/10 mix", r, u)
	}
}

// TestProgressShowsLoadETA: a load's progress line says how far it is
// and when it ends at the last interval's pace.
func TestProgressShowsLoadETA(t *testing.T) {
	mix, _ := scenarios.NewMix(map[string]float64{"insert": 100}, nil)
	seg := &segment{Phase: "load", Limit: 1000, Mix: mix}
	line := progressLine(seg, 0, 2*time.Second, 100, 250, metricsSet(mix), targets.Classes(), nil)
	if !strings.HasPrefix(line, "[load 2s 250/1000 ETA 8s] closed-loop achieved 100/s") {
		t.Errorf("progress line %q", line)
	}
}

func metricsSet(m *scenarios.Mix) *metrics.Set { return metrics.NewSet(m.Ops()) }

// TestRequestsEndTheWindow: a phase bounded by both requests and a
// duration that finishes its requests first is measured over the time
// they took, not the whole duration (its rate would be understated).
func TestRequestsEndTheWindow(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: closed, kind: steady, rate: 0, requests: 300, duration: 1m, concurrency: 2, mix: {read: 100}}
  - {name: open, kind: steady, rate: 1000, requests: 300, duration: 1m, concurrency: 2, mix: {read: 100}}
`)
	sum := runInBubble(t, sc, &recordingTarget{service: time.Millisecond}, Options{})
	for _, p := range sum.Phases {
		if p.Completed != 300 || p.DurationSeconds >= 30 || p.AchievedRate != float64(p.CompletedInWindow)/p.DurationSeconds || p.CompletedInWindow != 300 {
			t.Errorf("%s: %d ops, %d in a window of %.2fs, achieved %.1f: want 300 over the time they took", p.Name, p.Completed, p.CompletedInWindow, p.DurationSeconds, p.AchievedRate)
		}
	}
}
