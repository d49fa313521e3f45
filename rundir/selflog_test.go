package rundir

import (
	"os"
	"path/filepath"
	"strings"
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

// TestReadSelfLog: the lines written come back; a torn last line is
// dropped, a bad line before the end is an error naming file and line.
func TestReadSelfLog(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 12, 6, 13, 0, 1, 0, time.UTC)
	b := []byte(SelfLogHeader)
	b = AppendSelfLine(b, at, selfhealth.Sample{CPU: 1.5, RunqueueDelay: 0.25, Load1: 2, Threads: 9})
	b = AppendSelfLine(b, at.Add(time.Second), selfhealth.Sample{CPU: 0.5, Threads: 8})
	p := filepath.Join(dir, SelfLog)
	if err := os.WriteFile(p, append(b, "2026-12-06T13:00:03.000Z,1.0"...), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSelfLog(dir)
	if err != nil || len(got) != 2 || got[0].Sample.CPU != 1.5 || got[0].Sample.RunqueueDelay != 0.25 || got[1].Sample.Threads != 8 || !got[1].At.Equal(at.Add(time.Second)) {
		t.Fatalf("%v %+v", err, got)
	}
	if err := os.WriteFile(p, append(append([]byte(SelfLogHeader), "bad\n"...), b[len(SelfLogHeader):]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSelfLog(dir); err == nil || !strings.Contains(err.Error(), "self.csv:2") {
		t.Fatalf("bad line: %v", err)
	}
	if got, err := ReadSelfLog(t.TempDir()); got != nil || err != nil {
		t.Fatalf("no log: %v %v", got, err)
	}
}
