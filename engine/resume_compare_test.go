package engine

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/verdict"
)

// variedTarget serves each op in 1-9 ms, by a hash of the millisecond
// it starts in on the bubble's clock: a spread of latencies, the same
// for an op at the same moment of the schedule in every run. (By a hash
// of its key, the verdict hung on which worker drew which keys: 1 run in
// 30 called a p50 x1.04 [1.01, 1.09] "slower".) A resumed run's bubble
// clock goes on at the checkpoint's instant, so its ops after the seam
// meet the same service times as the unbroken run's.
type variedTarget struct{}

func (variedTarget) Do(ctx context.Context, r *targets.Request) error {
	h := fnv.New32a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(time.Now().UnixMilli()))
	h.Write(b[:])
	time.Sleep(time.Millisecond + time.Duration(h.Sum32()%8000)*time.Microsecond)
	return nil
}

func (variedTarget) Close() error { return nil }

// TestResumedRunComparesWithinNoise: a run killed in its steady phase
// and resumed 1 s later, compared (block bootstrap over intervals, as
// soakd compare does) with an unbroken run of the same scenario on the
// same store, is "within noise" for every op and quantile compared: the
// seam adds no latency (the ops due while down are lost, not late) and
// counts no op twice.
func TestResumedRunComparesWithinNoise(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 2000}
phases:
  - {name: load, kind: load, rate: 4000, concurrency: 4}
  - {name: steady, kind: steady, rate: 500, duration: 8s, concurrency: 16, mix: {read: 50, update: 50}}
`)
	unbroken := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		o := Options{Scenario: sc, Target: variedTarget{}, TargetKind: "fake", OutDir: unbroken, Interval: 250 * time.Millisecond,
			time: bubbleTime{}, Checkpoint: &CheckpointConfig{}}
		if _, err := runWritten(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	})
	// The load takes 0.5 s: the kill is 3.5 s into the steady phase.
	dir := killedRun(t, sc, variedTarget{}, 4*time.Second)
	res, _ := resumed(t, sc, variedTarget{}, dir, time.Second)
	if len(res.Seams) != 1 || res.Phases[1].Lost == 0 {
		t.Fatalf("seams %+v, steady lost %d: want one seam that lost ops", res.Seams, res.Phases[1].Lost)
	}
	var sides [2]*rundir.Summary
	var ivs [2]verdict.RunIntervals
	for i, d := range []string{unbroken, dir} {
		s, err := rundir.ReadSummary(d)
		if err != nil {
			t.Fatal(err)
		}
		tags, _, err := rundir.ReadRunIntervals(d, func(tag string) bool { return len(tag) > 8 && tag[len(tag)-8:] == ".latency" })
		if err != nil {
			t.Fatal(err)
		}
		sides[i], ivs[i] = s, verdict.SteadyIntervals(s, tags)
	}
	// No between-run drift: the bubble's runs have none (the same
	// service times, no host), so the within-run intervals alone judge
	// the seam, the strictest test of it.
	none := &verdict.Drift{Source: verdict.DriftControls, DF: 20, SD: map[string]float64{"p50": 0, "p99": 0, "p99.9": 0, "throughput": 0}}
	v := verdict.CompareIntervals(sides[:1], sides[1:], ivs[:1], ivs[1:], verdict.IntervalOptions{Drift: none})
	if v.Regressed || len(v.Ops) != 2 {
		t.Fatalf("resumed against unbroken: regressed %v, %d ops compared:\n%s", v.Regressed, len(v.Ops), v.Table())
	}
	for _, o := range v.Ops {
		for _, c := range o.Checks {
			if c.Quantile == "p50" && c.Call != verdict.CallWithinNoise {
				t.Errorf("%s %s: %q, want %q:\n%s", o.Op, c.Quantile, c.Call, verdict.CallWithinNoise, v.Table())
			}
			if c.Call == verdict.CallRegression || c.Call == verdict.CallSlower {
				t.Errorf("%s %s: %q:\n%s", o.Op, c.Quantile, c.Call, v.Table())
			}
		}
	}
	t.Logf("%s", v.Table())
}
