package report

// The report's kind table: what summary.txt and report.html show of a
// phase of each kind beyond what every phase gets, and what the rest of
// the package asks of a kind. A kind's sections live in its own file
// (phase_<kind>.go); a new kind is that file and an entry here.

import (
	"strings"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// kindReport is one kind's entry. Its zero value is a plain phase: one
// workload at one rate, no sections of its own (also a phase whose kind
// is unknown, rebuilt from a log without run.json).
type kindReport struct {
	// text writes the kind's result in summary.txt (a merged run's
	// too), after the phase's stage lines.
	text func(b *strings.Builder, p *rundir.PhaseResult)
	// section is the kind's notes and charts on report.html, after the
	// phase's latency over time and before its percentile spectrum.
	section func(p *rundir.PhaseResult) (notes []string, plots []Plot)
	// sideBySide puts sections of the kind's own among the page's
	// phases: growth's persistence variants drawn together.
	sideBySide func(s *rundir.Summary, phases []PhasePlots) []PhasePlots
	// merge fills the kind's own results of pr, a phase merged over
	// the shards (soakd report DIR...), from shard 0's phase ref and
	// every shard's (shards, in shard order), after the phase's figures
	// and stages are merged.
	merge func(pr, ref *rundir.PhaseResult, shards []shardPhase)
	// held is the rate one shard's phase held (a capacity search's
	// result), summed over the shards when a merged run is re-judged.
	held func(p *rundir.PhaseResult) float64
	// overTime: its ops get the mean p99 over the run's buckets after
	// the warmup (FillOverTime).
	overTime bool
	// suiteTest: a test of the side-by-side table (BuildSuite), one
	// rate over one window.
	suiteTest bool
	// staged: its stages change the rate on purpose, so change points
	// leave the rate out, and the log holds no warmup to skip.
	staged bool
	// variedWorkload: its points change the workload on purpose, so it
	// has no change points; its own table and chart compare the points.
	variedWorkload bool
}

// reportOf is kind k's entry; ok is false for a kind the table does not
// know, whose phases are shown as plain ones.
func reportOf(k scenarios.PhaseKind) (kr kindReport, ok bool) {
	switch k {
	case scenarios.PhaseLoad:
		return kindReport{suiteTest: true}, true
	case scenarios.PhaseSteady:
		return kindReport{overTime: true, suiteTest: true}, true
	case scenarios.PhaseRamp:
		return kindReport{section: rampSection, staged: true}, true
	case scenarios.PhaseCapacity:
		return kindReport{text: writeCapacity, section: capacitySection, merge: mergeCapacity, held: capacityHeld, staged: true}, true
	case scenarios.PhaseGrowth:
		return kindReport{text: writeGrowth, section: growthSection, sideBySide: withVariantComparison, staged: true}, true
	case scenarios.PhaseSweep:
		return kindReport{text: writeSweep, section: sweepSection, merge: mergeSweep, held: sweepHeld, variedWorkload: true}, true
	case scenarios.PhaseReplay:
		return kindReport{text: writeReplay}, true
	}
	return kindReport{}, false
}

// kindOf is the entry of p's kind (the zero entry for an unknown kind).
func kindOf(p *rundir.PhaseResult) kindReport {
	kr, _ := reportOf(p.Kind)
	return kr
}

// writeKindText writes p's kind's own lines of summary.txt, if any.
func writeKindText(b *strings.Builder, p *rundir.PhaseResult) {
	if f := kindOf(p).text; f != nil {
		f(b, p)
	}
}

// kindSection is p's kind's own notes and charts on report.html.
func kindSection(p *rundir.PhaseResult) (notes []string, plots []Plot) {
	if f := kindOf(p).section; f != nil {
		return f(p)
	}
	return nil, nil
}

// withSideBySide adds every kind's side-by-side sections to a page's
// phases, in the kinds' order.
func withSideBySide(s *rundir.Summary, phases []PhasePlots) []PhasePlots {
	for _, k := range scenarios.PhaseKinds() {
		if kr, _ := reportOf(k); kr.sideBySide != nil {
			phases = kr.sideBySide(s, phases)
		}
	}
	return phases
}
