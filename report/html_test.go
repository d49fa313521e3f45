package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// TestReportDataGolden: the data behind every plot of report.html, from
// two recorded run directories (a redis growth run into an 8 MB cap and
// an embedded capacity search), against testdata/report.golden.json.
func TestReportDataGolden(t *testing.T) {
	var all []ReportData
	for _, d := range []string{"report-growth", "report-capacity"} {
		s, err := rundir.ReadSummary(filepath.Join("testdata", d))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, BuildReport(s, nil))
	}
	got, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "report.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report data differs from %s (go test ./report -run Golden -update to accept):\n%s", golden, firstDiff(got, want))
	}

	// Spot checks that do not depend on the golden file.
	g := all[0].Phases[0]
	if g.Kind != "growth" || len(g.Plots) != 4 || g.Plots[0].XLabel != "dataset (records)" {
		t.Fatalf("growth plots: %+v", g)
	}
	if x := g.Plots[0].Series[0].Points[1].X; x != 4000 {
		t.Errorf("latency vs dataset x = %v, want 4000 records at stage 2", x)
	}
	if !strings.Contains(strings.Join(g.Notes, " "), "cliff at stage-4") {
		t.Errorf("growth notes %q", g.Notes)
	}
	c := all[1].Phases[1]
	if c.Notes[0] != "highest rate held: 485 ops/s" || len(c.Plots[0].Series[0].Points) != 6 {
		t.Errorf("capacity plots: %+v", c)
	}
	pts := c.Plots[0].Series[0].Points
	for i := 1; i < len(pts); i++ {
		if pts[i].X <= pts[i-1].X {
			t.Errorf("capacity curve not sorted by rate: %+v", pts)
		}
	}
	if pts[len(pts)-1].X != 500 || !strings.HasPrefix(pts[len(pts)-1].Label, FailedLabel+": read latency p99") {
		t.Errorf("the failing probe: %+v", pts[len(pts)-1])
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ": got " + al[i] + "\n want " + bl[i]
		}
	}
	return "lengths differ"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestReportHTMLSelfContained(t *testing.T) {
	var sums []*rundir.Summary
	for _, d := range []string{"report-growth", "report-capacity"} {
		s, err := rundir.ReadSummary(filepath.Join("testdata", d))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, s)
	}
	h := string(ReportHTML(sums, nil))
	for _, bad := range []string{"<script", "<link", " src=", "@import", "https://"} {
		if strings.Contains(h, bad) {
			t.Errorf("report.html contains %q: it must be self-contained", bad)
		}
	}
	// growth: latency, rate, batch insert rate, spectrum; load phase: spectrum; capacity:
	// achieved, p99, spectrum.
	if n := strings.Count(h, "<svg "); n != 8 {
		t.Errorf("%d plots, want 8", n)
	}
	for _, want := range []string{"phase grow (growth)", "cliff at stage-4", "highest rate held: 485 ops/s", "dataset (records)", "p99.99", "<polyline"} {
		if !strings.Contains(h, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestReportComparesVariants: growth phases run per persistence variant
// get one section before them that draws the variants side by side.
func TestReportComparesVariants(t *testing.T) {
	s, err := rundir.ReadSummary(filepath.Join("testdata", "report-growth"))
	if err != nil {
		t.Fatal(err)
	}
	g := s.Phases[0]
	if g.Kind != "growth" {
		t.Fatalf("testdata phase 0 is %s", g.Kind)
	}
	a, b := g, g
	a.Name, a.Variant = g.Name+"[none]", "none"
	b.Name, b.Variant = g.Name+"[aof:always]", "aof:always"
	b.Stages = append([]rundir.StageResult(nil), g.Stages...)
	st := b.Stages[1]
	st.Ops = map[string]rundir.OpResult{}
	for op, o := range g.Stages[1].Ops {
		o.Misses = o.Count / 4
		st.Ops[op] = o
	}
	b.Stages[1] = st
	s.Phases = append([]rundir.PhaseResult{a, b}, s.Phases[1:]...)
	rd := BuildReport(s, nil)
	if len(rd.Phases) != len(s.Phases)+1 {
		t.Fatalf("%d report sections for %d phases, want one more", len(rd.Phases), len(s.Phases))
	}
	c := rd.Phases[0]
	if c.Phase != g.Name+": persistence variants side by side" || rd.Phases[1].Phase != a.Name || rd.Phases[2].Phase != b.Name {
		t.Fatalf("sections %q, %q, %q", c.Phase, rd.Phases[1].Phase, rd.Phases[2].Phase)
	}
	if len(c.Notes) != 2 || !strings.HasPrefix(c.Notes[0], "none: cliff at stage-4") {
		t.Errorf("notes %q", c.Notes)
	}
	var titles []string
	for _, p := range c.Plots {
		titles = append(titles, p.Title)
		if p.Title == "get p99 per stage, by persistence" {
			if len(p.Series) != 2 || p.Series[0].Name != "none" || p.Series[1].Name != "aof:always" || len(p.Series[1].Points) != len(g.Stages) {
				t.Errorf("get p99 series %+v", p.Series)
			}
		}
		if strings.HasPrefix(p.Title, "miss ratio") {
			if len(p.Series) == 0 || !strings.HasPrefix(p.Series[0].Name, "aof:always ") || math.Abs(p.Series[0].Points[1].Y-0.25) > 0.01 {
				t.Errorf("miss series %+v", p.Series)
			}
		}
	}
	if j := strings.Join(titles, "|"); !strings.Contains(j, "get p99 per stage, by persistence") || !strings.Contains(j, "batch insert rate per stage, by persistence") || !strings.Contains(j, "miss ratio per stage, by persistence") {
		t.Errorf("plots %s", j)
	}
	// The variant with misses also gets its own miss plot.
	found := false
	for _, p := range rd.Phases[2].Plots {
		found = found || strings.HasPrefix(p.Title, "miss ratio per stage (")
	}
	if !found {
		t.Errorf("%s lacks its miss ratio plot", b.Name)
	}
}

// TestNiceTicks: axis ticks are round (1, 2 or 5 x 10^k) and labelled
// compactly ("800ms", not "812.12ms").
func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 0.812, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0, 1.3e-3, []float64{0, 0.0005, 0.001, 0.0015}},
		{0, 47000, []float64{0, 10000, 20000, 30000, 40000, 50000}},
		{3.2, 17.9, []float64{0, 5, 10, 15, 20}},
	} {
		got := niceTicks(c.lo, c.hi, 5)
		if len(got) != len(c.want) {
			t.Errorf("niceTicks(%v, %v) = %v, want %v", c.lo, c.hi, got, c.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("niceTicks(%v, %v) = %v, want %v", c.lo, c.hi, got, c.want)
				break
			}
		}
	}
	for v, want := range map[float64]string{0.8: "800ms", 0.0015: "1.5ms", 0.00025: "250us", 2: "2s", 0: "0"} {
		if got := tickLabel("latency (s)", v); got != want {
			t.Errorf("tickLabel(%v) = %q, want %q", v, got, want)
		}
	}
	if got := tickLabel("ops/s", 20000); got != "20k" {
		t.Errorf("tickLabel(20000 ops/s) = %q", got)
	}
}
