package engine

import (
	"context"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// loadExec runs a load phase: records 0..records-1 inserted in order
// (this shard's slice of them), at the phase's rate or closed loop,
// without warmup or duration. A load is not judged by the SLO.
type loadExec struct{}

func (loadExec) run(ctx context.Context, env *phaseEnv, pr *rundir.PhaseResult) (*metrics.Set, error) {
	mix, err := env.phaseMix()
	if err != nil {
		return nil, err
	}
	s := env.base
	s.Mix, s.Source = mix, env.mix
	s.Duration = 0
	s.Warmup = 0
	s.Limit = uint64(env.ph.Load.Records)
	s.Sequential = true
	return env.runSegments(ctx, pr, mix, []segment{s}, func(s *segment, res *segResult) {
		if n := loadedThrough(env.shard, s, res.Scheduled, env.ph.Load.Records); n > env.inserted.Load() {
			env.inserted.Store(n)
		}
	})
}

func (loadExec) judge(*rundir.PhaseResult, *verdict.Limits, *metrics.Set, *scenarios.OpTable) *rundir.Verdict {
	return nil
}

// loadedThrough returns the record count that exists once every shard
// has run load segment s of a phase of records (this shard scheduled n
// ops of it).
func loadedThrough(sh rundir.Shard, s *segment, n uint64, records int64) int64 {
	if sh.Count <= 1 || n < s.Limit {
		// One shard, or this one stopped early (cancelled): only its
		// own prefix is known.
		return s.KeyBase + int64(n)
	}
	return records
}

// loadRecords is the record count phase p loads: its records: when it
// is a load phase, else 0.
func loadRecords(p *scenarios.Phase) int64 {
	if p.Kind != scenarios.PhaseLoad || p.Load == nil {
		return 0
	}
	return p.Load.Records
}
