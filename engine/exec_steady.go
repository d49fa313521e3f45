package engine

import (
	"context"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
)

// steadyExec runs a steady phase: one segment at the phase's rate (0:
// closed loop) for its duration or its requests, whichever ends first,
// after its warmup.
type steadyExec struct{ sloJudged }

func (steadyExec) run(ctx context.Context, env *phaseEnv, pr *rundir.PhaseResult) (*metrics.Set, error) {
	mix, err := env.phaseMix()
	if err != nil {
		return nil, err
	}
	s := env.base
	s.Mix, s.Source = mix, env.mix
	s.Limit = uint64(env.ph.Requests) // 0 = by duration alone
	if s.Warmup > 0 {
		pr.WarmupSeconds = s.Warmup.Seconds()
	}
	return env.runSegments(ctx, pr, mix, []segment{s}, nil)
}
