package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
)

// TestReportRendersInChromium opens report.html of a recorded growth run
// in headless chromium: the DOM it parsed must hold one <svg> per plot,
// and the screenshot must show the plots' first series colour (lines and
// points were drawn, not just text).
func TestReportRendersInChromium(t *testing.T) {
	t.Parallel()
	s, err := rundir.ReadSummary(filepath.Join("testdata", "report-growth"))
	if err != nil {
		t.Fatal(err)
	}
	plots := 0
	for _, p := range BuildReport(s, nil).Phases {
		plots += len(p.Plots)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, ReportHTML([]*rundir.Summary{s}, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	d, img := testutil.Chromium(t, page, 1600)
	if n := strings.Count(d, "<svg"); n != plots || plots < 4 {
		t.Errorf("chromium parsed %d <svg> elements, the report has %d plots", n, plots)
	}
	if !strings.Contains(d, "cliff at stage-4") {
		t.Errorf("rendered DOM lacks the cliff note")
	}
	// palette[0] is #1f77b4.
	blue := testutil.Pixels(img, [3]uint32{0x1f, 0x77, 0xb4}, 12)
	b := img.Bounds()
	if b.Dx() != 1000 || blue < 200 {
		t.Errorf("screenshot %dx%d has %d pixels of the first series colour; the plots did not render", b.Dx(), b.Dy(), blue)
	}
	t.Logf("%d plots, %d series-colour pixels in a %dx%d screenshot", plots, blue, b.Dx(), b.Dy())
}

// TestGrowthVariantsRenderInChromium opens report.html of a recorded
// growth run (testdata/report-growth-variants: scenario.yaml there, run
// by soakd on redis-server 7.0.15 in a 64 MB cgroup, rdb:2 and
// aof:everysec, per-op measuring) in headless chromium: the parsed DOM
// holds every plot, the memory and per-op throughput charts of both
// variants, a cliff line in the variant's colour on every per-stage chart and the shaded
// BGSAVE periods on the rdb variant's latency over time; the screenshot
// shows both variants' cliff colours and the BGSAVE shading drawn.
func TestGrowthVariantsRenderInChromium(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "report-growth-variants")
	s, err := rundir.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := ReadTimeline(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	rd := BuildReport(s, tl)
	plots, cliffs, spans := 0, 0, 0
	var titles []string
	periods := map[Span]bool{} // each op's latency panel shades the same periods
	for _, p := range rd.Phases {
		plots += len(p.Plots)
		for _, pl := range p.Plots {
			titles = append(titles, pl.Title)
			cliffs += len(pl.Cliffs)
			spans += len(pl.Spans)
			for _, sp := range pl.Spans {
				periods[sp] = true
			}
			if pl.XLabel == "dataset (records)" && len(pl.Cliffs) == 0 {
				t.Errorf("%s: per-stage chart %q has no cliff mark", p.Phase, pl.Title)
			}
		}
	}
	all := strings.Join(titles, "|")
	for _, want := range []string{"memory per stage: rdb:2", "memory per stage: aof:everysec", "set throughput per stage (alone, closed loop), by persistence",
		"per-op throughput per stage (each op alone, closed loop)", "latency over time: p99 per 1s (from intended start)"} {
		if !strings.Contains(all, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if len(periods) != 2 {
		t.Errorf("%d shaded persistence periods, want the rdb variant's 2 BGSAVEs", len(periods))
	}
	tmp := t.TempDir()
	page := filepath.Join(tmp, "report.html")
	if err := os.WriteFile(page, ReportHTML([]*rundir.Summary{s}, []*Timeline{tl}), 0o644); err != nil {
		t.Fatal(err)
	}
	d, img := testutil.Chromium(t, page, 6000)
	if n := strings.Count(d, "<svg"); n != plots {
		t.Errorf("chromium parsed %d <svg> elements, the report has %d plots", n, plots)
	}
	if n := strings.Count(d, `class="cliff"`); n != cliffs || cliffs < 10 {
		t.Errorf("chromium parsed %d cliff lines, the report has %d", n, cliffs)
	}
	// A panel draws only the spans inside its own x range.
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if n, want := strings.Count(d, `class="span"`), strings.Count(string(html), `class="span"`); n != want || want < len(periods) {
		t.Errorf("chromium parsed %d shaded spans, the report draws %d (of %d on %d periods)", n, want, spans, len(periods))
	}
	// The first variant's cliff lines are cliffPalette[0], the second's
	// cliffPalette[1]; the BGSAVE shading is #ff9900 at 25% over white:
	// #ffe6bf.
	cliff, shade := testutil.Pixels(img, hexRGB(t, cliffPalette[0]), 12), testutil.Pixels(img, [3]uint32{0xff, 0xe6, 0xbf}, 12)
	if other := testutil.Pixels(img, hexRGB(t, cliffPalette[1]), 12); other < 300 {
		t.Errorf("%d pixels of the second variant's cliff colour; its cliffs are hidden", other)
	}
	b := img.Bounds()
	if cliff < 500 || shade < 200 {
		t.Errorf("screenshot %dx%d: %d cliff-colour and %d BGSAVE-shade pixels; the marks did not render", b.Dx(), b.Dy(), cliff, shade)
	}
	t.Logf("%d plots, %d cliff lines, %d spans; %d cliff-colour and %d shaded pixels", plots, cliffs, spans, cliff, shade)
}
