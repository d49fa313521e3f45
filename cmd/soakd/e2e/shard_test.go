package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
)

// exitRefused is soakd's exit code for refused input (cmd/soakd/app.go).
const exitRefused = 2

const shardRecords = 12000

// shardScenario: ordered keys so the test can read record numbers back;
// zipfian reads/updates stay inside keyspace.records, so the only keys
// beyond it are the steady phase's inserts.
// shardSLO judges what a sharded run controls, not the host's speed:
// no errors (a read of a record the barrier should have waited for).
const shardSLO = "slo: {max_error_ratio: 0, max_dropped_ratio: 1}\n"

// shardScenario is the sharded runs' scenario: a load, then dur of
// steady at rate, judged by slo (max_lag 30 s in both phases: a loaded
// host drops nothing, so every scheduled op completes; a load that
// dropped records would fail the steady phase's reads as not_found, as
// it did at load 17).
func shardScenario(t *testing.T, rate int, dur, slo string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "shard.yaml")
	y := fmt.Sprintf(`name: shard-test
target: {kind: redis}
record: {fields: 2, field_bytes: 16}
keyspace: {records: %d, prefix: "rec:", distribution: zipfian, ordered: true}
phases:
  - {name: load, kind: load, concurrency: 4, rate: 24000, max_lag: 30s}
  - name: steady
    kind: steady
    rate: %d
    duration: %s
    concurrency: 8
    max_lag: 30s
    mix: {read: 45, update: 45, insert: 10}
%s`, shardRecords, rate, dur, slo)
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// startShards starts n shard processes with a shared --start-at and,
// when runID is set, --run-id (else the run id comes from --start-at).
func startShards(t *testing.T, bin, scen, url string, n int, dirs []string, listen map[int]string, runID string, extra ...string) []*exec.Cmd {
	t.Helper()
	at := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	cmds := make([]*exec.Cmd, n)
	for i := 0; i < n; i++ {
		args := []string{"run", scen, "--target", url, "--out", dirs[i], "--listen", listen[i], "--quiet", "--start-at", at}
		if runID != "" {
			args = append(args, "--run-id", runID)
		}
		c := exec.Command(bin, append(args, extra...)...)
		c.Env = append(os.Environ(), fmt.Sprintf("SOAKD_SHARD=%d/%d", i, n))
		c.Stderr = &strings.Builder{}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		cmds[i] = c
	}
	return cmds
}

