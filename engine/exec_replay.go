package engine

import (
	"context"
	"fmt"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// replayExec runs a replay phase: one segment that sends the phase's
// indexed capture (replay.go) on its captured timing, or at its rate,
// through the same dispatcher as a steady phase.
type replayExec struct{ sloJudged }

func (replayExec) run(ctx context.Context, env *phaseEnv, pr *rundir.PhaseResult) (*metrics.Set, error) {
	ph, p := env.ph, env.replay
	if p == nil {
		return nil, fmt.Errorf("phase %s: its capture was not indexed", ph.Name)
	}
	s := env.base
	s.Mix = p.mix
	s.Source, s.Pacing = p, p.sched
	s.Rate = p.rate
	s.Limit = p.limit
	if !ph.Replay.Loop {
		// Bounded by the capture; a duration (if given) can cut it short.
		s.Duration = ph.Duration.D()
	}
	pr.Replay = p.result()
	return env.runSegments(ctx, pr, p.mix, []segment{s}, nil)
}

// refuseShards: a replay is not split across shards yet. Each shard
// would send the whole capture, so the store would take the captured
// traffic once per shard and the merged results would count it so.
func (replayExec) refuseShards(ph *scenarios.Phase, sh rundir.Shard) error {
	return fmt.Errorf("shard %s: phase %s (kind replay) cannot be sharded yet: every one of the %d shards would send the whole capture, %d times its traffic; run this scenario as one instance (no --shard, SOAKD_SHARD or SOAKD_SHARDS)", sh, ph.Name, sh.Count, sh.Count)
}
