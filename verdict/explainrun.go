package verdict

import (
	"time"

	"github.com/soakd/soakd/rundir"
)

// ExplainChanges sets the explanation of every change point of s's
// phases from the run's server log in dir: the stretch before the
// change (from the measured window's start, or the op's previous change
// of the same metric) is the reference, the stretch after it (to the
// next change, or the phase's end) the window judged. A run without a
// server log gets the label unknown. soakd's own health comes from the
// run's self log: the stretch after the change judged by the bound rule
// on its own samples (a CPU hog that began mid-phase makes its change
// generator-bound even when the whole phase was not), and soakd's mean
// CPU before and after; a phase bound as a whole is bound throughout.
func ExplainChanges(dir string, s *rundir.Summary) {
	samples, _ := rundir.ReadServerLog(dir) // none: explained from the self record alone
	self, _ := rundir.ReadSelfLog(dir)
	cores := 0
	if s.Host != nil {
		cores = s.Host.Cores
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		from, end := steadyWindow(p)
		for k := range p.ChangePoints {
			c := &p.ChangePoints[k]
			refFrom, winTo := from, end
			for _, o := range p.ChangePoints {
				if o.Op != c.Op || o.Metric != c.Metric {
					continue
				}
				if o.At.Before(c.At) && o.At.After(refFrom) {
					refFrom = o.At
				}
				if o.At.After(c.At) && o.At.Before(winTo) {
					winTo = o.At
				}
			}
			added := 0.0
			if c.Metric == rundir.MetricP50 || c.Metric == rundir.MetricP99 || c.Metric == rundir.MetricP999 {
				added = c.After - c.Before
			}
			x := explainStretch(samples, self, cores, p, c.Op, added, refFrom, c.At, c.At, winTo)
			c.Explain = &x
		}
	}
}

// explainStretch explains a change between two stretches of one phase.
func explainStretch(samples []rundir.ServerSample, self []rundir.SelfSample, cores int, p *rundir.PhaseResult, op string, added float64, refFrom, refTo, winFrom, winTo time.Time) Explanation {
	e := Evidence{ClientAdded: added}
	if p.Self != nil {
		e.Bound, e.BoundWhy = p.Self.Bound, p.Self.Reason
		e.Cores = p.Self.Cores
		e.SelfCPU = [2]float64{p.Self.CPUMean, p.Self.CPUMean}
	}
	if e.Cores == 0 {
		e.Cores = cores
	}
	if ref, win := selfStretch(self, e.Cores, refFrom, refTo), selfStretch(self, e.Cores, winFrom, winTo); ref != nil && win != nil {
		e.SelfCPU = [2]float64{ref.CPUMean, win.CPUMean}
		if e.Bound == "" && win.Bound != "" {
			e.Bound, e.BoundWhy = win.Bound, win.Reason+", after the change"
		}
	}
	ref := ServerWindowOf(samples, refFrom, refTo, op)
	win := ServerWindowOf(samples, winFrom, winTo, op)
	e.Ref, e.Win = ref.Events, win.Events
	e.Server = CompareServer([]ServerWindow{ref}, []ServerWindow{win}, BootstrapOptions{Seed: opSeed(p.Name, op)})
	return Attribute(e)
}

// ExplainCliff explains the cliff at stage k of a growth phase from the
// stages' server figures (each stage's snapshot at its end): the window
// is stage k (from stage k-1's end) and op the cliff's ("": the stage's first), the reference stage k-1 (from
// stage k-2's end); one interval a side, so the server's ratio is a
// point estimate. Writes refused for memory (the oom reason) count as
// memory/swap.
func ExplainCliff(stages []rundir.StageResult, k int, op string, oom bool) Explanation {
	var e Evidence
	st := &stages[k]
	if st.Self != nil {
		e.Bound, e.BoundWhy, e.Cores = st.Self.Bound, st.Self.Reason, st.Self.Cores
		e.SelfCPU[1] = st.Self.CPUMean
	}
	window := func(j int) ServerWindow {
		if j < 1 {
			return ServerWindow{}
		}
		samples := []rundir.ServerSample{{At: stages[j-1].End, Stats: stages[j-1].Server}, {At: stages[j].End, Stats: stages[j].Server}}
		return ServerWindowOf(samples, stages[j-1].End, stages[j].End, op)
	}
	if op == "" { // a cliff of the whole stage (rate, errors): the first op's command
		for o := range st.Ops {
			if op == "" || o < op {
				op = o
			}
		}
	}
	if k > 0 && stages[k-1].Self != nil {
		e.SelfCPU[0] = stages[k-1].Self.CPUMean
	}
	if c := stageCliffAdded(stages, k, op); c > 0 {
		e.ClientAdded = c
	}
	ref, win := window(k-1), window(k)
	e.Ref, e.Win = ref.Events, win.Events
	e.Server = CompareServer([]ServerWindow{ref}, []ServerWindow{win}, BootstrapOptions{})
	x := Attribute(e)
	if oom && x.Cause != rundir.CauseBound {
		x.Cause, x.Why = rundir.CauseMemory, "writes were refused for memory or the server was OOM-killed"
	}
	return x
}

// selfStretch is soakd's own health over the self log's samples in
// (from, to], judged by the bound rule (nil with no sample there).
func selfStretch(self []rundir.SelfSample, cores int, from, to time.Time) *rundir.SelfHealth {
	acc := NewSelfAcc(cores)
	for _, x := range self {
		if x.At.After(from) && !x.At.After(to) {
			acc.Add(x.Sample)
		}
	}
	return acc.Health(0)
}

// stageCliffAdded is how much op's p99 grew from stage k-1 to stage k
// (0 when either is unknown).
func stageCliffAdded(stages []rundir.StageResult, k int, op string) float64 {
	if k < 1 {
		return 0
	}
	a, okA := stages[k-1].Ops[op]
	b, okB := stages[k].Ops[op]
	if !okA || !okB || a.Latency.P99 <= 0 || b.Latency.P99 <= 0 {
		return 0
	}
	return b.Latency.P99 - a.Latency.P99
}
