package report

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// seamRun is a 60 s steady phase at 100 ops/s, resumed once: soakd was
// down from +20.2 s to +21.6 s (its last checkpoint to the resume), and
// the 140 ops due then are lost, 70 of each op. Scheduled 6000 =
// completed 5850 + dropped 10 + lost 140, per op 3000 = 2925 + 5 + 70.
func seamRun() (*rundir.Summary, *Timeline) {
	start := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	op := rundir.OpResult{Count: 2925, Dropped: 5, Lost: 70, Scheduled: 3000, Errors: map[string]int64{},
		OverTime: &rundir.OverTime{MeanP99: 0.002, BucketSeconds: 1, Buckets: 58}}
	p := rundir.PhaseResult{Name: "steady", Kind: "steady", Start: start, End: start.Add(time.Minute),
		Result: rundir.Result{TargetRate: 100, AchievedRate: 97.5, DurationSeconds: 60, Scheduled: 6000, Completed: 5850, CompletedInWindow: 5850,
			Dropped: 10, Lost: 140, Ops: map[string]rundir.OpResult{"read": op, "update": op}}}
	s := &rundir.Summary{Scenario: "seams", Status: rundir.StatusCompleted, Start: start, End: p.End, Phases: []rundir.PhaseResult{p},
		Seams: []rundir.Seam{{Phase: "steady", Down: start.Add(20200 * time.Millisecond), Resumed: start.Add(21600 * time.Millisecond), Lost: 140}},
		SLO:   rundir.Verdict{Passed: true}}
	var pts []TimePoint
	for i := 0; i < 60; i++ {
		pts = append(pts, TimePoint{At: start.Add(time.Duration(i) * time.Second), Count: 50, P50: 1e-3, P99: 2e-3, P999: 3e-3, Max: 4e-3})
	}
	tl := &Timeline{Width: map[string]time.Duration{"steady": time.Second}, Phases: map[string]map[string][]TimePoint{"steady": {"read": pts, "update": pts}}}
	return s, tl
}

// The text lists the seam under the header, the lost ops on the phase
// line, and the phase's and each op's accounting, which holds.
func TestTextShowsSeamsAndLost(t *testing.T) {
	s, _ := seamRun()
	got := Text(s)
	for _, want := range []string{
		"resumed once: 1.4s down, 140 ops lost in all\n",
		"  resumed at +22s after 1.4s down: 140 ops lost (phase steady)\n",
		"5850 ops, 0 errors, 10 dropped, 140 lost, max lag",
		"  accounting: scheduled 6000 = completed 5850 + dropped 10 + lost 140\n",
		"    read: scheduled 3000 = completed 2925 + dropped 5 + lost 70\n",
		"    update: scheduled 3000 = completed 2925 + dropped 5 + lost 70\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "!=") {
		t.Errorf("the identity holds, yet the text says it does not:\n%s", got)
	}
}

