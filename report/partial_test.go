package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/rundir"
)

// partialDir is a run dir as a killed run leaves it: only
// latency.hlog.partial (5 intervals of steady.read, a torn last line),
// plus the reserved write-error note holding note (blank: killed).
func partialDir(t *testing.T, note string) string {
	t.Helper()
	dir := t.TempDir()
	writeLatencyLog(t, dir, "steady", mergeT0, 5, 2_000_000)
	f, err := os.OpenFile(filepath.Join(dir, rundir.LatencyLog), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("Tag=steady.read.latency,6.000,1.0") // torn
	f.Close()
	if err := os.Rename(filepath.Join(dir, rundir.LatencyLog), filepath.Join(dir, rundir.PartialLog)); err != nil {
		t.Fatal(err)
	}
	n, err := rundir.ReserveWriteNote(dir)
	if err != nil {
		t.Fatal(err)
	}
	if note != "" {
		n.Record(errString(note))
	}
	n.Close()
	return dir
}

type errString string

func (e errString) Error() string { return string(e) }

// The killed-run report says what the partial log cannot know: errors,
// drops and lag are unknown (not 0), the phase's kind is unknown
// without run.json (not "(?)"), and a full disk is not called killed.
func TestPartialReport(t *testing.T) {
	for _, c := range []struct {
		name, note, status string
		want               []string
	}{
		{"killed", "", rundir.StatusKilled, []string{"status: killed", "killed: no summary.json", "SLO not judged: the run was killed"}},
		{"disk full", "latency.hlog.partial: write: no space left on device", rundir.StatusWriteFailed,
			[]string{"status: write_failed", "write failed: the results could not be written (latency.hlog.partial: write: no space left on device)",
				"SLO not judged: the run's results could not be written"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := partialDir(t, c.note)
			s, _, err := rundir.ReadPartial(dir)
			if err != nil {
				t.Fatal(err)
			}
			if s.Status != c.status || !s.Partial {
				t.Fatalf("status %q partial %v, want %q", s.Status, s.Partial, c.status)
			}
			txt := Text(s)
			want := append([]string{"phase steady (unknown kind)", "errors unknown", "dropped unknown", "max lag unknown", "target unknown"}, c.want...)
			for _, w := range want {
				if !strings.Contains(txt, w) {
					t.Errorf("report lacks %q:\n%s", w, txt)
				}
			}
			for _, bad := range []string{"(?)", " 0 errors", " 0 dropped", "max lag 0"} {
				if strings.Contains(txt, bad) {
					t.Errorf("report has %q:\n%s", bad, txt)
				}
			}
			if c.status == rundir.StatusWriteFailed && strings.Contains(txt, "killed") {
				t.Errorf("a full disk's run is called killed:\n%s", txt)
			}
		})
	}
}

// The HTML report's latency over time reads latency.hlog.partial when
// the run left no latency.hlog (a torn last line left out).
func TestTimelineReadsPartialLog(t *testing.T) {
	dir := partialDir(t, "")
	s, _, err := rundir.ReadPartial(dir)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := ReadTimeline(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	pts := tl.Phases["steady"]["read"]
	if len(pts) != 5 || pts[0].Count != 100 || !pts[0].At.Equal(mergeT0) {
		t.Fatalf("timeline from the partial log: %+v", pts)
	}
	page := string(ReportHTML([]*rundir.Summary{s}, []*Timeline{tl}))
	if !strings.Contains(page, "latency over time") {
		t.Error("the HTML report has no latency-over-time chart for a killed run")
	}
	if !strings.Contains(page, "phase steady (unknown kind)") || !strings.Contains(page, "errors, drops, lag and target rate unknown") {
		t.Error("the HTML report of a killed run does not say what is unknown")
	}
}
