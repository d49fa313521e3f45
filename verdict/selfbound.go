package verdict

import (
	"fmt"
	"math"

	"github.com/soakd/soakd/internal/selfhealth"
	"github.com/soakd/soakd/rundir"
)

// The generator- and host-bound rule (docs/verdicts.md, "Whose limit
// was it"): a phase is bound when one of these holds in more than
// BoundShare of its intervals (and in at least MinBoundIntervals of
// them). They are checked in this order; the first that holds names the
// phase's Bound.
const (
	// GeneratorCPUShare: soakd's process CPU above this share of the
	// cores it may use. memtier_benchmark warns at 95 % of its own CPU;
	// soakd's workers, pacer and collector need headroom to send on
	// time, so 90 %.
	GeneratorCPUShare = 0.9
	// HostStealRatio: the hypervisor stole more than this share of the
	// host's CPU time. Clouds call 10 % steal a noisy neighbour.
	HostStealRatio = 0.10
	// HostLoadPerCore: the 1-minute load above this many runnable tasks
	// per core: every thread, soakd's and a local store's, waited for a
	// CPU as long as it ran.
	HostLoadPerCore = 2.0
	// GeneratorRunqueueRatio: soakd's threads waited on a run queue more
	// than this many seconds per second per core it may use (summed over
	// threads) while the host was not overloaded by the measures above
	// (a cgroup or a pinned core it shares): runnable half the time and
	// not running. The sum grows with how often threads wake, not only
	// with starvation: 1,000 GET/s against a local redis-server on a
	// quiet 2-core host (load 0.9) summed 230-460 ms a second, which a
	// first rule of 100 ms a second called generator-bound in every run.
	GeneratorRunqueueRatio = 0.5
	// GeneratorDemandShare: soakd's process CPU plus its threads' run
	// queue wait above this share of the cores it may use: it wanted
	// them and got part (CPU 1.13 of 2 cores and 0.8 s a second of
	// waiting, an in-process CPU hog beside other work, passed both
	// rules above while its p50 rose x87). Checked last, so a figure that
	// names the cause alone comes first.
	GeneratorDemandShare = 0.9
	// BoundShare and MinBoundIntervals: how many intervals must show a
	// condition: more than a tenth of the phase, so a GC pause or a
	// neighbour's cron job in one interval does not void a verdict.
	BoundShare        = 0.10
	MinBoundIntervals = 2
)

// SelfAcc accumulates a phase's (or a stage's) samples of soakd's own
// health. The zero value is not usable: NewSelfAcc.
type SelfAcc struct {
	cores                             int
	n                                 int
	cpuSum, cpuMax, threadMax         float64
	rqSum, rqMax                      float64
	loadSum, loadMax                  float64
	stealSum, stealMax                float64
	demandMax                         float64
	cpuBusy, rqBusy, stealBusy, loadN int
	demandBusy                        int
}

// NewSelfAcc starts an accumulator for a soakd that may use cores CPUs
// (rundir.Host.Cores; 0 = unknown, and the rules on CPU and load are not
// applied).
func NewSelfAcc(cores int) *SelfAcc { return &SelfAcc{cores: cores} }

// Add takes one interval's sample.
func (a *SelfAcc) Add(s selfhealth.Sample) {
	a.n++
	a.cpuSum += s.CPU
	a.cpuMax = math.Max(a.cpuMax, s.CPU)
	a.threadMax = math.Max(a.threadMax, s.ThreadCPUMax)
	a.rqSum += s.RunqueueDelay
	a.rqMax = math.Max(a.rqMax, s.RunqueueDelay)
	a.loadSum += s.Load1
	a.loadMax = math.Max(a.loadMax, s.Load1)
	a.stealSum += s.Steal
	a.stealMax = math.Max(a.stealMax, s.Steal)
	if a.cores > 0 && s.CPU > GeneratorCPUShare*float64(a.cores) {
		a.cpuBusy++
	}
	if s.RunqueueDelay > GeneratorRunqueueRatio*float64(max(a.cores, 1)) {
		a.rqBusy++
	}
	if s.Steal > HostStealRatio {
		a.stealBusy++
	}
	demand := s.CPU + s.RunqueueDelay
	a.demandMax = math.Max(a.demandMax, demand)
	if a.cores > 0 && demand > GeneratorDemandShare*float64(a.cores) {
		a.demandBusy++
	}
	if a.cores > 0 && s.Load1 > HostLoadPerCore*float64(a.cores) {
		a.loadN++
	}
}

// Health is the record of the samples taken, judged by the rule (nil
// when there were none). lagP99 is the phase's schedule lag p99
// (seconds), kept beside it.
func (a *SelfAcc) Health(lagP99 float64) *rundir.SelfHealth {
	if a == nil || a.n == 0 {
		return nil
	}
	n := float64(a.n)
	h := &rundir.SelfHealth{
		Intervals: a.n, Cores: a.cores,
		CPUMean: a.cpuSum / n, CPUMax: a.cpuMax, ThreadCPUMax: a.threadMax,
		RunqueueDelayRatioMean: a.rqSum / n, RunqueueDelayRatioMax: a.rqMax,
		LoadMean: a.loadSum / n, LoadMax: a.loadMax, StealMean: a.stealSum / n, StealMax: a.stealMax,
		LagP99:       lagP99,
		CPUBusyShare: float64(a.cpuBusy) / n, RunqueueBusyShare: float64(a.rqBusy) / n,
		StealShare: float64(a.stealBusy) / n, LoadShare: float64(a.loadN) / n,
		DemandMax: a.demandMax, DemandBusyShare: float64(a.demandBusy) / n,
	}
	h.Bound, h.Reason = Bound(h)
	return h
}

