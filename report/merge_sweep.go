package report

import (
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// A sweep's part of a shard merge (soakd report DIR...): its points
// over the merged shards, and what a capacity sweep held.

// shardPhase is one shard's phase in a merge, with the shard's label.
type shardPhase struct {
	label string
	p     *rundir.PhaseResult
}

// mergeSweep is the sweep's merge in the report's kind table.
func mergeSweep(pr, ref *rundir.PhaseResult, shards []shardPhase) {
	sweeps := make([]*rundir.SweepResult, len(shards))
	for i, s := range shards {
		sweeps[i] = s.p.Sweep
	}
	pr.Sweep = mergedSweep(ref.Sweep, pr.Stages, sweeps)
}

// sweepHeld is the sweep's held in the report's kind table: a capacity
// sweep's lowest highest-rate-held (0 for other sweeps).
func sweepHeld(p *rundir.PhaseResult) float64 {
	if p.Sweep == nil {
		return 0
	}
	return lowestHeld(p.Sweep)
}

// lowestHeld is a capacity sweep's lowest highest-rate-held over its
// points (what its verdict judges; 0 for other sweeps).
func lowestHeld(sw *rundir.SweepResult) float64 {
	low := -1.0
	for _, pt := range sw.Points {
		if pt.HighestRateHeld != nil && (low < 0 || *pt.HighestRateHeld < low) {
			low = *pt.HighestRateHeld
		}
	}
	return max(low, 0)
}

// mergedSweep is a sweep's points over the merged shards: each closed
// or rate point's figures from its merged stage (rates summed, latency
// from the merged histograms); a capacity sweep's points merged point
// by point over every shard's sweep (mergeCapacitySweep: each shard
// searched on its own).
func mergedSweep(ref *rundir.SweepResult, stages []rundir.StageResult, sweeps []*rundir.SweepResult) *rundir.SweepResult {
	if ref == nil {
		return nil
	}
	out := &rundir.SweepResult{Over: ref.Over, Measure: ref.Measure, Axis: ref.Axis, Points: append([]rundir.SweepPoint(nil), ref.Points...)}
	if ref.Measure == scenarios.MeasureCapacity {
		mergeCapacitySweep(out, sweeps)
		return out
	}
	for i := range out.Points {
		for j := range stages {
			if stages[j].Name == out.Points[i].Label {
				rundir.FillSweepPoint(&out.Points[i], &stages[j])
			}
		}
	}
	return out
}

// mergeCapacitySweep merges a capacity sweep's points across the
// shards' sweeps by label, in the first sweep's order (a label only a
// later shard has goes last): each shard searched its share, so the
// rates held and achieved and the counts add up; each op's latency is
// the worst shard's (an upper bound: the points' histograms are not
// kept).
func mergeCapacitySweep(out *rundir.SweepResult, sweeps []*rundir.SweepResult) {
	idx := map[string]int{}
	out.Points = nil
	for _, sw := range sweeps {
		if sw == nil || sw.Measure != scenarios.MeasureCapacity {
			continue
		}
		for _, pt := range sw.Points {
			i, ok := idx[pt.Label]
			if !ok {
				i = len(out.Points)
				idx[pt.Label] = i
				acc := pt
				acc.AchievedOpsPerSec, acc.Completed, acc.Errors, acc.Dropped, acc.TargetRate = 0, 0, 0, 0, 0
				acc.HighestRateHeld, acc.Ops = nil, map[string]rundir.SweepOp{}
				out.Points = append(out.Points, acc)
			}
			acc := &out.Points[i]
			acc.AchievedOpsPerSec += pt.AchievedOpsPerSec
			acc.TargetRate += pt.TargetRate
			acc.Completed += pt.Completed
			acc.Errors += pt.Errors
			acc.Dropped += pt.Dropped
			if pt.HighestRateHeld != nil {
				if acc.HighestRateHeld == nil {
					acc.HighestRateHeld = new(float64)
				}
				*acc.HighestRateHeld += *pt.HighestRateHeld
			}
			for op, o := range pt.Ops {
				a, seen := acc.Ops[op]
				if !seen {
					acc.Ops[op] = o
					continue
				}
				a.Count += o.Count
				a.P0 = min(a.P0, o.P0)
				a.P50, a.P99, a.P999 = max(a.P50, o.P50), max(a.P99, o.P99), max(a.P999, o.P999)
				acc.Ops[op] = a
			}
		}
	}
}