func TestShardProcessesHoldRateLoadOnceAndMerge(t *testing.T) {
	// -short is the quick local loop; make test and CI never pass it, so this runs there.
	if testing.Short() {
		t.Skip("builds the binary and runs 4 processes")
	}
	srv := startTestRedis(t)
	bin := buildSoakd(t)
	const n, rate = 4, 4000
	scen := shardScenario(t, rate, "4s", shardSLO)
	base := t.TempDir()
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = filepath.Join(base, fmt.Sprintf("shard%d", i))
	}
	runID := fmt.Sprintf("shard-test-%d", time.Now().UnixNano())
	cmds := startShards(t, bin, scen, "redis://"+srv.Addr(), n, dirs, nil, runID)
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s%s", i, err, c.Stderr, summaryText(dirs[i]))
		}
	}

	// Per-shard summaries: shard label, rate/N, disjoint load slices.
	var achieved, target float64
	var loaded, inserts, scheduled, completed int64
	for i, d := range dirs {
		s, err := rundir.ReadSummary(d)
		if err != nil {
			t.Fatal(err)
		}
		if s.Shard != (rundir.Shard{Index: i, Count: n}) {
			t.Fatalf("shard %d summary says shard %v", i, s.Shard)
		}
		ld, st := s.Phases[0], s.Phases[1]
		want := int64((i+1)*shardRecords/n - i*shardRecords/n)
		if ld.Completed != want || ld.Errors != 0 {
			t.Fatalf("shard %d loaded %d records (%d errors), want %d", i, ld.Completed, ld.Errors, want)
		}
		if st.TargetRate != rate/n {
			t.Fatalf("shard %d target rate %v, want %v", i, st.TargetRate, rate/n)
		}
		// The barrier after the load holds every shard until all have
		// loaded: no read may miss a record, and nothing else may fail.
		if nf := st.Ops["read"].Errors["not_found"]; nf != 0 || st.Errors != 0 || st.Dropped != 0 {
			t.Fatalf("shard %d: %d not_found reads, %d errors, %d dropped: %+v", i, nf, st.Errors, st.Dropped, st.Ops)
		}
		loaded += ld.Completed
		inserts += st.Ops["insert"].Count
		achieved += st.AchievedRate
		target += st.TargetRate
		scheduled += int64(st.Scheduled)
		completed += st.Completed
	}
	if target != rate {
		t.Fatalf("target rates sum to %v, want %d", target, rate)
	}
	// Together the shards scheduled and completed exactly the 4 s at
	// 4000 ops/s; the achieved rate (ops completed inside each window)
	// can only fall short of it, by the ops a busy host finished late.
	if scheduled != 4*rate || completed != 4*rate || achieved > rate*1.001 || achieved < rate/2 {
		t.Fatalf("shards scheduled %d, completed %d, achieved %.1f ops/s together: want %d, %d, <= %d", scheduled, completed, achieved, 4*rate, 4*rate, rate)
	}
	if loaded != shardRecords {
		t.Fatalf("shards loaded %d records, want %d", loaded, shardRecords)
	}
	if inserts == 0 {
		t.Fatal("no inserts in the steady phase")
	}

	// The store holds records 0..R-1 exactly, plus one distinct key per
	// steady insert, all beyond R.
	rc := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true})
	defer rc.Close()
	ctx := context.Background()
	var nums []int64
	iter := rc.Scan(ctx, 0, "rec:*", 1000).Iterator()
	for iter.Next(ctx) {
		v, err := strconv.ParseInt(strings.TrimPrefix(iter.Val(), "rec:"), 10, 64)
		if err != nil {
			t.Fatalf("key %q", iter.Val())
		}
		nums = append(nums, v)
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
	if int64(len(nums)) != shardRecords+inserts {
		t.Fatalf("store holds %d record keys, want %d loaded + %d inserted", len(nums), shardRecords, inserts)
	}
	for i := 0; i < shardRecords; i++ {
		if nums[i] != int64(i) {
			t.Fatalf("record %d missing from the load (found %d at position %d)", i, nums[i], i)
		}
	}

	// Merge: soakd report over all dirs, and an independent merge of the
	// shards' latency.hlog intervals (no warmup, so equal to the totals).
	page := filepath.Join(base, "merged.html")
	code, out, errb := runSoakd(t, append([]string{"report", "--html", page}, dirs...)...)
	if code != 0 {
		t.Fatalf("report exit %d: %s", code, errb.String())
	}
	if h, err := os.ReadFile(page); err != nil || !strings.Contains(string(h), "(merged 4 shards)") || strings.Count(string(h), "<svg ") < 2 {
		t.Errorf("merged report.html: %v\n%.300s", err, h)
	}
	m, err := report.MergeRunDirs(dirs)
	if err != nil {
		t.Fatal(err)
	}
	indep := map[string]*hdr.Histogram{}
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(d, "latency.hlog"))
		if err != nil {
			t.Fatal(err)
		}
		lr := hdr.NewHistogramLogReader(f)
		for {
			h, err := lr.NextIntervalHistogram()
			if err != nil {
				t.Fatal(err)
			}
			if h == nil {
				break
			}
			if indep[h.Tag()] == nil {
				indep[h.Tag()] = hdr.New(1000, 3600e9, 3)
			}
			indep[h.Tag()].Merge(h)
		}
		f.Close()
	}
	if len(indep) != len(m.Hists) || len(indep) < 8 {
		t.Fatalf("merged %d tags, independent merge has %d", len(m.Hists), len(indep))
	}
	for tag, h := range indep {
		if !h.Equals(m.Hists[tag]) {
			t.Fatalf("tag %s: merged histogram (count %d) differs from the independent merge (count %d)", tag, m.Hists[tag].TotalCount(), h.TotalCount())
		}
	}
	steady := m.Phases[1]
	rd := indep["steady.read.latency"]
	if got := steady.Ops["read"].Latency.P99; got != float64(rd.ValueAtQuantile(99))/1e9 {
		t.Fatalf("merged read p99 %v, independent %v", got, float64(rd.ValueAtQuantile(99))/1e9)
	}
	if steady.Ops["insert"].Count != inserts || steady.TargetRate != rate {
		t.Fatalf("merged steady: %d inserts, target %v", steady.Ops["insert"].Count, steady.TargetRate)
	}
	txt := out.String()
	for _, want := range []string{"merged 4 shards", "shard 3/4: target 1000 ops/s", fmt.Sprintf("phase steady (steady), all shards: target %d ops/s", rate), "SLO (all shards) PASSED"} {
		if !strings.Contains(txt, want) {
			t.Fatalf("report lacks %q:\n%s", want, txt)
		}
	}
}

