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
