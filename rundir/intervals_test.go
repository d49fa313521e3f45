package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
)

// writeIntervalLog writes n one-second intervals of steady.get.latency
// (interval i holds i+1 values of (i+1) ms) and steady.get.service.
func writeIntervalLog(t *testing.T, path string, start time.Time, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lw := hdr.NewHistogramLogWriter(f)
	lw.OutputLogFormatVersion()
	lw.OutputStartTime(start.UnixMilli())
	base := start.UnixMilli() / 1000 * 1000
	lw.OutputBaseTime(base)
	lw.SetBaseTime(base)
	lw.OutputLegend()
	for i := 0; i < n; i++ {
		for _, kind := range []string{"latency", "service"} {
			h := metrics.NewHist()
			h.RecordValues(int64(i+1)*1_000_000, int64(i+1))
			h.SetTag("steady.get." + kind)
			h.SetStartTimeMs(start.Add(time.Duration(i) * time.Second).UnixMilli())
			h.SetEndTimeMs(start.Add(time.Duration(i+1) * time.Second).UnixMilli())
			if err := lw.OutputIntervalHistogram(h); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Intervals come back per tag, in order, with their own counts and
// absolute times; a tag filter keeps only what it accepts.
func TestReadIntervals(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 12, 4, 10, 0, 0, 250e6, time.UTC)
	p := filepath.Join(dir, LatencyLog)
	writeIntervalLog(t, p, start, 4)
	m, err := ReadIntervals(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || len(m["steady.get.latency"]) != 4 || len(m["steady.get.service"]) != 4 {
		t.Fatalf("tags %v", len(m))
	}
	for i, h := range m["steady.get.latency"] {
		if h.TotalCount() != int64(i+1) || h.StartTimeMs() != start.Add(time.Duration(i)*time.Second).UnixMilli() {
			t.Errorf("interval %d: count %d start %d", i, h.TotalCount(), h.StartTimeMs())
		}
	}
	m, _, err = ReadRunIntervals(dir, func(tag string) bool { return strings.HasSuffix(tag, ".latency") })
	if err != nil || len(m) != 1 {
		t.Errorf("filtered: %d tags, %v", len(m), err)
	}
}

// A torn last line: an error naming the file in latency.hlog; the whole
// intervals before it from latency.hlog.partial (a killed run's).
func TestReadIntervalsTornLog(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.hlog")
	writeIntervalLog(t, full, time.Now(), 3)
	b, _ := os.ReadFile(full)
	torn := b[:len(b)-20]
	hl := filepath.Join(dir, LatencyLog)
	os.WriteFile(hl, torn, 0o644)
	if _, err := ReadIntervals(hl); err == nil || !strings.Contains(err.Error(), hl) {
		t.Errorf("torn latency.hlog: error %v, want one naming the file", err)
	}
	os.Remove(hl)
	os.WriteFile(filepath.Join(dir, PartialLog), torn, 0o644)
	m, name, err := ReadRunIntervals(dir, nil)
	if err != nil || filepath.Base(name) != PartialLog {
		t.Fatalf("partial: %v (read %s)", err, name)
	}
	if n := len(m["steady.get.latency"]); n != 3 || len(m["steady.get.service"]) != 2 {
		t.Errorf("partial: %d latency and %d service intervals, want 3 and 2 (the last torn)", n, len(m["steady.get.service"]))
	}
}
