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
const (
	CallRegression  Call = "REGRESSION"
	CallSlower      Call = "slower, below threshold"
	CallWithinNoise Call = "within noise"
	CallFaster      Call = "faster"
	CallNoData      Call = "no data"
)

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
