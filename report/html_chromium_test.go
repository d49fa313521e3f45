package report

import (
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
)

func chromiumBin(t *testing.T) string {
	t.Helper()
	return testutil.NeedTool(t, "chromium", "chromium-browser", "google-chrome")
}

// TestReportRendersInChromium opens report.html of a recorded growth run
// in headless chromium: the DOM it parsed must hold one <svg> per plot,
// and the screenshot must show the plots' first series colour (lines and
// points were drawn, not just text).
func TestReportRendersInChromium(t *testing.T) {
	bin := chromiumBin(t)
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
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=" + filepath.Join(dir, "profile")}
	dom, err := exec.CommandContext(ctx, bin, append(args, "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	if n := strings.Count(string(dom), "<svg"); n != plots || plots < 4 {
		t.Errorf("chromium parsed %d <svg> elements, the report has %d plots", n, plots)
	}
	if !strings.Contains(string(dom), "cliff at stage-4") {
		t.Errorf("rendered DOM lacks the cliff note")
	}
	shot := filepath.Join(dir, "report.png")
	cmd := exec.CommandContext(ctx, bin, append(args, "--window-size=1000,1600", "--screenshot="+shot, "file://"+page)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// palette[0] is #1f77b4.
	var blue int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, 0x1f) && near(g>>8, 0x77) && near(bl>>8, 0xb4) {
				blue++
			}
		}
	}
	if b.Dx() != 1000 || blue < 200 {
		t.Errorf("screenshot %dx%d has %d pixels of the first series colour; the plots did not render", b.Dx(), b.Dy(), blue)
	}
	t.Logf("%d plots, %d series-colour pixels in a %dx%d screenshot", plots, blue, b.Dx(), b.Dy())
}

func near(v, want uint32) bool { return v+12 >= want && v <= want+12 }

// TestGrowthVariantsRenderInChromium opens report.html of a recorded
// growth run (testdata/report-growth-variants: scenario.yaml there, run
// by soakd on redis-server 7.0.15 in a 64 MB cgroup, rdb:2 and
// aof:everysec, per-op measuring) in headless chromium: the parsed DOM
// holds every plot, the memory and per-op throughput charts of both
// variants, a red cliff line on every per-stage chart and the shaded
// BGSAVE periods on the rdb variant's latency over time; the screenshot
// shows the cliff red and the BGSAVE shading drawn.
func TestGrowthVariantsRenderInChromium(t *testing.T) {
	bin := chromiumBin(t)
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
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=" + filepath.Join(tmp, "profile")}
	dom, err := exec.CommandContext(ctx, bin, append(args, "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	d := string(dom)
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
	shot := filepath.Join(tmp, "report.png")
	cmd := exec.CommandContext(ctx, bin, append(args, "--window-size=1000,6000", "--screenshot="+shot, "file://"+page)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// The cliff lines are #e00000; the BGSAVE shading is #ff9900 at 25%
	// over white: #ffe6bf.
	var red, shade int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			switch {
			case near(r>>8, 0xe0) && near(g>>8, 0) && near(bl>>8, 0):
				red++
			case near(r>>8, 0xff) && near(g>>8, 0xe6) && near(bl>>8, 0xbf):
				shade++
			}
		}
	}
	if red < 500 || shade < 200 {
		t.Errorf("screenshot %dx%d: %d cliff-red and %d BGSAVE-shade pixels; the marks did not render", b.Dx(), b.Dy(), red, shade)
	}
	t.Logf("%d plots, %d cliff lines, %d spans; %d red and %d shaded pixels", plots, cliffs, spans, red, shade)
}