// A phase whose figures miss the identity says by how much, either way.
func TestTextShowsBrokenAccounting(t *testing.T) {
	s, _ := seamRun()
	s.Phases[0].Completed = 5849
	o := s.Phases[0].Ops["read"]
	o.Count = 2926
	s.Phases[0].Ops["read"] = o
	got := Text(s)
	for _, want := range []string{
		"accounting: scheduled 6000 != completed 5849 + dropped 10 + lost 140: 1 ops unaccounted for",
		"read: scheduled 3000 != completed 2926 + dropped 5 + lost 70: 1 ops counted twice",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
}

// A run never resumed shows no lost figures at all: its text is as it
// was before seams existed.
func TestTextNoLostWithoutSeams(t *testing.T) {
	s, _ := seamRun()
	s.Seams = nil
	p := &s.Phases[0]
	p.Lost, p.Scheduled, p.Completed = 0, 5860, 5850
	for _, op := range []string{"read", "update"} {
		o := p.Ops[op]
		o.Lost, o.Scheduled = 0, 2930
		p.Ops[op] = o
	}
	if s.ShowsLost() {
		t.Fatal("a run never resumed shows lost ops")
	}
	got := Text(s)
	for _, no := range []string{"lost", "accounting", "resumed"} {
		if strings.Contains(got, no) {
			t.Errorf("text of a run never resumed says %q:\n%s", no, got)
		}
	}
	f := BuildFigures(s, nil)
	if len(f.Seams) != 0 || f.Phases[0].Accounting != "" {
		t.Errorf("figures of a run never resumed: seams %v, accounting %q", f.Seams, f.Phases[0].Accounting)
	}
}

// The charts over time shade the seam, labelled with its downtime and
// lost ops, and no line crosses it: the measured series break there,
// the avg p99 line stops at its edges and goes on after it.
func TestSeamGapOnCharts(t *testing.T) {
	s, tl := seamRun()
	rd := BuildReport(s, tl)
	var over []Plot
	for _, pl := range rd.Phases[0].Plots {
		if strings.Contains(pl.Title, "over time") {
			over = append(over, pl)
		}
	}
	if len(over) != 3 {
		t.Fatalf("%d charts over time, want throughput and two latency panels", len(over))
	}
	gap := Span{From: 20.2, To: 21.6, Label: "soakd down 1.4s: 140 ops lost"}
	for _, pl := range over {
		if len(pl.Gaps) != 1 || pl.Gaps[0] != gap {
			t.Errorf("%q: gaps %+v, want %+v", pl.Title, pl.Gaps, gap)
		}
		for _, sr := range pl.Series {
			segs := sr.segments()
			for _, seg := range segs {
				for i := 1; i < len(seg); i++ {
					if a, b := seg[i-1].X, seg[i].X; a < gap.To && b > gap.From {
						t.Errorf("%q: %s draws a line from %v to %v across the seam", pl.Title, sr.Name, a, b)
					}
				}
			}
			if strings.HasPrefix(sr.Name, "avg p99") {
				if len(segs) != 2 || len(segs[0]) < 2 || len(segs[1]) < 2 || segs[0][len(segs[0])-1].X != gap.From || segs[1][0].X != gap.To {
					t.Errorf("%q: avg p99 line %+v, want two lines ending and starting at the seam's edges", pl.Title, segs)
				}
			}
		}
		svg := SVGPlot(pl)
		if !strings.Contains(svg, `class="gap"`) || !strings.Contains(svg, ">soakd down 1.4s: 140 ops lost</text>") || !strings.Contains(svg, gapLegend) {
			t.Errorf("%q: the seam is not drawn as a labelled band with a legend entry", pl.Title)
		}
	}
}

// report.html names the seam and the accounting in the phase's notes,
// and its summary table shows the lost ops.
func TestReportHTMLShowsSeams(t *testing.T) {
	s, tl := seamRun()
	h := string(ReportHTML([]*rundir.Summary{s}, []*Timeline{tl}))
	for _, want := range []string{
		`<div class="note">resumed at +22s after 1.4s down: 140 ops lost (phase steady); shaded grey on the charts over time</div>`,
		`<div class="note">accounting: scheduled 6000 = completed 5850 + dropped 10 + lost 140</div>`,
		"10 dropped, 140 lost, max lag",
		"read: scheduled 3000 = completed 2925 + dropped 5 + lost 70",
		`class="gap"`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// report --json's figures carry the seams and each phase's accounting;
// its summary keeps the identity's every term.
func TestFiguresShowSeams(t *testing.T) {
	s, tl := seamRun()
	f := BuildFigures(s, tl)
	if len(f.Seams) != 1 || f.Seams[0] != "resumed at +22s after 1.4s down: 140 ops lost (phase steady)" {
		t.Errorf("seams %q", f.Seams)
	}
	if pf := f.Phases[0]; pf.Accounting != "scheduled 6000 = completed 5850 + dropped 10 + lost 140" || pf.Unaccounted != 0 {
		t.Errorf("accounting %q, unaccounted %d", pf.Accounting, pf.Unaccounted)
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back rundir.Summary
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	p := back.Phases[0]
	if p.Unaccounted() != 0 || p.Lost != 140 || len(back.Seams) != 1 || back.Seams[0].Lost != 140 {
		t.Errorf("summary.json round trip: lost %d, seams %+v, unaccounted %d", p.Lost, back.Seams, p.Unaccounted())
	}
	for op, o := range p.Ops {
		if o.Unaccounted() != 0 || o.Scheduled != 3000 || o.Lost != 70 {
			t.Errorf("op %s: %+v", op, o)
		}
	}
}

// Merging shards adds up their lost ops, per phase and op, and keeps
// every shard's seams, in time order.
func TestMergeAddsLost(t *testing.T) {
	a, _ := seamRun()
	var acc rundir.Result
	addResult(&acc, &a.Phases[0].Result)
	addResult(&acc, &a.Phases[0].Result)
	if acc.Lost != 280 || acc.Scheduled != 12000 || acc.Unaccounted() != 0 {
		t.Errorf("merged: lost %d scheduled %d unaccounted %d", acc.Lost, acc.Scheduled, acc.Unaccounted())
	}
	if o := acc.Ops["read"]; o.Lost != 140 || o.Scheduled != 6000 || o.Unaccounted() != 0 {
		t.Errorf("merged read: %+v", o)
	}
	b, _ := seamRun()
	b.Shard = rundir.Shard{Index: 1, Count: 2}
	b.Seams[0].Down = b.Seams[0].Down.Add(-10 * time.Second)
	m := &Merged{Scenario: "seams", Count: 2, Shards: []*rundir.Summary{a, b}, Phases: a.Phases}
	if got := m.Summary().Seams; len(got) != 2 || !got[0].Down.Before(got[1].Down) {
		t.Errorf("merged seams %+v, want both shards', in time order", got)
	}
}
