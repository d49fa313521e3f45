package engine

import (
	"maps"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/verdict"
)

// fillResult fills res from a measured set, naming its ops from ops (the
// run's table). tail is the number of
// warmup ops that completed inside the window: they count toward
// completed_in_window and the achieved rate (which go by completion
// time) but not toward the measured ops' figures. tailErrs of them
// failed: the goodput leaves them out with the measured ops that failed
// inside the window.
func fillResult(res *rundir.Result, s *metrics.Set, ops *scenarios.OpTable, scheduled uint64, elapsed, drain time.Duration, tail, tailErrs int64, classes []string) {
	if classes == nil {
		classes = targets.Classes()
	}
	res.Ops = map[string]rundir.OpResult{}
	good := tail - tailErrs // ops that succeeded inside the window
	res.Scheduled = scheduled
	res.DurationSeconds = elapsed.Seconds()
	for op, os := range s.Ops {
		if os == nil {
			continue
		}
		// Scheduled: a resume adds the op's lost ones (lostOps.apply).
		or := rundir.OpResult{Count: os.Count, Late: os.Late, Dropped: os.Dropped, Errors: map[string]int64{},
			Latency: metrics.Summarize(os.Latency), Service: metrics.Summarize(os.Service), Scheduled: uint64(os.Count + os.Dropped)}
		// The op's successes inside the window: completed in it, less
		// those of an error class.
		okIn := os.Count - os.Late
		for ci, n := range os.Classes {
			if ci < len(classes) && targets.IsError(classes[ci]) {
				okIn -= n - os.LateClasses[ci]
			}
			if ci == 0 || n == 0 || ci >= len(classes) {
				continue
			}
			if !targets.IsError(classes[ci]) {
				or.Misses += n
				res.Misses += n
				continue
			}
			or.Errors[classes[ci]] = n
			res.Errors += n
		}
		res.Dropped += os.Dropped
		res.Completed += os.Count
		res.CompletedInWindow += os.Count - os.Late
		if elapsed > 0 {
			or.GoodputRate = float64(okIn) / elapsed.Seconds()
		}
		good += okIn
		res.Ops[ops.Name(scenarios.Op(op))] = or
	}
	res.CompletedInWindow += tail
	res.DrainSeconds = drain.Seconds()
	if elapsed > 0 {
		res.AchievedRate = float64(res.CompletedInWindow) / elapsed.Seconds()
		res.GoodputRate = float64(good) / elapsed.Seconds()
	}
	res.Lag = metrics.Summarize(s.Lag)
	res.MaxLag = res.Lag.Max
}

// evaluate judges every non-load phase against the scenario's limits,
// on the phases' histograms (hist: a phase's measured set, nil when
// none was kept).
func evaluate(s *rundir.Summary, l *verdict.Limits, ops *scenarios.OpTable, hist func(phase string) *metrics.Set) {
	var vs []*verdict.Verdict
	for i := range s.Phases {
		p := &s.Phases[i]
		ex, ok := executorFor(p.Kind)
		if !ok {
			ex = steadyExec{}
		}
		p.SLO = ex.judge(p, l, hist(p.Name), ops)
		if mustSucceed(p.Kind) {
			// Every phase but a capacity search (which passes only on a
			// rate held) must have had ops that succeeded; a load is
			// judged by that alone.
			p.SLO = verdict.WithSucceeded(p.SLO, p.Name, p.Completed, p.Errors)
		}
		if p.SLO == nil {
			continue
		}
		vs = append(vs, p.SLO)
	}
	s.SLO = verdict.Run(s.Status != rundir.StatusInterrupted, vs...)
}

// judged is a phase's (or probe's) figures as the verdict package
// takes them, with its latency histograms from set (its ops named by
// ops, the run's table).
func judged(name string, r *rundir.Result, staged bool, set *metrics.Set, ops *scenarios.OpTable) verdict.Phase {
	p := verdict.Phase{Name: name, TargetRate: r.TargetRate, AchievedRate: r.AchievedRate, GoodputRate: r.Goodput(), Scheduled: r.Scheduled,
		Completed: r.Completed, Errors: r.Errors, Dropped: r.Dropped, Staged: staged, Ops: slices.Sorted(maps.Keys(r.Ops))}
	p.Latency = func(op string) *hdr.Histogram {
		o, ok := ops.Lookup(op)
		if !ok || set == nil || set.Ops[o] == nil {
			return nil
		}
		return set.Ops[o].Latency
	}
	return p
}
