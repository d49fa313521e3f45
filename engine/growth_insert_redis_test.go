package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// A growth phase whose growth.insert names a custom op inserts each
// stage's batch with that op, one new record per record number: a SET
// of {key} grows the dataset the built-in get reads (no misses), and an
// HSET of "p:{seq}" in a second growth phase goes on from where the
// first stopped. Each stage's load figures name the custom op.
func TestGrowthCustomInsertRedis(t *testing.T) {
	sc := scenario(t, `
name: growins
target: {kind: redis, managed: {persistence: none}}
keyspace: {records: 100000}
ops:
  put: {redis: [SET, "{key}", "{bytes:16}"]}
  profile: {redis: [HSET, "p:{seq}", name, "{text:1}", n, "{int:1:9}"]}
phases:
  - name: grow
    kind: growth
    concurrency: 4
    mix: {get: 100}
    growth: {batch: 300, measure_rate: 200, measure_for: 200ms, stop_records: 900, insert: put}
  - name: profiles
    kind: growth
    concurrency: 4
    mix: {get: 100}
    growth: {batch: 300, measure_rate: 200, measure_for: 200ms, stop_records: 1800, insert: profile}
`)
	sum, dir, cl := runRedis(t, sc, rundir.Shard{})
	t.Log(report.Text(sum))
	if len(sum.Phases) != 2 {
		t.Fatalf("%d phases", len(sum.Phases))
	}
	for pi, op := range []string{"put", "profile"} {
		p := sum.Phases[pi]
		if len(p.Stages) != 3 {
			t.Fatalf("%s: %d stages, want 3 of 300 records", p.Name, len(p.Stages))
		}
		for k, st := range p.Stages {
			want := int64(900*pi + 300*(k+1))
			if st.Records != want || st.Server["keys"] != float64(want) {
				t.Errorf("%s: records %d, DBSIZE %v after %s; want %d", p.Name, st.Records, st.Server["keys"], st.Name, want)
			}
			ins, ok := st.Load.Ops[op]
			if !ok || len(st.Load.Ops) != 1 || ins.Count != 300 || len(ins.Errors) != 0 {
				t.Errorf("%s %s: load ops %+v; want 300 %s, no errors", p.Name, st.Name, st.Load.Ops, op)
			}
			// The SETs wrote the keys get reads: none of them misses.
			if g := st.Ops["get"]; g.Count == 0 || (pi == 0 && g.Misses != 0) {
				t.Errorf("%s %s: %d gets, %d misses", p.Name, st.Name, g.Count, g.Misses)
			}
		}
	}
	// {seq} is the record number: the profiles are p:900 .. p:1799.
	ctx := context.Background()
	keys := cl.Keys(ctx, "p:*").Val()
	if len(keys) != 900 {
		t.Fatalf("%d profiles, want 900", len(keys))
	}
	for _, n := range []int{900, 1350, 1799} {
		h := cl.HGetAll(ctx, fmt.Sprintf("p:%d", n)).Val()
		if h["name"] == "" || len(h["n"]) != 1 {
			t.Errorf("p:%d = %v", n, h)
		}
	}
	// latency.hlog tags the batch inserts with the custom op's name.
	hl, _ := os.ReadFile(filepath.Join(dir, "latency.hlog"))
	if !strings.Contains(string(hl), "Tag=profiles.profile.latency,") {
		t.Errorf("latency.hlog lacks the insert op's tag:\n%.600s", hl)
	}
}

// An insert that fails is not a record: a script that refuses every
// third record number grows the dataset by two thirds of each batch;
// the stage's records say so, and the refusals are errors of the op.
func TestGrowthCustomInsertFailuresRedis(t *testing.T) {
	sc := scenario(t, `
name: growfail
target: {kind: redis, managed: {persistence: none}}
keyspace: {records: 100000}
ops:
  put_some:
    redis:
      script: "if tonumber(ARGV[1]) % 3 == 0 then return redis.error_reply('ERR refused') end return redis.call('SET', KEYS[1], ARGV[1])"
      keys: ["{key}"]
      args: ["{seq}"]
phases:
  - name: grow
    kind: growth
    concurrency: 2
    mix: {get: 100}
    growth: {batch: 300, measure_rate: 100, measure_for: 200ms, stop_records: 400, max_stages: 2, insert: put_some}
`)
	sum, _, _ := runRedis(t, sc, rundir.Shard{})
	p := sum.Phases[0]
	if len(p.Stages) != 2 {
		t.Fatalf("%d stages", len(p.Stages))
	}
	// Stage 1 tries records 0..299 (200 succeed); stage 2 is cut to the
	// 200 records stop_records still allows: 300..499, of which 133
	// succeed (a refused number is not reused).
	for k, want := range []int64{200, 333} {
		st := p.Stages[k]
		if st.Records != want || st.Server["keys"] != float64(want) {
			t.Errorf("%s: records %d, DBSIZE %v; want %d", st.Name, st.Records, st.Server["keys"], want)
		}
	}
	for k, want := range []int64{100, 67} {
		ins := p.Stages[k].Load.Ops["put_some"]
		if ins.Errors["other"] != want || p.Stages[k].Load.Errors != want {
			t.Errorf("stage %d: insert errors %v (total %d), want %d other", k+1, ins.Errors, p.Stages[k].Load.Errors, want)
		}
	}
}
