package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// Resuming a phase made of stages run one after another (a ramp's
// steps, a sweep's points, a capacity search's probes): its executor
// keeps, in the run's checkpoints, the stages it finished, their
// figures summed, and the search so far (stagedState). Each stage's end
// is checkpointed at once (stageDone), so a kill between two stages
// loses nothing of the one before; a resumed run skips the stages
// finished, goes on with the one it was killed in on its absolute
// schedule (segment.resume), or starts the next afresh when the kill
// came between them.

// stagedState is a staged phase's own checkpoint.
type stagedState struct {
	// Done counts the units finished, in the order they run: a ramp's
	// steps, a sweep's points.
	Done   int                  `json:"done"`
	Stages []rundir.StageResult `json:"stages,omitempty"`
	Acc    accState             `json:"acc"`
	// EndedEarly is the phase's, once one of its stages ended early.
	EndedEarly *rundir.EarlyEnd `json:"ended_early,omitempty"`
	// Curve is the running capacity search's probes so far: their
	// verdicts replay the search (and its confirmation) up to where it
	// was. Settled is how long the settling before the running probe
	// took (a probe resumed in its middle is not settled again).
	Curve   []rundir.CapacityPoint `json:"curve,omitempty"`
	Settled time.Duration          `json:"settled,omitempty"`
	// Points are a sweep's finished points, by their index in the
	// scenario.
	Points []sweepPointDone `json:"points,omitempty"`
}

// sweepPointDone is one finished sweep point.
type sweepPointDone struct {
	Index int               `json:"index"`
	Point rundir.SweepPoint `json:"point"`
}

// accState is a sum of segments (segResult) as a checkpoint keeps it.
type accState struct {
	Start          time.Time     `json:"start,omitzero"`
	End            time.Time     `json:"end,omitzero"`
	Total          []byte        `json:"total,omitempty"`
	Scheduled      uint64        `json:"scheduled"`
	Elapsed        time.Duration `json:"elapsed"`
	Drain          time.Duration `json:"drain"`
	WarmTail       int64         `json:"warm_tail,omitempty"`
	WarmTailErrors int64         `json:"warm_tail_errors,omitempty"`
	Lost           lostOps       `json:"lost"`
}

func encodeAcc(s *segResult) accState {
	return accState{Start: s.Start, End: s.End, Total: encodeSet(s.Total), Scheduled: s.Scheduled, Elapsed: s.Elapsed, Drain: s.Drain,
		WarmTail: s.WarmTail, WarmTailErrors: s.WarmTailErrors, Lost: s.lost}
}

// decode is the sum a for a set of ops.
func (a accState) decode(ops []scenarios.Op) (*segResult, error) {
	t, err := decodeSet(a.Total, ops)
	if err != nil {
		return nil, err
	}
	return &segResult{Start: a.Start, End: a.End, Total: t, Scheduled: a.Scheduled, Elapsed: a.Elapsed, Drain: a.Drain,
		WarmTail: a.WarmTail, WarmTailErrors: a.WarmTailErrors, lost: a.Lost}, nil
}

// stagedResume is the staged phase's state in the checkpoint it is
// resumed from, with its figures so far put into acc and its stages
// into pr (nil: it starts afresh). between says the checkpoint was
// taken between two stages: the caller notes the seam (seamBetween)
// when it starts the next.
func (e *phaseEnv) stagedResume(acc *phaseAcc, pr *rundir.PhaseResult) (st *stagedState, between bool, err error) {
	p := e.resume
	if p == nil || len(p.state) == 0 {
		return nil, false, nil
	}
	st = &stagedState{}
	if err := json.Unmarshal(p.state, st); err != nil {
		return nil, false, &ResumeError{fmt.Sprintf("phase %s: %v", e.ph.Name, err)}
	}
	sum, err := st.Acc.decode(nil)
	if err != nil {
		return nil, false, &ResumeError{fmt.Sprintf("phase %s: %v", e.ph.Name, err)}
	}
	acc.sum.Total.Merge(sum.Total)
	sum.Total = acc.sum.Total
	acc.sum = *sum
	pr.Stages = st.Stages
	pr.EndedEarly = st.EndedEarly
	return st, p.seg == nil, nil
}

// seamBetween notes the seam of a resume from a checkpoint taken
// between two stages: nothing was lost (the stage starts afresh).
func (e *phaseEnv) seamBetween(stage string) {
	if p := e.resume; p != nil && p.seam != nil {
		p.seam(rundir.Seam{Phase: e.ph.Name, Stage: stage, Down: p.down.UTC(), Resumed: e.time.now().UTC()})
	}
}

// stageDone keeps a staged phase's state v after one of its stages
// ended and writes a checkpoint at once: a kill before the next
// stage's first checkpoint loses nothing of it.
func (c *checkpointer) stageDone(v any) {
	if c == nil {
		return
	}
	c.setPhaseState(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeLocked(nil)
}
