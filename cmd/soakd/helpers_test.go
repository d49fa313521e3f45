package main

import (
	"context"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// syncBuf is a writer safe for concurrent goroutines.
type syncBuf = testutil.SyncBuffer

func httpGet(t *testing.T, url string) string {
	t.Helper()
	return testutil.HTTPGet(t, url)
}

// runTimeline runs scenario file scen into out (a failed SLO is fine:
// exit 1) and reads back its summary and latency timeline.
func runTimeline(t *testing.T, scen, out string) (*rundir.Summary, *report.Timeline) {
	t.Helper()
	a, _, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", scen, "--out", out, "--listen", "", "--quiet"}); code > 1 {
		t.Fatalf("run: exit %d: %s", code, errb)
	}
	s, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := report.ReadTimeline(out, s)
	if err != nil {
		t.Fatal(err)
	}
	return s, tl
}
