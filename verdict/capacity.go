package verdict

import (
	"math"

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
