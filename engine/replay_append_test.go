package engine

import (
	"strings"
	"testing"
	"time"
)

// A looping replay goes over the capture as it was indexed pass after
// pass: lines appended after the run started are never sent, however
// often the capture starts over.
func TestReplayLoopSkipsAppended(t *testing.T) {
	src := ndjsonCapture(t, 5, 10*time.Millisecond)
	tg := &appendTarget{path: src}
	sum := runReplayInBubble(t, tg, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+src+", format: ndjson, loop: true, duration: 1s, concurrency: 1}\n")
	sent := tg.sent()
	k0 := 0
	for _, c := range sent {
		if strings.Contains(c, "late") {
			t.Fatalf("the appended line was sent: %q", c)
		}
		if c == "SET k0 v" {
			k0++
		}
	}
	if k0 < 5 {
		t.Fatalf("only %d passes over the capture", k0)
	}
	if uint64(len(sent)) != sum.Phases[0].Result.Scheduled {
		t.Fatalf("sent %d, scheduled %d", len(sent), sum.Phases[0].Result.Scheduled)
	}
}
