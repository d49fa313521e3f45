package engine

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestProgressTailOnce: a segment's last interval, cut short by the end
// of the segment right after a tick, prints no second line for the same
// second (it used to, with "achieved 0/s" or a rate of thousands over a
// few milliseconds); a segment whose only interval is short still
// prints one; a new segment prints its own lines again.
func TestProgressTailOnce(t *testing.T) {
	var buf bytes.Buffer
	r := &runner{opts: Options{Progress: &buf, Interval: time.Second}, plan: &Plan{classes: targets.Classes()}}
	sink := progressOnly{r}
	ops := []scenarios.Op{scenarios.OpGet}
	t0 := time.Unix(1000, 0)
	a := &segment{Phase: "a", Rate: 100, Duration: 2 * time.Second}
	b := &segment{Phase: "b", Rate: 100, Duration: 10 * time.Millisecond}
	c := &segment{Phase: "c", Rate: 100, Duration: 2 * time.Second}
	w := metrics.NewWindowSet(ops)
	step := func(seg *segment, from, to time.Duration, completed int64) {
		sink.onInterval(seg, t0.Add(from), t0.Add(to), to, w, completed, completed, func() {})
	}
	step(a, 0, time.Second, 100)
	step(a, time.Second, 2*time.Second, 100)
	step(a, 2*time.Second, 2*time.Second+2*time.Millisecond, 0) // the tail
	step(b, 0, 10*time.Millisecond, 1)                          // short, but its only one
	step(c, 0, time.Second, 100)
	step(c, time.Second, 1600*time.Millisecond, 60) // a real (if short) last interval
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("want 5 progress lines (a twice, b once, c twice), got %d:\n%s", len(lines), buf.String())
	}
	for _, l := range lines {
		if strings.Contains(l, "achieved 0/s") {
			t.Errorf("line for an empty tail: %s", l)
		}
	}
	if !strings.HasPrefix(lines[2], "[b ") {
		t.Errorf("the short-only segment has no line: %q", lines[2])
	}
}