// Bound applies the rule to a record: rundir.BoundGenerator,
// rundir.BoundHost or "", and the figure that decided it.
func Bound(h *rundir.SelfHealth) (bound, reason string) {
	if h == nil || h.Intervals == 0 {
		return "", ""
	}
	held := func(share float64) bool {
		return share > BoundShare && math.Round(share*float64(h.Intervals)) >= math.Min(MinBoundIntervals, float64(h.Intervals))
	}
	cores := float64(h.Cores)
	switch {
	case h.Cores > 0 && held(h.CPUBusyShare):
		return rundir.BoundGenerator, fmt.Sprintf("soakd CPU up to %.0f%% of %d cores, above %.0f%% in %.0f%% of intervals",
			100*h.CPUMax/cores, h.Cores, 100*GeneratorCPUShare, 100*h.CPUBusyShare)
	case held(h.StealShare):
		return rundir.BoundHost, fmt.Sprintf("CPU steal up to %.0f%%, above %.0f%% in %.0f%% of intervals",
			100*h.StealMax, 100*HostStealRatio, 100*h.StealShare)
	case h.Cores > 0 && held(h.LoadShare):
		return rundir.BoundHost, fmt.Sprintf("host load up to %.1f on %d cores, above %gx cores in %.0f%% of intervals",
			h.LoadMax, h.Cores, HostLoadPerCore, 100*h.LoadShare)
	case held(h.RunqueueBusyShare):
		return rundir.BoundGenerator, fmt.Sprintf("soakd's threads waited for a CPU up to %.0f ms a second, over %.0f ms in %.0f%% of intervals",
			1000*h.RunqueueDelayRatioMax, 1000*GeneratorRunqueueRatio*float64(max(h.Cores, 1)), 100*h.RunqueueBusyShare)
	case h.Cores > 0 && held(h.DemandBusyShare):
		return rundir.BoundGenerator, fmt.Sprintf("soakd's threads ran or waited for a CPU on up to %.2f of %d cores (CPU plus run-queue wait), above %.0f%% in %.0f%% of intervals",
			h.DemandMax, h.Cores, 100*GeneratorDemandShare, 100*h.DemandBusyShare)
	}
	return "", ""
}

// LimitBound says whether a capacity search's limit is the store's: when
// a probe at the limit (at the rate held, or at the lowest failed rate
// above it) was bound, the limit is soakd's or the host's, and note says
// so ("" when the limit is the store's).
func LimitBound(curve []rundir.CapacityPoint, held float64) (bound, note string) {
	failed := math.Inf(1)
	for _, p := range curve {
		if !p.Passed && p.Rate > held && p.Rate < failed {
			failed = p.Rate
		}
	}
	for _, p := range curve {
		if p.Bound == "" || (p.Rate != held && p.Rate != failed) {
			continue
		}
		if bound == "" || p.Bound == rundir.BoundGenerator {
			bound = p.Bound
		}
	}
	switch bound {
	case rundir.BoundGenerator:
		note = "the limit found is soakd's, not the store's: a probe at the limit was generator-bound (see its stage's self); give soakd more CPU or run shards"
	case rundir.BoundHost:
		note = "the limit found is the host's, not the store's: a probe at the limit was host-bound (CPU steal or load; see its stage's self)"
	}
	return bound, note
}

// boundPhase says whether a run's phase was generator- or host-bound.
func boundPhase(p *rundir.PhaseResult) bool { return p.Self != nil && p.Self.Bound != "" }

// noteBoundHistory notes, per phase of cand, how many history runs were
// left out of its noise model because they ran it bound (Compare): a
// bound run measured soakd or the host, so it would widen the history
// or drag its mean.
func noteBoundHistory(v *Regression, history []*rundir.Summary, cand *rundir.Summary) {
	for _, ph := range cand.Phases {
		n := 0
		for _, h := range history {
			if hp := phaseNamed(h, ph.Name); hp != nil && boundPhase(hp) {
				n++
			}
		}
		if n > 0 {
			v.Notes = append(v.Notes, fmt.Sprintf("phase %s: %d history run(s) left out, generator- or host-bound there", ph.Name, n))
		}
	}
}

// withholdBound withdraws the verdict on each op of v whose phase was
// generator- or host-bound in one of runs: its checks say "no verdict:
// <bound>-bound" instead, it does not regress the run, and a note gives
// the reason per run.
func withholdBound(v *Regression, runs ...*rundir.Summary) {
	why := map[string]string{} // phase -> withheld text
	for _, s := range runs {
		for i := range s.Phases {
			ph := &s.Phases[i]
			w := ph.Self.Withheld()
			if w == "" {
				continue
			}
			if _, seen := why[ph.Name]; !seen {
				why[ph.Name] = w
				v.Notes = append(v.Notes, fmt.Sprintf("phase %s of the run of %s: %s", ph.Name, s.Start.UTC().Format("2006-01-02T15:04:05Z"), w))
			}
		}
	}
	if len(why) == 0 {
		return
	}
	v.Regressed = false
	for i := range v.Ops {
		ov := &v.Ops[i]
		if w, ok := why[ov.Phase]; ok {
			ov.Withheld, ov.Regressed = w, false
			for k := range ov.Checks {
				ov.Checks[k].Regressed = false
				ov.Checks[k].Call = CallWithheld
			}
		}
		v.Regressed = v.Regressed || ov.Regressed
	}
}
