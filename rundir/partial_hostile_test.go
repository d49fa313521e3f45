package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An empty latency.hlog.partial says it is empty, and a random one is
// refused as not an interval log; neither reads as a log that "ends on
// a whole interval".
func TestReadPartialEmptyOrForeign(t *testing.T) {
	for _, tc := range []struct {
		name, content, ending, err string
	}{
		{"empty", "", "the log is empty", ""},
		{"torn magic", "#[Histogram log", "the log is empty", ""},
		{"header only", hlogMagic + "1.3]\n#[StartTime: 1765000000.000 (seconds since epoch)]\n", "header and no interval", ""},
		{"random", "\x8f\x02garbage that is no log\n1,2,3\n", "", "not an interval log"},
		{"csv", "time,op,count\n1,get,3\n", "", "not an interval log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, PartialLog), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			s, ending, err := ReadPartial(dir)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), PartialLog) {
					t.Fatalf("err = %v, want one naming %s and saying %q", err, PartialLog, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(ending, tc.ending) || strings.Contains(ending, "whole interval") {
				t.Errorf("ending = %q, want %q", ending, tc.ending)
			}
			if !strings.Contains(s.StatusReason, tc.ending) {
				t.Errorf("status reason %q does not say %q", s.StatusReason, tc.ending)
			}
		})
	}
}
