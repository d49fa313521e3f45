package report

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
)

// hbar is one bar found in a screenshot: its left edge, first and last
// row, and its length in pixels.
type hbar struct{ x0, y0, y1, length int }

// barsOf finds the horizontal bars of colour rgb in img: runs of at
// least minLen pixels on a row, joined across rows that start at the
// same x (a legend swatch is shorter than minLen). They come sorted by
// left edge, then top.
func barsOf(img image.Image, rgb [3]uint32, minLen int) []hbar {
	near := func(v, want uint32) bool { return v+12 >= want && v <= want+12 }
	is := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return near(r>>8, rgb[0]) && near(g>>8, rgb[1]) && near(b>>8, rgb[2])
	}
	var bars []hbar
	open := map[int]int{} // x0 -> index in bars of the bar last extended
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; {
			if !is(x, y) {
				x++
				continue
			}
			x0 := x
			for x < bd.Max.X && is(x, y) {
				x++
			}
			if x-x0 < minLen {
				continue
			}
			// Antialiasing may move an edge by a pixel.
			joined := false
			for _, k := range []int{x0, x0 - 1, x0 + 1} {
				if i, ok := open[k]; ok && bars[i].y1 >= y-1 {
					bars[i].y1, bars[i].length = y, max(bars[i].length, x-x0)
					joined = true
					break
				}
			}
			if !joined {
				open[x0] = len(bars)
				bars = append(bars, hbar{x0: x0, y0: y, y1: y, length: x - x0})
			}
		}
	}
	sort.Slice(bars, func(i, j int) bool {
		if d := bars[i].x0 - bars[j].x0; d < -2 || d > 2 {
			return d < 0
		}
		return bars[i].y0 < bars[j].y0
	})
	return bars
}

// suiteRun is a run of two persistence variants and two tests with the
// given achieved rates and p99s, [variant][test].
func suiteRun(rps, p99 [2][2]float64) *rundir.Summary {
	s := &rundir.Summary{Scenario: "suite", Status: rundir.StatusCompleted, Target: rundir.TargetInfo{Kind: "redis"}}
	for vi, v := range []string{"none", "aof:everysec"} {
		for ti, test := range []string{"set", "get"} {
			p := rundir.PhaseResult{Name: test + "[" + v + "]", Kind: "steady", Variant: v}
			p.AchievedRate, p.Completed = rps[vi][ti], 100000
			p.Ops = map[string]rundir.OpResult{test: {Count: 100000, Latency: metrics.Summary{P50: p99[vi][ti] / 4, P99: p99[vi][ti]}}}
			s.Phases = append(s.Phases, p)
		}
	}
	return s
}

// TestSuiteChartInChromium renders report.html of a run with two
// persistence variants and reads the screenshot: the run is one chart
// and one table (no section per phase), and the chart's bars say what
// the table says. Each column's bars share one zero line per panel, a
// test's throughput and p99 bars sit on the same row, and the lengths
// keep the values' ratios: set runs at 40k ops/s with none and 20k
// with AOF (bar half as long), at p99 1 ms and 2 ms (twice as long);
// get at 50k in both (equal bars) and 1 ms against 0.5 ms.
func TestSuiteChartInChromium(t *testing.T) {
	t.Parallel()
	s := suiteRun([2][2]float64{{40000, 50000}, {20000, 50000}}, [2][2]float64{{0.001, 0.001}, {0.002, 0.0005}})
	page := filepath.Join(t.TempDir(), "report.html")
	body := ReportHTML([]*rundir.Summary{s}, nil)
	if err := os.WriteFile(page, body, 0o644); err != nil {
		t.Fatal(err)
	}
	d, img := testutil.Chromium(t, page, 700)
	if n := strings.Count(d, `<svg`); n != 1 || !strings.Contains(d, `class="bars"`) || strings.Count(d, `<pre class="suite">`) != 1 || strings.Contains(d, "<h2>phase ") {
		t.Fatalf("the run is not one chart and one table: %d <svg>, page:\n%.2000s", n, d)
	}
	for _, want := range []string{"achieved ops/s", "p99 latency (ms), from intended start", "A none", "B aof:everysec",
		">40k<", ">20k<", ">1.00ms<", ">2.00ms<", ">500us<"} {
		if !strings.Contains(d, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	blue, red := barsOf(img, hexRGB(t, palette[0]), 40), barsOf(img, hexRGB(t, palette[1]), 40)
	t.Logf("A's bars %+v\nB's bars %+v", blue, red)
	if len(blue) != 4 || len(red) != 4 {
		t.Fatalf("%d bars of A's colour and %d of B's, want 4 each (2 tests x 2 panels)", len(blue), len(red))
	}
	// In order: left panel set, get; right panel set, get.
	for _, bs := range [][]hbar{blue, red} {
		if bs[0].x0 != bs[1].x0 || bs[2].x0 != bs[3].x0 || bs[2].x0 <= bs[0].x0+bs[0].length {
			t.Errorf("bars do not start from one zero line per panel: %+v", bs)
		}
		for i := 0; i < 2; i++ {
			if bs[i].y0 != bs[i+2].y0 {
				t.Errorf("a test's ops/s and p99 bars are on different rows: %+v and %+v", bs[i], bs[i+2])
			}
		}
	}
	if red[0].y0 <= blue[0].y0 || red[0].y0 >= blue[1].y0 {
		t.Errorf("B's set bar is not beside A's in set's row: A %+v, B %+v", blue, red)
	}
	ratio := func(what string, a, b hbar, want float64) {
		got := float64(a.length) / float64(b.length)
		if math.Abs(got/want-1) > 0.05 {
			t.Errorf("%s: bars %d and %d px, ratio %.3f, the values' is %.3f", what, a.length, b.length, got, want)
		}
	}
	ratio("set ops/s none over aof", blue[0], red[0], 2)
	ratio("get ops/s none over aof", blue[1], red[1], 1)
	ratio("set p99 aof over none", red[2], blue[2], 2)
	ratio("get p99 none over aof", blue[3], red[3], 2)
}
