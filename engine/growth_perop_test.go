package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/targets"
)

// TestGrowthPerOpMeasure: with growth.measure per_op, each stage runs
// the batch insert and then each op of the mix alone, closed loop, in
// PerOpOrder (get, set, then del last), through engine.Run on the
// embedded store. What the engine sent (recorded in front of the store)
// is, per stage, the batch of sets and then one uninterrupted run of
// each op, as long as that op's count in the stage's per_op result; the
// deletes are a run of consecutive existing records, put back by the
// same number of sets right after, so the store holds every record when
// the stage ends. Each per_op result holds that op only, its throughput
// is its count over its slice of measure_for, and the stage's figures
// are the slices together.
func TestGrowthPerOpMeasure(t *testing.T) {
	sc := scenario(t, `
name: growth-per-op
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 64}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {del: 10, get: 60, set: 30}
    growth: {batch: 1000, measure: per_op, measure_for: 600ms, stop_records: 3000, after_cliff: -1}
`)
	inner, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	rec := &testutil.Recorder{Inner: inner}
	sum, err := Run(context.Background(), Options{Scenario: sc, Target: rec, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sent := rec.Sent()
	p := sum.Phases[0]
	if len(p.Stages) != 3 {
		t.Fatalf("%d stages", len(p.Stages))
	}
	// take consumes the next n requests, which must all be op; it returns
	// their keys.
	take := func(stage int, what, op string, n int64) []int64 {
		t.Helper()
		if n <= 0 || int64(len(sent)) < n {
			t.Fatalf("stage %d %s: %d requests left, want %d", stage, what, len(sent), n)
		}
		keys := make([]int64, n)
		for i, s := range sent[:n] {
			if s.Op.String() != op {
				t.Fatalf("stage %d %s: request %d is %s, want %s only", stage, what, i, s.Op, op)
			}
			keys[i] = s.KeyNum
		}
		sent = sent[n:]
		return keys
	}
	// consecutive: the keys are one run (workers send them in any order).
	consecutive := func(keys []int64) bool {
		keys = slices.Clone(keys)
		slices.Sort(keys)
		for i := range keys {
			if keys[i] != keys[0]+int64(i) {
				return false
			}
		}
		return true
	}
	var records int64
	for i, st := range p.Stages {
		if keys := take(i+1, "batch insert", "set", 1000); slices.Min(keys) != records || !consecutive(keys) {
			t.Errorf("stage %d: batch inserted keys from %d, want %d..%d", i+1, slices.Min(keys), records, records+999)
		}
		records += 1000
		if len(st.PerOp) != 3 {
			t.Fatalf("stage %d: per_op %v", i+1, st.PerOp)
		}
		var total int64
		for _, op := range []string{"get", "set", "del"} {
			res := st.PerOp[op]
			if res == nil || len(res.Ops) != 1 {
				t.Fatalf("stage %d %s: per_op result %+v, want that op only", i+1, op, res)
			}
			o, ok := res.Ops[op]
			if !ok || o.Count == 0 || len(o.Errors) != 0 || o.Misses != 0 {
				t.Fatalf("stage %d %s: ops %+v", i+1, op, res.Ops)
			}
			keys := take(i+1, op+" slice", op, o.Count)
			if res.TargetRate != 0 || res.DurationSeconds <= 0 || res.DurationSeconds > 0.4 {
				t.Errorf("stage %d %s: target %v over %.3fs, want closed loop over at most ~0.2s", i+1, op, res.TargetRate, res.DurationSeconds)
			}
			if want := float64(res.CompletedInWindow) / res.DurationSeconds; res.AchievedRate != want || res.AchievedRate <= 0 {
				t.Errorf("stage %d %s: throughput %v, want %v", i+1, op, res.AchievedRate, want)
			}
			if st.Ops[op].Count != o.Count {
				t.Errorf("stage %d %s: stage count %d, per_op %d", i+1, op, st.Ops[op].Count, o.Count)
			}
			total += o.Count
			if op == "del" {
				// At most a batch of existing records, in a run, put back
				// right after by as many sets of the same keys.
				if o.Count > 1000 || !consecutive(keys) || slices.Min(keys) < 0 || slices.Max(keys) >= records {
					t.Errorf("stage %d: deleted %d keys from %d, want a run of at most 1000 within [0, %d)", i+1, len(keys), slices.Min(keys), records)
				}
				if back := take(i+1, "re-insert", "set", o.Count); slices.Min(back) != slices.Min(keys) || !consecutive(back) {
					t.Errorf("stage %d: re-inserted from %d, deleted from %d", i+1, slices.Min(back), slices.Min(keys))
				}
			}
		}
		if st.Completed != total || st.TargetRate != 0 {
			t.Errorf("stage %d: completed %d, per-op sum %d, target %v", i+1, st.Completed, total, st.TargetRate)
		}
	}
	// The dataset is whole at the end: every record inserted is there.
	st, err := inner.(targets.StatsSource).ServerStats(context.Background())
	if err != nil || st["keys"] != float64(records) {
		t.Errorf("the store holds %v keys (%v), want %d", st["keys"], err, records)
	}
	if len(sent) != 0 {
		t.Errorf("%d requests sent after the last stage", len(sent))
	}
}
