package engine

import (
	"time"

	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
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

// downStage is the growth stage whose batch insert the server died in:
// its inserts (load, from start to end), the records they made, and
// nothing measured.
func downStage(name string, load *rundir.Result, start, end time.Time, records int64) rundir.StageResult {
	return rundir.StageResult{Name: name, Start: start.UTC(), End: end.UTC(), Records: records, Load: load}
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
	k := len(pr.Stages) - 1
	if pr.Kind != scenarios.PhaseGrowth || down.oomKills <= 0 || k < 0 {
		return
	}
	if c := pr.Cliff; c != nil && !c.Unconfirmed && c.StageIndex < k {
		return // the store's cliff came first; the kill ended the phase after it
	}
	st := &pr.Stages[k]
	// The kill count was read from the server's cgroup as it ended,
	// within this stage: its closing figure.
	st.Server = maps.Clone(st.Server)
	if st.Server == nil {
		st.Server = map[string]float64{}
	}
	st.Server["cgroup_oom_kills_total"] = down.oomKills
	var prev *rundir.StageResult
	base := 0.0
	if k > 0 {
		prev = &pr.Stages[k-1]
		base = prev.Server["cgroup_oom_kills_total"]
	}
	ev := []rundir.CliffEvidence{{Reason: rundir.CliffOOM, Op: "cgroup_oom_kills_total", Value: down.oomKills, Baseline: base, Threshold: base}}
	if pr.Cliff != nil && pr.Cliff.StageIndex == k {
		ev = append(ev, pr.Cliff.Evidence...)
	}
	c := &rundir.Cliff{Stage: st.Name, StageIndex: k, Op: "cgroup_oom_kills_total", Reason: rundir.CliffOOM,
		Value: down.oomKills, Baseline: base, Records: st.Records, UsedMemoryBytes: st.Server["used_memory_bytes"], Evidence: ev}
	c.Signals = []string{oomWhy(down.reason)}
	for _, sig := range verdict.Signals(prev, st) {
		if !strings.HasPrefix(sig, "cgroup_oom_kill:") { // said above, in words
			c.Signals = append(c.Signals, sig)
		}
	}
	x := verdict.ExplainCliff(pr.Stages, k, "", true)
	c.Explain = &x
	pr.Cliff = c
	if r.opts.Exporter != nil {
		r.opts.Exporter.SetCliff(pr.Name, c.Stage, c.Reason, st.Start)
	}
}

// oomWhy is the part of a down reason that says what the kernel did
// ("OOM-killed by the kernel: its cgroup's memory cap (32.0 MB) was
// reached (oom_kill 1)"), without the pid and the server's last output.
func oomWhy(reason string) string {
	if i := strings.Index(reason, "OOM-killed"); i >= 0 {
		reason = reason[i:]
	}
	if i := strings.Index(reason, "; last output:"); i >= 0 {
		reason = reason[:i]
	}
	return reason
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
