package verdict

import "fmt"

// Call is the verdict on one cand/base ratio of a latency figure
// (above 1 = the candidate is slower).
type Call string

// Calls, from the interval [Lo, Hi] of the ratio and the threshold t:
//
//	REGRESSION    Lo > 1+t: slower, and by more than t even at the
//	              interval's favourable end
//	slower, below threshold
//	              1 < Lo <= 1+t: slower beyond noise, but not shown
//	              to be slower by more than t
//	within noise  Lo <= 1 <= Hi: no significant difference
//	faster        Hi < 1
//	too few ops   fewer than MinBeyond ops beyond the percentile on a
//	              side (TailCall): no call either way
//	inconclusive  the within-run interval clears 1+t but the interval
//	              widened by the between-run drift does not (drift.go):
//	              slower than the runs' seconds explain, not more than
//	              two runs of the same thing differ
//	no verdict: bound
//	              the phase was generator- or host-bound in a run
//	              (selfbound.go): what was measured was not the store
const (
	CallRegression  Call = "REGRESSION"
	CallSlower      Call = "slower, below threshold"
	CallWithinNoise Call = "within noise"
	CallFaster      Call = "faster"
	CallNoData      Call = "no data"
	CallTooFew      Call = "too few ops"
	CallWithheld    Call = "no verdict: bound"
	CallDrift       Call = "inconclusive: within between-run drift"
)

// MinBeyond is how many ops a side needs beyond a percentile for a call
// on it: a percentile bootstrap of a high quantile is not trustworthy
// when only a handful of values lie past it (the resampled p99 of 600
// ops is one of its 6 largest, and their spread is the interval). 10
// beyond means 1,000 ops for p99 and 10,000 for p99.9 on each side.
const MinBeyond = 10

// TailCall is Decide for percentile q (0..100) of sides of n[0] and
// n[1] ops: CallTooFew when either has fewer than MinBeyond ops past
// it.
func TailCall(iv Interval, threshold, q float64, n [2]int64) Call {
	for _, c := range n {
		// (1e-9: 10,000 x 0.1% is 10, not 9.999...)
		if float64(c)*(100-q)/100 < MinBeyond-1e-9 {
			return CallTooFew
		}
	}
	return Decide(iv, threshold)
}

// Decide calls a latency ratio (cand/base) from its interval: a
// regression only when the whole interval lies above 1+threshold.
func Decide(iv Interval, threshold float64) Call {
	switch {
	case !iv.Valid():
		return CallNoData
	case iv.Lo > 1+threshold:
		return CallRegression
	case iv.Lo > 1:
		return CallSlower
	case iv.Hi < 1:
		return CallFaster
	}
	return CallWithinNoise
}

// Significant says whether the interval excludes "no change" (1 for a
// ratio): the difference is beyond noise, in either direction.
func Significant(iv Interval) bool { return iv.Excludes(1) }

// String renders the ratio as "x1.02 [0.97, 1.08]".
func (iv Interval) String() string {
	if !iv.Valid() {
		return "-"
	}
	return fmt.Sprintf("x%.3g [%.3g, %.3g]", iv.Estimate, iv.Lo, iv.Hi)
}

// Percent renders the ratio as a change: "+2.0% [-3.1%, +8.0%]".
func (iv Interval) Percent() string {
	if !iv.Valid() {
		return "-"
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", (iv.Estimate-1)*100, (iv.Lo-1)*100, (iv.Hi-1)*100)
}
