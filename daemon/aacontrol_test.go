package daemon

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/verdict"
)

// TestControlsRecord: the controls' record counts A/A verdicts and false
// alarms per scenario and host, takes the median MDE, survives a
// restart (calibration.json), and an A/A verdict's MDE is (1+t) est/lo
// of its judged checks.
func TestControlsRecord(t *testing.T) {
	dir := t.TempDir()
	var c controls
	if c.calibration(dir, "s", "h") != nil {
		t.Fatal("calibration without a control")
	}
	for i, alarm := range []bool{false, true, false, false} {
		if err := c.add(dir, "s", "h", alarm, 1.2+0.1*float64(i), 2, map[string]float64{"p50": 0.1 * float64(i%2*2-1), "p99": math.Inf(1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.add(dir, "other", "h", false, 9, 9, nil); err != nil {
		t.Fatal(err)
	}
	var again controls
	cal := again.calibration(dir, "s", "h")
	if cal == nil || cal.AAVerdicts != 4 || cal.FalseAlarms != 1 || cal.Source != verdict.CalControls || cal.MDE["p50"] != 1.4 || cal.MDE["p99"] != 2 {
		t.Fatalf("%+v", cal)
	}
	t.Log(cal.Line())
	d, err := ControlsDrift(dir, "s", "h")
	if err != nil || d.Source != verdict.DriftControls || d.DF != 4 || math.Abs(d.SD["p50"]-0.1) > 1e-12 || len(d.SD) != 1 {
		t.Fatalf("drift %+v %v", d, err)
	}
	if _, err := ControlsDrift(dir, "other", "h"); err == nil {
		t.Fatal("a drift from controls without ratios")
	}
	if _, err := ControlsDrift(t.TempDir(), "s", "h"); err == nil {
		t.Fatal("a drift without a record")
	}
	v := &verdict.Regression{Ops: []verdict.OpRegression{{Checks: []verdict.QuantCheck{
		{Quantile: "p50", Ratio: &verdict.Interval{Estimate: 1, Lo: 0.8, Hi: 1.25, Level: 0.95}, Call: verdict.CallWithinNoise},
		{Quantile: "p99", Ratio: &verdict.Interval{Estimate: 1, Lo: 0.5, Hi: 2, Level: 0.95}, Call: verdict.CallTooFew},
	}}}}
	if p50, p99 := controlMDE(v, 0.2); math.Abs(p50-1.5) > 1e-9 || p99 != 0 {
		t.Fatalf("mde %v %v", p50, p99)
	}
	if l := controlLogs(v); len(l) != 1 || l["p50"] != 0 {
		t.Fatalf("log ratios %v", l)
	}
}

// TestAAControlsBesideSoak: with regression.aa_controls, each soak run
// is followed by a hidden control judged against it: the record is kept
// under controls/, the control's directory is gone, no control is in
// the run list, and a later run's verdict carries the controls' figures.
func TestAAControlsBesideSoak(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "soak.yaml"), shortScenario("soak", 200, "1s"))
	cfg := baseConfig(dir) + "regression: {history: 2, min_history: 1, aa_controls: true}\nsoaks:\n  - {name: cheap, scenario: soak.yaml}\n"
	h := startDaemon(t, dir, cfg, nil)
	var judged Entry
	deadline := time.Now().Add(60 * time.Second)
	for judged.ID == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no soak run with the controls' figures\n%s", h.log.String())
		}
		var list struct{ Runs []Entry }
		h.do("GET", "/api/v1/runs", "", nil, &list)
		for _, e := range list.Runs {
			if e.Source != "soak:cheap" {
				t.Fatalf("a run of source %q in the list: controls are hidden", e.Source)
			}
			if e.Regression != nil && e.Regression.Controls != nil {
				judged = e
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := judged.Regression.Controls
	if c.AAVerdicts < 1 || c.Source != verdict.CalControls {
		t.Fatalf("controls %+v", c)
	}
	b, err := os.ReadFile(filepath.Join(dir, "data", ControlsDir, ControlsFile))
	if err != nil {
		t.Fatal(err)
	}
	var recs []controlRecord
	if err := json.Unmarshal(b, &recs); err != nil || len(recs) != 1 || recs[0].Scenario != "soak" || recs[0].AAVerdicts < 1 {
		t.Fatalf("%v %s", err, b)
	}
	waitLog(t, h.log, "aa_controls=")
	t.Logf("run %s: %s", judged.ID, c.Line())
}
