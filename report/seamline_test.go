package report

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestSeamLineSaysSplitAndStreams: a seam line says how many of its
// lost ops were split over the ops by weight, and when the op streams
// were reseeded rather than restored; a seam whose streams were
// restored and whose ops were all counted one by one says neither.
func TestSeamLineSaysSplitAndStreams(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sm := rundir.Seam{Phase: "steady", Down: start.Add(10 * time.Second), Resumed: start.Add(12 * time.Second), Lost: 402,
		Ops: map[string]int64{"read": 290, "update": 112}, ByWeight: 2, Streams: "reseeded: the checkpoint holds no stream positions"}
	line := SeamLine(sm, start)
	for _, want := range []string{"402 ops lost (phase steady)", "per op: 2 by the mix's weights", "streams reseeded: the checkpoint holds no stream positions"} {
		if !strings.Contains(line, want) {
			t.Errorf("seam line %q lacks %q", line, want)
		}
	}
	sm.ByWeight, sm.Streams = 0, "restored"
	if line := SeamLine(sm, start); strings.Contains(line, "weights") || strings.Contains(line, "streams") {
		t.Errorf("seam line %q: nothing to say about its split or streams", line)
	}
}
