package engine

import (
	"maps"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// lostCounters are soakd_ops_lost_total per op of phase in exp.
func lostCounters(t *testing.T, exp *metrics.Exporter, phase string) map[string]int64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := exp.Register(reg); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, mf := range mfs {
		if mf.GetName() != "soakd_ops_lost_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			lbl := map[string]string{}
			for _, l := range m.GetLabel() {
				lbl[l.GetName()] = l.GetValue()
			}
			if lbl["phase"] == phase && m.GetCounter().GetValue() > 0 {
				got[lbl["op"]] += int64(m.GetCounter().GetValue())
			}
		}
	}
	return got
}

// TestResumeLostPerOpExact: the ops due while soakd was down are lost
// per op exactly as the schedule called for them (index i's op is a pure
// function of i), not by the mix's weights: with a 70/30 mix the ~200
// indices of a 1 s downtime hold other counts than 90/10 of them. Only
// the ops in flight at the checkpoint (by_weight) are split by weight.
// The summary's per-op lost, the seam's and soakd_ops_lost_total agree.
func TestResumeLostPerOpExact(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 4s, concurrency: 1, mix: {read: 70, update: 30}}
`)
	// One worker and no drops: the killed run's n-th request is index n.
	killed := &recordingTarget{service: 5 * time.Millisecond}
	dir := killedRun(t, sc, killed, 2100*time.Millisecond)
	exp := metrics.NewExporter(sc.Name, "0", targets.Classes(), nil)
	sum, ck := resumed(t, sc, &recordingTarget{service: 5 * time.Millisecond}, dir, time.Second, func(o *Options) { o.Exporter = exp })
	p := sum.Phases[0]
	checkIdentity(t, "steady", &p.Result)
	sm := checkSeam(t, sum, ck, "steady", time.Second, p.Lost)
	st := checkpointSeg(t, ck)
	exact := sm.Lost - sm.ByWeight
	if exact < 195 || exact > 201 || sm.ByWeight > 2 {
		t.Fatalf("seam lost %d, %d by weight: want the ~200 due in the 1 s down counted one by one, 0-2 in flight by weight", sm.Lost, sm.ByWeight)
	}
	sent := killed.seen()
	if int(st.Sent)+int(exact) > len(sent) {
		t.Fatalf("the killed run sent %d, want past index %d", len(sent), int64(st.Sent)+exact)
	}
	want := map[string]int64{}
	for _, r := range sent[st.Sent : int64(st.Sent)+exact] {
		want[r.Op.String()]++
	}
	mix, err := scenarios.NewMix(map[string]float64{"read": 70, "update": 30}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var inFlight, byWeight [scenarios.NumOps]int64
	mix.Split(sm.ByWeight, &inFlight)
	mix.Split(sm.Lost, &byWeight)
	weighted := map[string]int64{}
	for _, op := range []scenarios.Op{scenarios.OpRead, scenarios.OpUpdate} {
		want[op.String()] += inFlight[op]
		weighted[op.String()] = byWeight[op]
	}
	if maps.Equal(want, weighted) {
		t.Fatalf("the exact counts %v are the weights' split: pick another downtime for the test to tell them apart", want)
	}
	got := map[string]int64{}
	for name, o := range p.Ops {
		if o.Lost > 0 {
			got[name] = o.Lost
		}
	}
	t.Logf("per-op lost %v, %d of them by weight; the weights alone would say %v", got, sm.ByWeight, weighted)
	if !maps.Equal(got, want) {
		t.Errorf("per-op lost %v, want %v (the weights would say %v)", got, want, weighted)
	}
	if !maps.Equal(sm.Ops, want) {
		t.Errorf("seam per-op lost %v, want %v", sm.Ops, want)
	}
	if c := lostCounters(t, exp, "steady"); !maps.Equal(c, want) {
		t.Errorf("soakd_ops_lost_total %v, want %v", c, want)
	}
}

// TestSeamLostOpsBound: a seam counts the indices due while down one by
// one up to exactLost of them, and splits the rest of its lost ops (the
// ops in flight at the checkpoint) by the mix's weights; a longer
// downtime is split by weight whole, and says so (byWeight).
func TestSeamLostOpsBound(t *testing.T) {
	mix, err := scenarios.NewMix(map[string]float64{"read": 70, "update": 30}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seg := &segment{Mix: mix, Seed: 7, Source: &mixSource{}}
	per, byWeight := seamLostOps(seg, 203, 1000, 1200)
	var want [scenarios.NumOps]int64
	for i := uint64(1000); i < 1200; i++ {
		want[seg.opFor(i)]++
	}
	var split [scenarios.NumOps]int64
	mix.Split(3, &split)
	for _, op := range []scenarios.Op{scenarios.OpRead, scenarios.OpUpdate} {
		if per.Ops[op] != want[op]+split[op] {
			t.Errorf("op %s: lost %d, want %d counted + %d by weight", op, per.Ops[op], want[op], split[op])
		}
	}
	if byWeight != 3 || per.N != 203 {
		t.Errorf("by weight %d of %d, want 3 of 203", byWeight, per.N)
	}
	long := int64(exactLost) + 10
	per, byWeight = seamLostOps(seg, long, 0, exactLost+1)
	var all [scenarios.NumOps]int64
	mix.Split(long, &all)
	if byWeight != long || per.Ops != all {
		t.Errorf("a downtime past exactLost: %d by weight, ops %v, want all %d by weight", byWeight, per.Ops[:4], long)
	}
}
