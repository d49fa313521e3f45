package report

import (
	"sort"

	"github.com/soakd/soakd/rundir"
)

// What a merged run keeps beyond counts and percentiles, so a merge
// loses nothing a single run shows:
//
//   - growth stages: records are the largest any shard saw (the shards
//     insert into one key space); the batch load and each op measured
//     alone (per_op) are summed like the stage (rates and counts summed,
//     per-op percentiles the worst shard's); memory depends on what the
//     shards measured: one store (every shard's target has the same
//     URL) gives the reading of the shard whose stage ended last, the
//     store after every shard's batch (server stats likewise); separate
//     stores (embedded targets, different URLs) give each figure summed
//     over the shards that report it (server stats: byte and counter
//     figures summed).
//   - persistence events: the union, each tagged with its shard and
//     moved to offsets from the merged phase's start.
//   - capacity phases: the highest rate held summed over the shards
//     (each searched its share), every shard's probes tagged with it.
//   - growth cliff: the earliest any shard found.
//   - capacity sweeps: merged point by point (by label): rates held,
//     achieved rates and counts summed, latency the worst shard's.
//   - over_time: recomputed from the merged latency-over-time buckets
//     (each bucket's histograms merged across the shards).

// sameStore says whether every shard measured one store: the same
// target kind and a non-empty, equal URL.
func sameStore(shards []*rundir.Summary) bool {
	ref := shards[0].Target
	if ref.URL == "" {
		return false
	}
	for _, s := range shards[1:] {
		if s.Target.URL != ref.URL || s.Target.Kind != ref.Kind {
			return false
		}
	}
	return true
}

// mergeStageExtras fills a merged stage's growth figures from the
// shards' stages of the same name (parts).
func mergeStageExtras(acc *rundir.StageResult, parts []*rundir.StageResult, same bool) {
	var last *rundir.StageResult
	for _, st := range parts {
		acc.Records = max(acc.Records, st.Records)
		if st.Load != nil {
			if acc.Load == nil {
				acc.Load = &rundir.Result{}
			}
			addResult(acc.Load, st.Load)
		}
		for op, r := range st.PerOp {
			if r == nil {
				continue
			}
			if acc.PerOp == nil {
				acc.PerOp = map[string]*rundir.Result{}
			}
			if acc.PerOp[op] == nil {
				acc.PerOp[op] = &rundir.Result{}
			}
			addResult(acc.PerOp[op], r)
		}
		if last == nil || st.End.After(last.End) {
			last = st
		}
	}
	if last == nil {
		return
	}
	if same {
		acc.Server = last.Server
		if last.Memory != nil {
			m := *last.Memory
			acc.Memory = &m
		}
		return
	}
	acc.Server = sumServer(parts)
	acc.Memory = sumMemory(parts)
}

// memoryFields are StageMemory's figures, for summing.
var memoryFields = []func(*rundir.StageMemory) **float64{
	func(m *rundir.StageMemory) **float64 { return &m.UsedBytes },
	func(m *rundir.StageMemory) **float64 { return &m.RSSBytes },
	func(m *rundir.StageMemory) **float64 { return &m.CgroupUsageBytes },
	func(m *rundir.StageMemory) **float64 { return &m.CgroupLimitBytes },
	func(m *rundir.StageMemory) **float64 { return &m.CgroupFileBytes },
	func(m *rundir.StageMemory) **float64 { return &m.CgroupAnonBytes },
	func(m *rundir.StageMemory) **float64 { return &m.SwapBytes },
}

// sumMemory sums each memory figure over the stages reporting it; a
// figure no stage reports stays absent.
func sumMemory(parts []*rundir.StageResult) *rundir.StageMemory {
	var out rundir.StageMemory
	found := false
	for _, st := range parts {
		if st.Memory == nil {
			continue
		}
		for _, f := range memoryFields {
			v := *f(st.Memory)
			if v == nil {
				continue
			}
			dst := f(&out)
			if *dst == nil {
				*dst = new(float64)
			}
			**dst += *v
			found = true
		}
	}
	if !found {
		return nil
	}
	return &out
}

// sumServer sums the stages' server stats that add across stores (byte
// sizes and counters); ratios and settings are left out.
func sumServer(parts []*rundir.StageResult) map[string]float64 {
	var out map[string]float64
	for _, st := range parts {
		for k, v := range st.Server {
			if !additive(k) {
				continue
			}
			if out == nil {
				out = map[string]float64{}
			}
			out[k] += v
		}
	}
	return out
}

func additive(stat string) bool {
	for _, suf := range []string{"_bytes", "_total", "_keys"} {
		if len(stat) > len(suf) && stat[len(stat)-len(suf):] == suf {
			return true
		}
	}
	return false
}

// mergePhaseExtras fills the merged phase pr's persistence events,
// growth cliff and own-health record from the shards' phases (its
// kind's own results: the kind table's merge). The self record is the first shard's that was bound (its
// reason naming the shard; the merged figures are no verdict on the
// store when any shard's were not), else the first shard's.
func mergePhaseExtras(pr *rundir.PhaseResult, shards []*rundir.Summary) {
	for _, s := range shards {
		sp := findPhase(s, pr.Name)
		if sp == nil {
			continue
		}
		shift := sp.Start.Sub(pr.Start).Seconds()
		for _, e := range sp.PersistenceEvents {
			e.StartOffsetSeconds += shift
			e.EndOffsetSeconds += shift
			e.Shard = s.Shard.String()
			pr.PersistenceEvents = append(pr.PersistenceEvents, e)
		}
		if h := sp.Self; h != nil && (pr.Self == nil || pr.Self.Bound == "" && h.Bound != "") {
			hc := *h
			if hc.Bound != "" {
				hc.Reason = "shard " + s.Shard.String() + ": " + hc.Reason
			}
			pr.Self = &hc
		}
		if c := sp.Cliff; c != nil && (pr.Cliff == nil || c.StageIndex < pr.Cliff.StageIndex) {
			cc := *c
			pr.Cliff = &cc
		}
	}
	sort.SliceStable(pr.PersistenceEvents, func(i, j int) bool {
		return pr.PersistenceEvents[i].StartOffsetSeconds < pr.PersistenceEvents[j].StartOffsetSeconds
	})
}
