package engine

import (
	"context"
	"fmt"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
)

// rampExec runs a ramp phase: its steps one after another, each a stage
// (step-N) at its own rate for its own duration, without warmup.
type rampExec struct{ sloJudged }

func (rampExec) run(ctx context.Context, env *phaseEnv, pr *rundir.PhaseResult) (*metrics.Set, error) {
	mix, err := env.phaseMix()
	if err != nil {
		return nil, err
	}
	base := env.base
	base.Mix, base.Source = mix, env.mix
	segs := make([]segment, 0, len(env.ph.Ramp.Steps))
	for i, st := range env.ph.Ramp.Steps {
		s := base
		s.Stage = fmt.Sprintf("step-%d", i+1)
		s.StageIndex = i + 1
		s.Rate = st.Rate
		s.Duration = st.Duration.D()
		s.Warmup = 0
		s.Seed = base.Seed + uint64(i+1)*0x632be59bd9b4e019
		segs = append(segs, s)
	}
	return env.runSegments(ctx, pr, mix, segs, nil)
}
