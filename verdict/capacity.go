package verdict

import (
	"math"
	"sort"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// Capacity search bounds.
const (
	// MinCapacityRate is the lowest rate a search tries below start.
	MinCapacityRate = 1
	maxBisectProbes = 16
)

// SearchCapacity is the search itself (rates are whole ops/s): step up by
// Factor from Start to Max while probes pass, then bisect between the
// last good and the first bad rate until hi/lo-1 < Precision. When
// Start itself fails, it steps down by Factor (to 1 op/s at the least)
// until a probe passes and bisects above that. It returns the highest
// rate that passed (0 if none did).
func SearchCapacity(c scenarios.CapacitySpec, probe func(rate float64) bool) float64 {
	lo, hi := 0.0, 0.0
	for rate := math.Round(c.Start); ; {
		if !probe(rate) {
			hi = rate
			break
		}
		lo = rate
		if rate >= c.Max {
			break
		}
		rate = math.Round(math.Min(rate*c.Factor, c.Max))
	}
	for lo == 0 && hi > MinCapacityRate {
		rate := math.Max(MinCapacityRate, math.Round(hi/c.Factor))
		if rate >= hi {
			break
		}
		if probe(rate) {
			lo = rate
			break
		}
		hi = rate
	}
	if lo > 0 && hi > 0 {
		for n := 0; n < maxBisectProbes && hi/lo-1 >= c.Precision; n++ {
			mid := math.Round((lo + hi) / 2)
			if mid <= lo || mid >= hi {
				break
			}
			if probe(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
	}
	return lo
}

// maxRechecks bounds the re-probes of the rates that passed.
const maxRechecks = 3

// ConfirmCapacity probes a finished search's answer again. curve is
// every probe so far. It re-probes the highest rate that passed and has
// never failed; if that fails now, the next lower such rate, and so on
// (at most maxRechecks probes); then the lowest rate above the answer
// that failed, once more, unless it has both passed and failed already.
// It returns the highest rate that passed every probe of it (0 if none
// did): a rate that held once and failed on its re-probe is not held.
func ConfirmCapacity(curve []rundir.CapacityPoint, probe func(rate float64) bool) float64 {
	type tally struct{ pass, fail int }
	seen := map[float64]*tally{}
	note := func(rate float64, ok bool) {
		t := seen[rate]
		if t == nil {
			t = &tally{}
			seen[rate] = t
		}
		if ok {
			t.pass++
		} else {
			t.fail++
		}
	}
	for _, pt := range curve {
		note(pt.Rate, pt.Passed)
	}
	clean := func() []float64 { // rates that passed and never failed, highest first
		var rs []float64
		for r, t := range seen {
			if t.pass > 0 && t.fail == 0 {
				rs = append(rs, r)
			}
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(rs)))
		return rs
	}
	for n := 0; n < maxRechecks; n++ {
		rs := clean()
		if len(rs) == 0 {
			break
		}
		ok := probe(rs[0])
		note(rs[0], ok)
		if ok {
			break
		}
	}
	held := 0.0
	if rs := clean(); len(rs) > 0 {
		held = rs[0]
	}
	first := -1.0
	for r, t := range seen {
		if r > held && t.fail > 0 && (first < 0 || r < first) {
			first = r
		}
	}
	if first > 0 && seen[first].pass == 0 && seen[first].fail < 2 {
		note(first, probe(first))
	}
	if rs := clean(); len(rs) > 0 {
		held = rs[0]
	}
	return held
}

// Confirmation sums up every probe of the rate held and of the lowest
// rate above it that failed: how many passed, and the spread of the
// achieved and successful rates and of each op's p99 they saw. Nil when
// nothing was held.
func Confirmation(curve []rundir.CapacityPoint, held float64) *rundir.CapacityConfirmation {
	if held <= 0 {
		return nil
	}
	c := &rundir.CapacityConfirmation{Held: rateRun(curve, held)}
	first := -1.0
	for _, pt := range curve {
		if pt.Rate > held && !pt.Passed && (first < 0 || pt.Rate < first) {
			first = pt.Rate
		}
	}
	if first > 0 {
		c.FirstFailed = rateRun(curve, first)
	}
	h := c.Held
	c.Confirmed = h.Probes >= 2 && h.Passed == h.Probes &&
		(c.FirstFailed == nil || (c.FirstFailed.Probes >= 2 && c.FirstFailed.Passed == 0))
	return c
}

// rateRun gathers the probes of one rate.
func rateRun(curve []rundir.CapacityPoint, rate float64) *rundir.CapacityRateRun {
	r := &rundir.CapacityRateRun{Rate: rate, P99Min: map[string]float64{}, P99Max: map[string]float64{}}
	for _, pt := range curve {
		if pt.Rate != rate {
			continue
		}
		if r.Probes == 0 {
			r.AchievedMin, r.AchievedMax, r.GoodputMin, r.GoodputMax = pt.Achieved, pt.Achieved, pt.Goodput, pt.Goodput
		}
		r.Probes++
		if pt.Passed {
			r.Passed++
		}
		r.AchievedMin, r.AchievedMax = math.Min(r.AchievedMin, pt.Achieved), math.Max(r.AchievedMax, pt.Achieved)
		r.GoodputMin, r.GoodputMax = math.Min(r.GoodputMin, pt.Goodput), math.Max(r.GoodputMax, pt.Goodput)
		for op, v := range pt.P99 {
			if lo, ok := r.P99Min[op]; !ok || v < lo {
				r.P99Min[op] = v
			}
			if hi, ok := r.P99Max[op]; !ok || v > hi {
				r.P99Max[op] = v
			}
		}
	}
	return r
}
