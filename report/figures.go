package report

// The figures `soakd report --json` adds to summary.json: what the text
// table computes from it (verdicts in words, goodput, ratios, the
// capacity search's reason, change points and notes as lines).

import (
	"maps"
	"slices"

	"github.com/soakd/soakd/rundir"
)

// Figures are a run's computed figures.
type Figures struct {
	// Verdict is the text's last line: "SLO PASSED", "SLO FAILED", or
	// why none was given.
	Verdict string `json:"verdict"`
	// Rate is the rates the run scheduled, as the report's header says.
	Rate   string          `json:"rate"`
	Phases []PhaseFigures  `json:"phases"`
	Suite  string          `json:"suite_table,omitempty"` // the variants' or rounds' table, as text
	Title  string          `json:"title"`                 // the HTML page's title
	Failed []string        `json:"failed_checks,omitempty"`
	Bound  map[string]bool `json:"bound_phases,omitempty"` // phases soakd or the host limited
	// Seams are a resumed run's seams in words, times from the run's
	// start (SeamLine); none for a run never resumed.
	Seams []string `json:"seams,omitempty"`
}

// PhaseFigures are one phase's computed figures.
type PhaseFigures struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Verdict is the phase's verdict in words, as the report's contents
	// list shows it.
	Verdict      string  `json:"verdict"`
	AchievedRate float64 `json:"achieved_rate"`
	GoodputRate  float64 `json:"goodput_rate"`
	// ErrorRatio is errors over completed ops.
	ErrorRatio float64              `json:"error_ratio"`
	Ops        map[string]OpFigures `json:"ops,omitempty"`
	Stages     []StageFigures       `json:"stages,omitempty"`
	Checks     []string             `json:"checks,omitempty"`
	Changes    []string             `json:"change_points,omitempty"`
	Notes      []string             `json:"notes,omitempty"`
	Capacity   *CapacityFigures     `json:"capacity,omitempty"`
	// Accounting is the phase's scheduled = completed + dropped + lost
	// in words (AccountingLine), in a run with lost ops (a resumed one);
	// Unaccounted is how far it misses (0: exact).
	Accounting  string `json:"accounting,omitempty"`
	Unaccounted int64  `json:"unaccounted,omitempty"`
}

// OpFigures are one op's ratios.
type OpFigures struct {
	ErrorRatio float64 `json:"error_ratio"`
	MissRatio  float64 `json:"miss_ratio"`
}

// StageFigures are one stage's rates.
type StageFigures struct {
	Name         string  `json:"name"`
	TargetRate   float64 `json:"target_rate"`
	AchievedRate float64 `json:"achieved_rate"`
	GoodputRate  float64 `json:"goodput_rate"`
}

// CapacityFigures are a capacity search's answer and, when it held no
// rate, why.
type CapacityFigures struct {
	HighestRateHeld float64 `json:"highest_rate_held"`
	Why             string  `json:"why,omitempty"`
}

// BuildFigures computes s's figures (tl, nil when the run left no
// latency.hlog, adds the notes drawn from it).
func BuildFigures(s *rundir.Summary, tl *Timeline) Figures {
	f := Figures{Verdict: VerdictLine(s.Status, s.StatusReason, s.SLO) + boundSuffix(s), Rate: rateSummary(s)}
	f.Title = pageTitle([]*rundir.Summary{s})
	for _, c := range s.SLO.Checks {
		if !c.Passed {
			f.Failed = append(f.Failed, c.Phase+": "+c.String())
		}
	}
	if st := variantSuite(s); st != nil {
		f.Suite = st.Text()
	}
	for _, sm := range s.Seams {
		f.Seams = append(f.Seams, SeamLine(sm, s.Start))
	}
	lost := s.ShowsLost()
	notes := map[string][]string{}
	for _, pp := range BuildReport(s, tl).Phases {
		notes[pp.Phase] = pp.Notes
	}
	for i := range s.Phases {
		p := &s.Phases[i]
		pf := PhaseFigures{Name: p.Name, Kind: string(p.Kind), AchievedRate: p.AchievedRate, GoodputRate: p.Goodput(), Notes: notes[p.Name]}
		pf.Verdict, _ = phaseVerdict(p)
		if p.Completed > 0 {
			pf.ErrorRatio = float64(p.Errors) / float64(p.Completed)
		}
		for _, op := range slices.Sorted(maps.Keys(p.Ops)) {
			o := p.Ops[op]
			if o.Count == 0 {
				continue
			}
			if pf.Ops == nil {
				pf.Ops = map[string]OpFigures{}
			}
			var errs int64
			for _, n := range o.Errors {
				errs += n
			}
			pf.Ops[op] = OpFigures{ErrorRatio: float64(errs) / float64(o.Count), MissRatio: missRatio(o)}
		}
		for _, st := range p.Stages {
			pf.Stages = append(pf.Stages, StageFigures{Name: st.Name, TargetRate: st.TargetRate, AchievedRate: st.AchievedRate, GoodputRate: st.Goodput()})
		}
		if p.SLO != nil {
			for _, c := range p.SLO.Checks {
				pf.Checks = append(pf.Checks, c.String())
			}
		}
		for _, c := range p.ChangePoints {
			pf.Changes = append(pf.Changes, ChangeLine(c))
		}
		pf.Capacity = capacityFigures(p)
		if lost {
			pf.Accounting, pf.Unaccounted = AccountingLine(&p.Result), p.Unaccounted()
		}
		if p.Self != nil && p.Self.Bound != "" {
			if f.Bound == nil {
				f.Bound = map[string]bool{}
			}
			f.Bound[p.Name] = true
		}
		f.Phases = append(f.Phases, pf)
	}
	return f
}
