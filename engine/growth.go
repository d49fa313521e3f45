package engine

import (
	"maps"
	"strings"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// A growth phase whose managed server the kernel OOM-killed (variantDown)
// has its cliff at the stage the kill came in, reason oom; a stage whose
// batch insert the kill ended is kept with its inserts.

// downStage is the growth stage whose batch insert the server died in:
// its inserts (load, from start to end), the records they made, and
// nothing measured.
func downStage(name string, load *rundir.Result, start, end time.Time, records int64) rundir.StageResult {
	return rundir.StageResult{Name: name, Start: start.UTC(), End: end.UTC(), Records: records, Load: load}
}

// oomCliff puts phase pr's cliff at its last stage when it is a growth
// phase whose server was OOM-killed (down), unless a confirmed cliff
// came before it.
func (r *runner) oomCliff(pr *rundir.PhaseResult, down *targetDownError) {
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
