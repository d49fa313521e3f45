package verdict

import (
	"reflect"
	"testing"

	"github.com/soakd/soakd/rundir"
)

// searchAndConfirm runs SearchCapacity then ConfirmCapacity against
// pass (rate, nth probe of that rate) -> passed, recording the curve as
// the engine does; achieved is the rate (less 1 for a failed probe).
func searchAndConfirm(t *testing.T, pass func(rate float64, nth int) bool) (float64, []rundir.CapacityPoint, int) {
	t.Helper()
	var curve []rundir.CapacityPoint
	nth := map[float64]int{}
	probe := func(rate float64) bool {
		nth[rate]++
		ok := pass(rate, nth[rate])
		a := rate
		if !ok {
			a = rate - 1
		}
		curve = append(curve, rundir.CapacityPoint{Rate: rate, Achieved: a, Goodput: a, Passed: ok, P99: map[string]float64{"get": rate / 1e6}})
		return ok
	}
	SearchCapacity(scenarioCap(500, 2, 1e6, 0.05), probe)
	searched := len(curve)
	held := ConfirmCapacity(curve, probe)
	return held, curve, searched
}

// TestConfirmCapacityFixedStore: a store that holds exactly 3000 ops/s.
// The search ends with 3000 held and 3125 failed (3125/3000 - 1 < 5%),
// and the confirmation probes both again: they answer as before, so the
// answer is confirmed, with the spread its probes saw.
func TestConfirmCapacityFixedStore(t *testing.T) {
	held, curve, searched := searchAndConfirm(t, func(rate float64, _ int) bool { return rate <= 3000 })
	var rates []float64
	for _, pt := range curve {
		rates = append(rates, pt.Rate)
	}
	// Search: up by 2 to 4000 (fails), bisect 2000..4000 to within 5%.
	want := []float64{500, 1000, 2000, 4000, 3000, 3500, 3250, 3125, 3000, 3125}
	if searched != 8 || !reflect.DeepEqual(rates, want) {
		t.Fatalf("probes %v (%d by the search), want %v", rates, searched, want)
	}
	if held != 3000 {
		t.Fatalf("held %v, want 3000", held)
	}
	c := Confirmation(curve, held)
	if c == nil || !c.Confirmed || c.Held.Rate != 3000 || c.Held.Probes != 2 || c.Held.Passed != 2 ||
		c.FirstFailed == nil || c.FirstFailed.Rate != 3125 || c.FirstFailed.Probes != 2 || c.FirstFailed.Passed != 0 {
		t.Fatalf("confirmation %+v held %+v first failed %+v", c, c.Held, c.FirstFailed)
	}
	if c.Held.AchievedMin != 3000 || c.Held.AchievedMax != 3000 || c.Held.P99Max["get"] != 0.003 || c.FirstFailed.GoodputMax != 3124 {
		t.Errorf("spread %+v / %+v", c.Held, c.FirstFailed)
	}
}

// TestConfirmCapacityFlaky: when the rate held fails its re-probe, the
// answer steps down to the next rate that held and holds again; a first
// failed rate that passes its re-probe leaves the answer unconfirmed.
func TestConfirmCapacityFlaky(t *testing.T) {
	// 3000 passed once by luck: it fails its re-probe, and the next rate
	// that passed, 2000, holds again.
	held, curve, _ := searchAndConfirm(t, func(rate float64, nth int) bool { return rate <= 2900 || (rate == 3000 && nth == 1) })
	c := Confirmation(curve, held)
	if held != 2000 || c == nil || c.Held.Passed != 2 || c.Held.Probes != 2 {
		t.Fatalf("held %v confirmation %+v", held, c)
	}
	if c.FirstFailed == nil || c.FirstFailed.Rate != 3000 || c.FirstFailed.Passed != 1 || c.Confirmed {
		t.Errorf("first failed %+v confirmed %v: 3000 passed once and failed once", c.FirstFailed, c.Confirmed)
	}
	// The first failed rate passes its re-probe: held stays, unconfirmed.
	held, curve, _ = searchAndConfirm(t, func(rate float64, nth int) bool { return rate <= 3000 || (rate == 3125 && nth == 2) })
	c = Confirmation(curve, held)
	if held != 3000 || c.Confirmed || c.FirstFailed.Rate != 3125 || c.FirstFailed.Passed != 1 {
		t.Errorf("held %v confirmation %+v first failed %+v", held, c, c.FirstFailed)
	}
	// Nothing held: no confirmation.
	held, curve, _ = searchAndConfirm(t, func(float64, int) bool { return false })
	if held != 0 || Confirmation(curve, held) != nil {
		t.Errorf("held %v", held)
	}
}
