package rundir

import (
	"testing"
	"time"

	"github.com/soakd/soakd/internal/selfhealth"
)

func TestAppendSelfLine(t *testing.T) {
	at := time.Date(2026, 12, 6, 13, 0, 1, 250e6, time.FixedZone("x", 3600))
	got := string(AppendSelfLine(nil, at, selfhealth.Sample{CPU: 1.5, ThreadCPUMax: 0.75, RunqueueDelay: 0.125, Load1: 3.2, Steal: 0.01, Threads: 9}))
	if want := "2026-12-06T12:00:01.250Z,1.5000,0.7500,0.1250,3.2000,0.0100,9\n"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	buf := make([]byte, 0, 128)
	if a := testing.AllocsPerRun(10, func() { buf = AppendSelfLine(buf[:0], at, selfhealth.Sample{CPU: 1}) }); a != 0 {
		t.Errorf("a line allocates %v times", a)
	}
}
