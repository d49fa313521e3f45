package report

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
)

// TestTimelineBucketsLongRuns: a phase longer than MaxTimelinePoints
// seconds is merged into wider buckets, keeping every count.
func TestTimelineBucketsLongRuns(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const secs = 1500
	fx := newHlogFixture(t, start)
	for i := 0; i < secs; i++ {
		v := int64(1_000_000) // 1 ms
		if i == 700 {
			v = 50_000_000 // one slow second
		}
		from := start.Add(time.Duration(i) * time.Second)
		fx.interval(t, "p.get.latency", from, from.Add(time.Second), fmt.Sprint(v), func() *hdr.Histogram {
			h := metrics.NewHist()
			for j := 0; j < 10; j++ {
				_ = h.RecordValue(v)
			}
			return h
		})
	}
	buf := bytes.NewBuffer(fx.bytes())
	s := &rundir.Summary{Phases: []rundir.PhaseResult{{Name: "p", Start: start, End: start.Add(secs * time.Second)}}}
	tl, err := readTimeline(buf, "test.hlog", s, timelineWidth)
	if err != nil {
		t.Fatal(err)
	}
	pts := tl.Phases["p"]["get"]
	if tl.Width["p"] != 3*time.Second || len(pts) != 500 {
		t.Fatalf("%d points of %s, want 500 of 3s", len(pts), tl.Width["p"])
	}
	var n int64
	slow := 0
	for i, p := range pts {
		n += p.Count
		if p.Max > 0.04 {
			slow = i
		}
	}
	if n != secs*10 || slow != 700/3 || pts[slow].Max < 0.049 {
		t.Errorf("count %d, slow bucket %d (max %.3f), want %d and %d", n, slow, pts[slow].Max, secs*10, 700/3)
	}
}
