package engine

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/soakd/soakd/internal/testutil"
)

// hdrJar is the Debian libhdrhistogram-java jar: the reference
// implementation's HistogramLogProcessor reads soakd's latency.hlog.
const hdrJar = "/usr/share/java/hdrhistogram.jar"

var hgrmTotals = regexp.MustCompile(`#\[Mean\s+=\s+([0-9.]+), StdDeviation\s+=\s+[0-9.]+\]\s*#\[Max\s+=\s+([0-9.]+), Total count\s+=\s+([0-9]+)\]`)

// TestHlogReadByJavaHdrHistogram: Java's HistogramLogProcessor (the
// HdrHistogram reference) decodes every per-op tag of a run's
// latency.hlog, and its totals (count, max, mean over all intervals)
// equal the summary's. Skipped without java and the jar (failed under SOAKD_REQUIRE_TOOLS=1)
// (apt-get install -y default-jre-headless libhdrhistogram-java).
func TestHlogReadByJavaHdrHistogram(t *testing.T) {
	t.Parallel()
	java := testutil.NeedTool(t, "java")
	testutil.NeedFile(t, hdrJar)
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: load, kind: load, concurrency: 2}
  - {name: steady, kind: steady, rate: 2000, duration: 2s, concurrency: 4, mix: {get: 70, set: 30}}
`)
	sum, dir := runEmbedded(t, sc)
	st := sum.Phases[1]
	for _, op := range []string{"get", "set"} {
		for _, timing := range []string{"latency", "service"} {
			want := st.Ops[op].Latency
			if timing == "service" {
				want = st.Ops[op].Service
			}
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(java, "-cp", hdrJar, "org.HdrHistogram.HistogramLogProcessor",
				"-i", filepath.Join(dir, "latency.hlog"), "-tag", "steady."+op+"."+timing, "-o", out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("HistogramLogProcessor: %v\n%s", err, b)
			}
			hgrm, err := os.ReadFile(out + ".hgrm")
			if err != nil {
				t.Fatal(err)
			}
			m := hgrmTotals.FindSubmatch(hgrm)
			if m == nil {
				t.Fatalf("%s.%s: no totals in\n%s", op, timing, hgrm)
			}
			mean, _ := strconv.ParseFloat(string(m[1]), 64)
			mx, _ := strconv.ParseFloat(string(m[2]), 64)
			n, _ := strconv.ParseInt(string(m[3]), 10, 64)
			// hlog values are ns; the processor prints them / 1e6 (ms) by default.
			if n != want.Count || n == 0 {
				t.Errorf("%s.%s: java counts %d, summary %d", op, timing, n, want.Count)
			}
			if d := math.Abs(mx/1e3 - want.Max); d > 1e-6 {
				t.Errorf("%s.%s: java max %.6f s, summary %.6f s", op, timing, mx/1e3, want.Max)
			}
			if d := math.Abs(mean/1e3 - want.Mean); d > 1e-6*math.Max(1, want.Mean*1e3) {
				t.Errorf("%s.%s: java mean %.6f s, summary %.6f s", op, timing, mean/1e3, want.Mean)
			}
		}
	}
}
