package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestProgressShowsDraining: past a timed segment's end the line says
// the segment is draining and for how long, instead of 14s/10s.
func TestProgressShowsDraining(t *testing.T) {
	mix, _ := scenarios.NewMix(map[string]float64{"read": 100}, nil)
	seg := &segment{Phase: "steady", Duration: 10 * time.Second, Rate: 1000, Mix: mix}
	for _, c := range []struct {
		elapsed time.Duration
		want    string
	}{
		{9*time.Second + 600*time.Millisecond, "[steady 9s/10s] target 1000/s"},
		{10 * time.Second, "[steady 10s/10s] target 1000/s"},
		{10*time.Second + 420*time.Millisecond, "[steady draining 10s+400ms] target 1000/s"},
		{10*time.Second + 30*time.Millisecond, "[steady 10s/10s] target 1000/s"},
		{14 * time.Second, "[steady draining 10s+4s] target 1000/s"},
	} {
		line := progressLine(seg, 1000, c.elapsed, 950, 0, metricsSet(mix), targets.Classes(), nil)
		if !strings.HasPrefix(line, c.want) {
			t.Errorf("at %s: %q, want it to start %q", c.elapsed, line, c.want)
		}
	}
}
