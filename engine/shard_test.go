package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

func TestShardRangesTileTheKeyspace(t *testing.T) {
	for _, n := range []int64{1, 7, 1000, 1000003} {
		for _, c := range []int{1, 2, 3, 7, 16} {
			next := int64(0)
			for i := 0; i < c; i++ {
				lo, hi := rundir.Shard{Index: i, Count: c}.Range(n)
				if lo != next || hi < lo {
					t.Fatalf("n=%d shard %d/%d: [%d,%d), want start %d", n, i, c, lo, hi, next)
				}
				next = hi
			}
			if next != n {
				t.Fatalf("n=%d over %d shards ends at %d", n, c, next)
			}
		}
	}
}

func TestShardSegmentsAndInsertKeys(t *testing.T) {
	sc := &scenarios.Scenario{Keyspace: scenarios.Keyspace{Records: 1000},
		Phases: []scenarios.Phase{{Name: "load", Kind: scenarios.PhaseLoad, Load: &scenarios.LoadSpec{Records: 1000}}}}
	seen := map[int64]int{}
	var loaded int64
	for i := 0; i < 3; i++ {
		r := &runner{opts: Options{Shard: rundir.Shard{Index: i, Count: 3}}, inserted: &scenarios.Inserted{}}
		r.shard = newShardState(r.opts.Shard, sc)
		segs := []segment{{Rate: 900, Sequential: true, Limit: 1000}, {Rate: 300}}
		shardSegments(r.opts.Shard, segs)
		if segs[0].Rate != 300 || segs[1].Rate != 100 {
			t.Fatalf("shard %d rates %v %v", i, segs[0].Rate, segs[1].Rate)
		}
		for k := int64(0); k < int64(segs[0].Limit); k++ {
			seen[segs[0].KeyBase+k]++
		}
		loaded += int64(segs[0].Limit)
		ph := &sc.Phases[0]
		if got := loadedThrough(r.opts.Shard, &segs[0], segs[0].Limit, ph.Load.Records); got != 1000 {
			t.Fatalf("shard %d: loaded through %d, want the whole load", i, got)
		}
		r.inserted.Store(1000)
		for k := 0; k < 50; k++ {
			key := r.shard.nextInsertKey(r.inserted)
			if key < 1000 || (key-1000)%3 != int64(i) {
				t.Fatalf("shard %d insert key %d", i, key)
			}
			seen[key]++
		}
		if r.inserted.Load() != 1000+49*3+int64(i)+1 {
			t.Fatalf("shard %d: inserted counter %d", i, r.inserted.Load())
		}
	}
	if loaded != 1000 || len(seen) != 1000+150 {
		t.Fatalf("loaded %d, %d distinct keys", loaded, len(seen))
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("key %d used %d times", k, n)
		}
	}
}

// TestMergeStagePercentiles: each shard keeps its stages' histograms in
// histograms.hlog, so merged ramp steps get exact percentiles.
func TestMergeStagePercentiles(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
name: ramp-shards
keyspace: {records: 1000}
phases:
  - {name: ramp, kind: ramp, concurrency: 2, mix: {get: 100}, steps: [{rate: 200, duration: 500ms}, {rate: 400, duration: 500ms}]}
`)
	base := t.TempDir()
	var dirs []string
	var sums []*rundir.Summary
	for i := 0; i < 2; i++ {
		tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(base, fmt.Sprintf("s%d", i))
		sum, err := runWritten(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: "embedded", OutDir: dir, Shard: rundir.Shard{Index: i, Count: 2}})
		tg.Close()
		if err != nil {
			t.Fatal(err)
		}
		dirs, sums = append(dirs, dir), append(sums, sum)
	}
	m, err := report.MergeRunDirs(dirs)
	if err != nil {
		t.Fatal(err)
	}
	stages := m.Phases[0].Stages
	if len(stages) != 2 {
		t.Fatalf("%d merged stages", len(stages))
	}
	for k, st := range stages {
		got := st.Ops["get"]
		a, b := sums[0].Phases[0].Stages[k].Ops["get"], sums[1].Phases[0].Stages[k].Ops["get"]
		if got.Count != a.Count+b.Count || got.Latency.Count != got.Count {
			t.Errorf("%s: merged %d ops (latency %d), shards %d + %d", st.Name, got.Count, got.Latency.Count, a.Count, b.Count)
		}
		lo, hi := min(a.Latency.P99, b.Latency.P99), max(a.Latency.P99, b.Latency.P99)
		if got.Latency.P99 < lo || got.Latency.P99 > hi || got.Latency.Max != max(a.Latency.Max, b.Latency.Max) {
			t.Errorf("%s: merged p99 %g max %g, shards p99 %g/%g max %g/%g", st.Name, got.Latency.P99, got.Latency.Max, a.Latency.P99, b.Latency.P99, a.Latency.Max, b.Latency.Max)
		}
	}
	if txt := m.Text(); !strings.Contains(txt, "stage step-2: target 400 ops/s") || !strings.Contains(txt, "| get p99 ") ||
		!strings.Contains(txt, "memory limits (shard 0): "+sums[0].Target.MemoryLimits.String()) {
		t.Errorf("merged text:\n%s", txt)
	}
}
