package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// addTargetRate draws the phase's target rate on its throughput chart:
// one line when it held one rate, else a "target rate" step series over
// the stages and live rate changes (each changed segment drawn at its
// rate before the change, not the time-weighted one summary.json gives).
func addTargetRate(pl *Plot, p *rundir.PhaseResult) {
	type step struct{ at, rate float64 }
	var steps []step
	for _, st := range p.Stages {
		if st.TargetRate > 0 && !st.Start.IsZero() {
			steps = append(steps, step{math.Max(0, st.Start.Sub(p.Start).Seconds()), st.TargetRate})
		}
	}
	if len(steps) == 0 && p.TargetRate > 0 {
		steps = append(steps, step{0, p.TargetRate})
	}
	// A segment whose rate changed live reports the time-weighted rate;
	// until its first change it ran at the rate that change replaced.
	base, fixed := len(steps), map[int]bool{}
	for _, c := range p.RateChanges {
		i := -1
		for j := 0; j < base; j++ {
			if steps[j].at <= c.OffsetSeconds {
				i = j
			}
		}
		if i >= 0 && !fixed[i] && c.FromRate > 0 {
			steps[i].rate, fixed[i] = c.FromRate, true
		}
		steps = append(steps, step{c.OffsetSeconds, c.Rate})
	}
	if len(steps) == 0 {
		return
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].at < steps[j].at })
	same := true
	for _, s := range steps {
		same = same && s.rate == steps[0].rate
	}
	if same {
		pl.Targets = append(pl.Targets, Point{Y: steps[0].rate, Label: "target " + rateStr(steps[0].rate)})
		return
	}
	end := round6(p.End.Sub(p.Start).Seconds())
	sr := Series{Name: "target rate"}
	for i, s := range steps {
		to := end
		if i+1 < len(steps) {
			to = steps[i+1].at
		}
		sr.Points = append(sr.Points, Point{X: round6(s.at), Y: s.rate}, Point{X: round6(to), Y: s.rate})
	}
	pl.Series = append(pl.Series, sr)
}

// sloTargets are the phase's latency checks on op as lines: at
// percentile pct only, or every percentile when pct is 0.
func sloTargets(p *rundir.PhaseResult, op string, pct float64) []Point {
	if p.SLO == nil {
		return nil
	}
	var out []Point
	for _, c := range p.SLO.Checks {
		if c.Metric != rundir.Latency || c.Op != op || (pct > 0 && c.Percentile != pct) {
			continue
		}
		out = append(out, Point{Y: c.Limit, Label: fmt.Sprintf("SLO %s %s %s %s", op, c.What, c.Cmp, fmtDur(c.Limit))})
	}
	return out
}

// specTargets are the phase's latency checks as lines on its spectrum:
// one line per check and limit, naming every op it holds for.
func specTargets(p *rundir.PhaseResult, ops []string) []Point {
	type key struct {
		what  string
		limit float64
	}
	byKey := map[key][]string{}
	var order []key
	if p.SLO == nil {
		return nil
	}
	for _, c := range p.SLO.Checks {
		if c.Metric != rundir.Latency {
			continue
		}
		k := key{c.What + " " + string(c.Cmp), c.Limit}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], c.Op)
	}
	var out []Point
	for _, k := range order {
		who := strings.Join(byKey[k], ", ")
		if len(byKey[k]) == len(ops) && len(ops) > 1 {
			who = "all ops"
		}
		out = append(out, Point{Y: k.limit, Label: fmt.Sprintf("SLO %s %s %s", who, k.what, fmtDur(k.limit))})
	}
	return out
}
