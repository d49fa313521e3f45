package grafana

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/burnrate"
)

// The overview's budget row reads the series the shipped SLO rules
// record (so the two cannot drift apart), in percent, and its tile is
// red once a budget is spent, orange below a quarter left.
func TestBudgetLeftOnOverview(t *testing.T) {
	if budgetLeft != burnrate.BudgetLeft(24*time.Hour) {
		t.Fatalf("the overview reads %s, the rules record %s", budgetLeft, burnrate.BudgetLeft(24*time.Hour))
	}
	ov := rendered(t)["soakd-overview"]
	var tile, chart jmap
	for _, p := range panels(ov) {
		for _, tg := range targetsOf(p) {
			if strings.Contains(str(tg["expr"]), budgetLeft+"{") {
				if p["type"] == "stat" {
					tile = p
				} else {
					chart = p
				}
			}
		}
	}
	if tile == nil || chart == nil {
		t.Fatalf("budget panels: tile %v, chart %v", tile != nil, chart != nil)
	}
	for _, p := range []jmap{tile, chart} {
		if u := get(p, "fieldConfig", "defaults", "unit"); u != "percentunit" {
			t.Errorf("%q: unit %v, want percentunit", p["title"], u)
		}
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{-0.5, "red"}, {0.1, "orange"}, {0.9, "green"}} {
		if got := colorAt(t, tile, c.v); got != c.want {
			t.Errorf("budget tile at %g is %s, want %s", c.v, got, c.want)
		}
	}
}
