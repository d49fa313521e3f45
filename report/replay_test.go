package report

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

// The replay line counts the skipped commands and the lines a script
// issued, which were not sent.
func TestReplayLineCountsScriptLines(t *testing.T) {
	got := replayLine(&rundir.ReplayResult{Source: "c.txt", Format: "monitor", Ops: 10, Lines: 21, Skipped: map[string]int64{"CLIENT": 1}, ScriptLines: 10})
	for _, want := range []string{"1 skipped (not replayable): CLIENT x1", "10 lines a script issued ([db lua]) not sent"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
