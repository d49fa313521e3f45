package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// A managed server that dies mid-phase (the kernel's OOM killer in a
// growth study, a crash) ends the phase it ran: the phase says where and
// why, and a growth phase whose server was OOM-killed has its cliff at
// the stage the kill came in, reason oom.

// downCause is the target down that ended ctx, or nil.
func downCause(ctx context.Context) *targetDownError {
	var down *targetDownError
	if errors.As(context.Cause(ctx), &down) {
		return down
	}
	return nil
}

// variantDown marks phase pr when its target died while it ran (ctx's
// cause): ended early with the reason and, after an OOM kill in a growth
// phase, the cliff at its last stage (unless a confirmed cliff came
// before it).
func (r *runner) variantDown(ctx context.Context, pr *rundir.PhaseResult) {
	down := downCause(ctx)
	if down == nil {
		return
	}
	if pr.EndedEarly == nil {
		reason := down.Error()
		if n := len(pr.Stages); n > 0 {
			reason = "stage " + pr.Stages[n-1].Name + ": " + reason
		}
		pr.EndedEarly = &rundir.EarlyEnd{AtSeconds: pr.End.Sub(pr.Start).Seconds(), Reason: reason}
	}
	r.oomCliff(pr, down)
}

// downList is the variants of a run whose servers died, in order.
type downList []string

// add notes variant v when its pass (ctx) ended with its server down.
func (d *downList) add(ctx context.Context, v string) {
	down := downCause(ctx)
	if down == nil {
		return
	}
	if v == "" {
		*d = append(*d, down.reason)
		return
	}
	*d = append(*d, fmt.Sprintf("variant %s: %s", v, down.reason))
}

// err is the run's stop error when a server died (nil when none did):
// the variants it ended, the others ran.
func (d downList) err() error {
	if len(d) == 0 {
		return nil
	}
	return &targetDownError{reason: strings.Join(d, "; ")}
}
