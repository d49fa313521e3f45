package verdict

import (
	"hash/fnv"
	"time"

	"github.com/soakd/soakd/rundir"
)

// serverLogs reads each run's server log once (by run directory).
type serverLogs map[string][]rundir.ServerSample

func (l serverLogs) of(s *rundir.Summary) []rundir.ServerSample {
	if s.Dir == "" {
		return nil
	}
	if got, ok := l[s.Dir]; ok {
		return got
	}
	got, _ := rundir.ReadServerLog(s.Dir) // a log that cannot be read explains nothing
	l[s.Dir] = got
	return got
}

// steadyWindow is a phase's measured window: from the warmup's end to
// its end.
func steadyWindow(p *rundir.PhaseResult) (time.Time, time.Time) {
	return p.Start.Add(time.Duration(p.WarmupSeconds * float64(time.Second))), p.End
}

// ExplainOp explains the difference of one op of one phase between the
// reference runs (baseline or history) and the judged runs: the server's
// own time and events from each run's server log over the phase's
// measured window, soakd's own health from each run's self record
// (Attribute states the rule).
func ExplainOp(ref, win []*rundir.Summary, phase, op string) Explanation {
	return explainOp(serverLogs{}, ref, win, phase, op, false)
}

// explainOp is ExplainOp; history leaves reference runs bound in the
// phase out (the history verdict left them out of its noise model)
// instead of calling the change bound.
func explainOp(logs serverLogs, ref, win []*rundir.Summary, phase, op string, history bool) Explanation {
	var e Evidence
	var p50 [2]float64
	side := func(runs []*rundir.Summary, i int) ([]ServerWindow, ServerEvents) {
		var ws []ServerWindow
		var ev ServerEvents
		var cpu, lat float64
		n, nl := 0, 0
		for _, s := range runs {
			p := phaseNamed(s, phase)
			if p == nil || (history && i == 0 && boundPhase(p)) {
				continue
			}
			if p.Self != nil {
				if p.Self.Bound != "" && e.Bound == "" {
					e.Bound, e.BoundWhy = p.Self.Bound, p.Self.Reason
				}
				cpu += p.Self.CPUMean
				n++
				e.Cores = max(e.Cores, p.Self.Cores)
			}
			if o, ok := p.Ops[op]; ok && o.Latency.P50 > 0 {
				lat += o.Latency.P50
				nl++
			}
			from, to := steadyWindow(p)
			w := ServerWindowOf(logs.of(s), from, to, op)
			ws = append(ws, w)
			ev = mergeEvents(ev, w.Events)
		}
		if n > 0 {
			e.SelfCPU[i] = cpu / float64(n)
		}
		if nl > 0 {
			p50[i] = lat / float64(nl)
		}
		return ws, ev
	}
	rw, rev := side(ref, 0)
	ww, wev := side(win, 1)
	e.Ref, e.Win = rev, wev
	if p50[0] > 0 && p50[1] > 0 {
		e.ClientAdded = p50[1] - p50[0]
	}
	e.Server = CompareServer(rw, ww, BootstrapOptions{Seed: opSeed(phase, op)})
	return Attribute(e)
}

// mergeEvents adds b's events to a's (several runs a side).
func mergeEvents(a, b ServerEvents) ServerEvents {
	for _, k := range b.Persistence {
		found := false
		for _, x := range a.Persistence {
			found = found || x == k
		}
		if !found {
			a.Persistence = append(a.Persistence, k)
		}
	}
	a.Forks += b.Forks
	a.Jobs += b.Jobs
	a.ForkMax = max(a.ForkMax, b.ForkMax)
	a.Evicted += b.Evicted
	a.SwapGrowth = max(a.SwapGrowth, b.SwapGrowth)
	a.Seconds += b.Seconds
	return a
}

// explainRegression explains each op of v that regressed or whose
// verdict was withheld (a bound phase): Explain on the op.
func explainRegression(v *Regression, ref, win []*rundir.Summary, history bool) {
	logs := serverLogs{}
	for i := range v.Ops {
		ov := &v.Ops[i]
		if !ov.Regressed && ov.Withheld == "" {
			continue
		}
		x := explainOp(logs, ref, win, ov.Phase, ov.Op, history)
		ov.Explain = &x
	}
}

// opSeed seeds an op's bootstrap from its phase and name.
func opSeed(phase, op string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(phase + "\x00" + op))
	return h.Sum64()
}
