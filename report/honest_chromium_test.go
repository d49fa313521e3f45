package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/rundir"
)

// measureScript, put at the end of a page, writes on <body> the
// smallest chart text as rendered (its font size times its chart's
// scale) and the page's scroll width.
const measureScript = `<script>
let min = 1e9;
for (const t of document.querySelectorAll("svg text")) {
  const svg = t.ownerSVGElement, vb = svg.viewBox.baseVal;
  const px = parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width / vb.width;
  if (px > 0 && px < min) min = px;
}
document.body.setAttribute("data-minfont", min.toFixed(2));
document.body.setAttribute("data-scrollwidth", document.documentElement.scrollWidth);
</script>`

// measuredPage writes page with measureScript before </body>.
func measuredPage(t *testing.T, page []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	h := strings.Replace(string(page), "</body>", measureScript+"</body>", 1)
	if err := os.WriteFile(path, []byte(h), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bodyAttr reads a number measureScript set.
func bodyAttr(t *testing.T, dom, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(name + `="([0-9.]+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the page did not measure %s", name)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestRealGrowthReportInChromium opens the report of a recorded growth
// run (testdata/report-growth-variants: redis-server 7.0.15, rdb:2 and
// aof:everysec, each op measured alone between fills) at 900 px:
//   - the tab is titled with the scenario, start time and verdict, and a
//     contents list links every phase section, each one a <details>;
//   - chart text renders at 11 px or more and nothing scrolls sideways;
//   - closed-loop stages draw no target line;
//   - the header names both persistence variants;
//   - dashed verticals carry labels.
func TestRealGrowthReportInChromium(t *testing.T) {
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
	d, _ := testutil.ChromiumAt(t, measuredPage(t, ReportHTML([]*rundir.Summary{s}, []*Timeline{tl})), 900, 0)
	if px := bodyAttr(t, d, "data-minfont"); px < 10.9 {
		t.Errorf("at 900 px the smallest chart text is %.2f px, want 11 or more", px)
	} else {
		t.Logf("smallest chart text at 900 px: %.2f px", px)
	}
	if w := bodyAttr(t, d, "data-scrollwidth"); w > 900 {
		t.Errorf("at 900 px the page is %v px wide: it scrolls sideways", w)
	}
	title := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(d)
	if title == nil || !strings.Contains(title[1], s.Scenario) || !strings.Contains(title[1], s.Start.UTC().Format("2006-01-02 15:04")) || !strings.Contains(title[1], "SLO") {
		t.Errorf("page title %q does not name the run", title)
	}
	links := regexp.MustCompile(`<nav class="toc">.*?</nav>`).FindString(d)
	hrefs := regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(links, -1)
	if len(hrefs) < 3 {
		t.Fatalf("contents list %q", links)
	}
	for _, h := range hrefs {
		if !strings.Contains(d, `id="`+h[1]+`"`) {
			t.Errorf("contents link #%s leads nowhere", h[1])
		}
	}
	if n := strings.Count(d, `<details class="phase"`); n != len(hrefs)-1 {
		t.Errorf("%d folding phase sections, %d contents entries", n, len(hrefs)-1)
	}
	for _, p := range s.Phases {
		if !strings.Contains(links, p.Name) {
			t.Errorf("contents lack phase %s", p.Name)
		}
	}
	if !strings.Contains(d, "rdb:2, aof:everysec") {
		t.Errorf("header does not name both persistence variants")
	}
	for _, svg := range regexp.MustCompile(`(?s)<svg[^>]*class="plot".*?</svg>`).FindAllString(d, -1) {
		if strings.Contains(svg, "achieved rate per stage") && strings.Contains(svg, ">target</text>") {
			t.Errorf("a closed-loop growth draws a target line")
		}
	}
	if n := strings.Count(d, `class="mark-label"`); n == 0 {
		t.Errorf("no dashed vertical is labelled")
	}
	t.Logf("%d mark labels", strings.Count(d, `class="mark-label"`))
}

// TestRealCapacityReportInChromium opens the report of a recorded
// capacity search (testdata/report-capacity) in Chromium: its curve is
// on a log x axis, its p99 chart has the SLO line, and the failed probe
// is a cross with a legend entry of its own.
func TestRealCapacityReportInChromium(t *testing.T) {
	t.Parallel()
	s, err := rundir.ReadSummary(filepath.Join("testdata", "report-capacity"))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := testutil.ChromiumAt(t, measuredPage(t, ReportHTML([]*rundir.Summary{s}, nil)), 900, 0)
	var p99 string
	for _, svg := range regexp.MustCompile(`(?s)<svg[^>]*class="plot".*?</svg>`).FindAllString(d, -1) {
		if strings.Contains(svg, "capacity curve: p99") {
			p99 = svg
		}
	}
	for _, want := range []string{"log scale", `class="target"`, "SLO read p99", `class="failed-mark"`, "failed (did not hold)"} {
		if !strings.Contains(p99, want) {
			t.Errorf("capacity p99 chart lacks %q", want)
		}
	}
	if px := bodyAttr(t, d, "data-minfont"); px < 10.9 {
		t.Errorf("at 900 px the smallest chart text is %.2f px", px)
	}
}

// TestTimelineGapsInChromium draws honestPhase's throughput and latency
// (no ops from +4 s to +8 s, every op failed at +2 s and +8 s) and reads
// the screenshot: no line of the series colour crosses the middle of
// the gap, and each chart has line pixels on both sides of it.
func TestTimelineGapsInChromium(t *testing.T) {
	t.Parallel()
	p, tl := honestPhase()
	pls := timelinePlots(p, tl)
	for _, pl := range pls {
		_, img := testutil.Chromium(t, plotPage(t, pl), 420)
		// The plot's x maps 0.5..10.1535 s onto plotML..plotW-plotMR of
		// a chart drawn 960 px wide (the page's 20 px margins).
		scale := 960.0 / plotW
		px := func(x float64) int {
			return int((20 + (plotML+(x-0.5)/(10.1535-0.5)*(plotW-plotML-plotMR))*scale))
		}
		blue := hexRGB(t, palette[0])
		col := func(x float64) int {
			n := 0
			c := px(x)
			for dx := -3; dx <= 3; dx++ {
				for y := 0; y < img.Bounds().Dy(); y++ {
					r, g, b, _ := img.At(c+dx, y).RGBA()
					if near8(r, blue[0]) && near8(g, blue[1]) && near8(b, blue[2]) {
						n++
					}
				}
			}
			return n
		}
		if gap, before, after := col(6), col(1.5), col(9.8); gap != 0 || before == 0 || after == 0 {
			t.Errorf("%q: %d series pixels in the gap (want 0), %d before and %d after it", pl.Title, gap, before, after)
		}
	}
}

func near8(v uint32, want uint32) bool {
	v >>= 8
	return v+12 >= want && v <= want+12
}
