package report

import (
	"image"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
)

// plotPage writes a page of the given charts and returns its path.
func plotPage(t *testing.T, plots ...Plot) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(pageHead + `<div class="plots">`)
	for _, p := range plots {
		b.WriteString(SVGPlot(p))
	}
	b.WriteString("</div></body></html>\n")
	page := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(page, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return page
}

// hexRGB reads "#rrggbb".
func hexRGB(t *testing.T, s string) [3]uint32 {
	t.Helper()
	var out [3]uint32
	for i := range out {
		var v uint32
		for _, c := range s[1+2*i : 3+2*i] {
			v *= 16
			switch {
			case c >= '0' && c <= '9':
				v += uint32(c - '0')
			default:
				v += uint32(c-'a') + 10
			}
		}
		out[i] = v
	}
	return out
}

// rowsOf returns the y of every pixel of img within tol of rgb, sorted.
func rowsOf(img image.Image, rgb [3]uint32, tol uint32) []int {
	near := func(v, want uint32) bool { return v+tol >= want && v <= want+tol }
	var ys []int
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, rgb[0]) && near(g>>8, rgb[1]) && near(bl>>8, rgb[2]) {
				ys = append(ys, y)
			}
		}
	}
	sort.Ints(ys)
	return ys
}

// flat is a series at y over five stages.
func flat(name string, y float64) Series {
	s := Series{Name: name}
	for i := 1; i <= 5; i++ {
		s.Points = append(s.Points, Point{X: float64(i * 1000), Y: y})
	}
	return s
}

// TestLatencyAxisInChromium draws p50 at 1 ms, p99 at 10 ms and the max
// at 100 ms and reads the screenshot: each line is drawn (its colour
// has pixels), p50's line lies below p99's and p99's below the max's,
// and on the log axis the two decade gaps are the same height (a linear
// axis would make the first a tenth of the second, p50 on the floor).
// The axis is labelled in log scale, its ticks in ms.
func TestLatencyAxisInChromium(t *testing.T) {
	t.Parallel()
	pl := Plot{Title: "latency per stage", XLabel: "dataset (records)", YLabel: "latency (s)",
		Series: []Series{flat("get p50", 0.001), flat("get p99", 0.010), flat("get max", 0.100)}}
	d, img := testutil.Chromium(t, plotPage(t, pl), 500)
	if !strings.Contains(d, "latency (log scale)") || !strings.Contains(d, ">10ms<") || strings.Contains(d, "latency (s)") {
		t.Errorf("the axis is not labelled as a log latency axis in ms")
	}
	var med [3]int
	for i := range med {
		ys := rowsOf(img, hexRGB(t, palette[i]), 10)
		if len(ys) < 150 {
			t.Fatalf("series %d (%s): %d pixels; its line was not drawn", i, palette[i], len(ys))
		}
		med[i] = ys[len(ys)/2]
	}
	low, high := med[0]-med[1], med[1]-med[2]
	t.Logf("median rows p50 %d, p99 %d, max %d: decade gaps %d and %d px", med[0], med[1], med[2], low, high)
	if low < 40 || high < 40 {
		t.Fatalf("p50, p99 and max lines not at distinct heights, lowest first: rows %v", med)
	}
	if r := float64(low) / float64(high); r < 0.8 || r > 1.25 {
		t.Errorf("decade gaps %d and %d px: the axis is not logarithmic", low, high)
	}
}

// TestOverlapAndCliffsInChromium: read and update at the same latency
// both show (the second dashed, its markers another shape), and two
// variants' cliffs at the same stage each show in their own colour,
// their labels on rows of their own.
func TestOverlapAndCliffsInChromium(t *testing.T) {
	t.Parallel()
	pl := Plot{Title: "p99 per stage", XLabel: "dataset (records)", YLabel: "latency (s)",
		Series: []Series{flat("read p99", 0.004), flat("update p99", 0.004)},
		Cliffs: []Point{{X: 3000, Y: 0, Label: "none cliff stage-3: errors"}, {X: 3000, Y: 1, Label: "aof cliff stage-3: errors"}}}
	d, img := testutil.Chromium(t, plotPage(t, pl), 500)
	if n := strings.Count(d, `class="cliff-label"`); n != 2 {
		t.Errorf("%d cliff labels, want 2", n)
	}
	for _, c := range []struct{ what, col string }{
		{"read", palette[0]}, {"update", palette[1]}, {"first cliff", cliffPalette[0]}, {"second cliff", cliffPalette[1]},
	} {
		n := testutil.Pixels(img, hexRGB(t, c.col), 10)
		t.Logf("%s (%s): %d pixels", c.what, c.col, n)
		if n < 150 {
			t.Errorf("%s (%s): %d pixels; it is hidden", c.what, c.col, n)
		}
	}
}
