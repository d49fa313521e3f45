package engine

import (
	"context"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/targets"
)

// TestGrowthPerOpMeasure: with growth.measure per_op, each stage runs
// the batch insert and then each op of the mix alone, closed loop, in
// PerOpOrder (get, set, then del last), through engine.Run on the
// embedded store. What the engine sent (recorded in front of the store)
// is, per stage, one run of batch sets and then one uninterrupted run
// of each op, as long as that op's count in the stage's per_op result;
// each per_op result holds that op only, its throughput is its count
// over its slice of measure_for, and the stage's figures are the slices
// together.
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
	// Runs of one op in the order sent.
	type run struct {
		op string
		n  int64
	}
	var runs []run
	for _, s := range rec.Sent() {
		if op := s.Op.String(); len(runs) > 0 && runs[len(runs)-1].op == op {
			runs[len(runs)-1].n++
		} else {
			runs = append(runs, run{op, 1})
		}
	}
	p := sum.Phases[0]
	if len(p.Stages) != 3 {
		t.Fatalf("%d stages", len(p.Stages))
	}
	if len(runs) != 4*len(p.Stages) {
		t.Fatalf("the engine sent %d runs of one op, want 4 per stage (batch, get, set, del): %v", len(runs), runs)
	}
	for i, st := range p.Stages {
		r := runs[4*i : 4*i+4]
		if r[0] != (run{"set", 1000}) {
			t.Errorf("stage %d: batch insert sent %+v, want 1000 sets", i+1, r[0])
		}
		if len(st.PerOp) != 3 {
			t.Fatalf("stage %d: per_op %v", i+1, st.PerOp)
		}
		var sum int64
		for k, op := range []string{"get", "set", "del"} {
			res := st.PerOp[op]
			if res == nil || len(res.Ops) != 1 {
				t.Fatalf("stage %d %s: per_op result %+v, want that op only", i+1, op, res)
			}
			o, ok := res.Ops[op]
			if !ok || o.Count == 0 || len(o.Errors) != 0 {
				t.Fatalf("stage %d %s: ops %+v", i+1, op, res.Ops)
			}
			if r[k+1] != (run{op, o.Count}) {
				t.Errorf("stage %d: sent %+v as the %s slice, the result counts %d", i+1, r[k+1], op, o.Count)
			}
			if res.TargetRate != 0 || res.DurationSeconds < 0.19 || res.DurationSeconds > 0.4 {
				t.Errorf("stage %d %s: target %v over %.3fs, want closed loop over ~0.2s", i+1, op, res.TargetRate, res.DurationSeconds)
			}
			if want := float64(res.CompletedInWindow) / res.DurationSeconds; res.AchievedRate != want || res.AchievedRate <= 0 {
				t.Errorf("stage %d %s: throughput %v, want %v", i+1, op, res.AchievedRate, want)
			}
			if st.Ops[op].Count != o.Count {
				t.Errorf("stage %d %s: stage count %d, per_op %d", i+1, op, st.Ops[op].Count, o.Count)
			}
			sum += o.Count
		}
		if st.Completed != sum || st.TargetRate != 0 {
			t.Errorf("stage %d: completed %d, per-op sum %d, target %v", i+1, st.Completed, sum, st.TargetRate)
		}
	}
}