func TestShardKilledMidRunIsMissing(t *testing.T) {
	// -short is the quick local loop; make test and CI never pass it, so this runs there.
	if testing.Short() {
		t.Skip("builds the binary and runs processes")
	}
	srv := startTestRedis(t)
	bin := buildSoakd(t)
	// 8 s of steady: long enough that shard 1 is still running when it is
	// killed, however slowly a busy host starts the processes.
	// What is tested is the report of a run with a shard missing, not
	// the latency or rate a busy host held: the shards that finish must
	// exit 0, so their SLO counts nothing a missing partner causes.
	scen := shardScenario(t, 1000, "8s", "slo: {max_dropped_ratio: 1}\n")
	base := t.TempDir()
	dirs := []string{filepath.Join(base, "s0"), filepath.Join(base, "s1"), filepath.Join(base, "s2")}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmds := startShards(t, bin, scen, "redis://"+srv.Addr(), 3, dirs, map[int]string{2: addr}, "")
	// Shard 2's metrics carry its shard label. Poll until it runs steady
	// ops (a busy host may take seconds to start the processes) rather
	// than read at a fixed time: the kill must come after the shards met
	// at the load/steady barrier, else the others wait there for shard 1.
	load := regexp.MustCompile(`soakd_ops_total\{[^}]*phase="load",scenario="shard-test",shard="2"\} [1-9]`)
	ops := regexp.MustCompile(`soakd_ops_total\{[^}]*phase="steady",scenario="shard-test",shard="2"\} [1-9]`)
	var body string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if ops.MatchString(body) && load.MatchString(body) {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no soakd_ops_total with shard=\"2\" within 60 s:\n%s", grepLines(body, "soakd_"))
		}
	}

	if err := cmds[1].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Killed mid-run, not after it ended: else this test proves nothing.
	if err := cmds[1].Wait(); err == nil {
		t.Fatal("shard 1 finished before it was killed: widen its steady phase")
	}
	for _, i := range []int{0, 2} {
		if err := cmds[i].Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s%s", i, err, cmds[i].Stderr, summaryText(dirs[i]))
		}
	}
	run := func(args ...string) (int, string) {
		code, _, errb := runSoakd(t, append([]string{"report"}, args...)...)
		return code, errb.String()
	}
	code, msg := run(dirs...)
	if code != exitRefused || !strings.Contains(msg, "shard 1/3 missing") || !strings.Contains(msg, "no summary.json") {
		t.Fatalf("killed shard: exit %d, %q", code, msg)
	}
	code, msg = run(dirs[0], filepath.Join(base, "nope"), dirs[2])
	if code != exitRefused || !strings.Contains(msg, "shard 1/3 missing") || !strings.Contains(msg, "no such run directory") {
		t.Fatalf("missing dir: exit %d, %q", code, msg)
	}
	code, msg = run(dirs[0])
	if code != 0 {
		// A single shard dir is reported on its own, like any run.
		t.Fatalf("single shard report: exit %d %s", code, msg)
	}
	code, msg = run(dirs[0], dirs[2], dirs[0])
	if code != exitRefused || !strings.Contains(msg, "shard 0/3 given twice") {
		t.Fatalf("duplicate: exit %d, %q", code, msg)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestShardRunIDWarningAndBarrierTimeout: a shard without a run id warns
// once and runs unsynchronised; a shard whose partners never come gives
// up at --barrier-timeout, naming itself, the barrier and the count, and
// writes its run directory marked interrupted.
func TestShardRunIDWarningAndBarrierTimeout(t *testing.T) {
	srv := startTestRedis(t)
	scen := shardScenario(t, 100, "1s", shardSLO)
	run := func(args ...string) (int, string) {
		base := []string{"run", scen, "--target", "redis://" + srv.Addr(), "--listen", "", "--quiet"}
		code, _, errb := runSoakd(t, append(base, args...)...)
		return code, errb.String()
	}
	// Shard 0/2 alone reads the half of the keyspace shard 1 never
	// loads, so its SLO fails (exit 1); it must not wait for shard 1.
	adir := filepath.Join(t.TempDir(), "a")
	code, msg := run("--shard", "0/2", "--out", adir)
	if code == exitRefused || strings.Count(msg, "phases are not synchronised across shards") != 1 {
		t.Fatalf("no run id: exit %d\n%s", code, msg)
	}
	if s, err := rundir.ReadSummary(adir); err != nil || len(s.Phases) != 2 || s.Status != rundir.StatusCompleted {
		t.Fatalf("no run id: summary %+v %v", s, err)
	}
	dir := filepath.Join(t.TempDir(), "b")
	t0 := time.Now()
	code, msg = run("--shard", "1/2", "--out", dir, "--run-id", fmt.Sprintf("lonely-%d", time.Now().UnixNano()), "--barrier-timeout", "500ms")
	if code != exitFailed || time.Since(t0) > 10*time.Second {
		t.Fatalf("lonely shard: exit %d after %s\n%s", code, time.Since(t0), msg)
	}
	for _, want := range []string{"shard 1/2: barrier before load", "1 of 2 shards arrived", "--barrier-timeout"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "not synchronised") {
		t.Fatalf("warned with a run id:\n%s", msg)
	}
	s, err := rundir.ReadSummary(dir)
	if err != nil || s.Status != rundir.StatusInterrupted || len(s.Phases) != 0 {
		t.Fatalf("summary %+v %v", s, err)
	}
	if code, msg := run("--shard", "1/2", "--barrier-timeout", "0s", "--run-id", "x"); code != exitRefused || !strings.Contains(msg, "must be positive") {
		t.Fatalf("--barrier-timeout 0s: exit %d %s", code, msg)
	}
}

// summaryText is a run directory's summary.txt, for a failure message:
// a shard's exit status 1 is a missed SLO, which only the summary names.
func summaryText(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "summary.txt"))
	if err != nil {
		return "(no summary.txt: " + err.Error() + ")"
	}
	return string(b)
}
