package report

import "github.com/soakd/soakd/rundir"

// mergeCapacity is a capacity search's merge in the report's kind
// table: the rates the shards held add up, the first bound shard's
// bound and note (naming it) are kept, and every shard's curve is
// drawn, each point naming its shard.
func mergeCapacity(pr, _ *rundir.PhaseResult, shards []shardPhase) {
	for _, s := range shards {
		c := s.p.Capacity
		if c == nil {
			continue
		}
		if pr.Capacity == nil {
			pr.Capacity = &rundir.CapacityResult{}
		}
		pr.Capacity.HighestRateHeld += c.HighestRateHeld
		if c.Bound != "" && pr.Capacity.Bound == "" {
			pr.Capacity.Bound, pr.Capacity.Note = c.Bound, "shard "+s.label+": "+c.Note
		}
		for _, pt := range c.Curve {
			pt.Shard = s.label
			pr.Capacity.Curve = append(pr.Capacity.Curve, pt)
		}
	}
}

// capacityHeld is the capacity search's held in the report's kind
// table: the highest rate it held.
func capacityHeld(p *rundir.PhaseResult) float64 {
	if p.Capacity == nil {
		return 0
	}
	return p.Capacity.HighestRateHeld
}
