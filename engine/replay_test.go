package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// cmdTarget is a fake store that takes svc to serve each op and records
// the command each replayed op sent.
type cmdTarget struct {
	svc  time.Duration
	mu   sync.Mutex
	cmds []string
}

func (c *cmdTarget) Do(_ context.Context, r *targets.Request) error {
	parts := make([]string, len(r.Parts))
	for i, p := range r.Parts {
		parts[i] = string(p)
	}
	c.mu.Lock()
	c.cmds = append(c.cmds, strings.Join(parts, " "))
	c.mu.Unlock()
	if c.svc > 0 {
		time.Sleep(c.svc)
	}
	return nil
}

func (c *cmdTarget) Close() error { return nil }

func (c *cmdTarget) sent() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.cmds...)
}

// writeCapture writes lines to a file in a test directory.
func writeCapture(t *testing.T, name string, lines []string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ndjsonCapture is n SET ops of key kI, gap apart.
func ndjsonCapture(t *testing.T, n int, gap time.Duration) string {
	var lines []string
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf(`{"ts": %.6f, "op": "SET", "args": ["k%d", "v"]}`, 100+(time.Duration(i)*gap).Seconds(), i))
	}
	return writeCapture(t, "ops.ndjson", lines)
}

// runReplayInBubble is runReplay in a synctest bubble.
func runReplayInBubble(t *testing.T, tg targets.Target, yaml string) *rundir.Summary {
	t.Helper()
	sc := scenario(t, yaml)
	return runInBubble(t, sc, tg, Options{TargetKind: sc.Target.Kind, Interval: 100 * time.Millisecond})
}

func runReplay(t *testing.T, tg targets.Target, yaml string) *rundir.Summary {
	t.Helper()
	sc := scenario(t, yaml)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir(), Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

const replayTarget = "target: {kind: redis, url: \"redis://127.0.0.1:1\"}\n"

// At speed 2 every op is intended at half its captured offset, so the
// phase's schedule is half as long; the phase cannot end before its
// last op's intended start.
func TestReplaySpeedHalvesPhase(t *testing.T) {
	src := ndjsonCapture(t, 21, 20*time.Millisecond) // 400 ms captured
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	ix, err := capture.Build(f, st.Size(), capture.Options{Format: capture.FormatNDJSON})
	if err != nil {
		t.Fatal(err)
	}
	for _, speed := range []float64{1, 2, 0.5} {
		s := newReplayTiming(ix.Entries, speed)
		for i := uint64(0); i < 21; i++ {
			want := time.Duration(float64(time.Duration(i)*20*time.Millisecond) / speed)
			if got := s.At(i); got < want-time.Microsecond || got > want+time.Microsecond {
				t.Fatalf("speed %v: op %d intended at %v, want %v", speed, i, got, want)
			}
		}
		if d := s.Due(s.At(20)); d != 21 {
			t.Fatalf("speed %v: %d due at the last op's start", speed, d)
		}
	}
	var rates [2]float64
	for k, speed := range []string{"1", "2"} {
		tg := &cmdTarget{svc: time.Millisecond}
		sum := runReplayInBubble(t, tg, replayTarget+"phases:\n  - {name: replay, kind: replay, source: "+src+", format: ndjson, speed: "+speed+", concurrency: 1}\n")
		p := sum.Phases[0]
		if p.Kind != "replay" || p.Result.Completed != 21 || p.Result.Scheduled != 21 || p.Result.Dropped != 0 {
			t.Fatalf("speed %s: %+v", speed, p.Result)
		}
		minDur := 400 * time.Millisecond / time.Duration(k+1)
		// In a synctest bubble: the last op is sent at its intended
		// start and served in 1 ms.
		if d := p.End.Sub(p.Start); d != minDur+time.Millisecond {
			t.Fatalf("speed %s: the phase took %v, want its schedule's %v and the last op's 1 ms", speed, d, minDur)
		}
		if got := tg.sent(); len(got) != 21 || got[0] != "SET k0 v" || got[20] != "SET k20 v" {
			t.Fatalf("speed %s: sent %q", speed, got)
		}
		if p.Replay == nil || p.Replay.Ops != 21 || p.Replay.SpanSeconds != 0.4 {
			t.Fatalf("speed %s: replay result %+v", speed, p.Replay)
		}
		if _, ok := p.Result.Ops["SET"]; !ok {
			t.Fatalf("speed %s: no SET group in %v", speed, p.Result.Ops)
		}
		rates[k] = p.TargetRate
	}
	if r := rates[1] / rates[0]; r < 1.999 || r > 2.001 {
		t.Fatalf("target rates %v: speed 2 should double it", rates)
	}
}

// A store that cannot keep up with the replay's rate makes it late, and
// ops later than max_lag are dropped and counted, like any open-loop
// phase: nothing vanishes.
func TestReplayOverloadLagsAndDrops(t *testing.T) {
	src := ndjsonCapture(t, 400, time.Millisecond)
	tg := &cmdTarget{svc: 5 * time.Millisecond} // at most 200 ops/s on one worker
	sum := runReplayInBubble(t, tg, replayTarget+"phases:\n  - {name: replay, kind: replay, source: "+src+", format: ndjson, rate: 2000, concurrency: 1, max_lag: 30ms}\n")
	res := sum.Phases[0].Result
	if res.Scheduled != 400 {
		t.Fatalf("scheduled %d, want the capture's 400", res.Scheduled)
	}
	// In a synctest bubble: the worker sends one op every 5 ms from 0
	// to 225 ms, each time the first still within 30 ms of its intended
	// start; every other op was later than that when it got to it.
	if res.Completed != 46 || res.Dropped != 354 {
		t.Fatalf("completed %d + dropped %d; want 46 + 354", res.Completed, res.Dropped)
	}
	if res.MaxLag <= 0 {
		t.Fatalf("max lag %v: a late replay shows its lag", res.MaxLag)
	}
	if sum.Phases[0].TargetRate != 2000 {
		t.Fatalf("target rate %v", sum.Phases[0].TargetRate)
	}
}

// Commands that cannot be replayed are counted and listed; keys get the
// prefix; a looping replay runs past the capture's end; random order
// sends the same ops in another order.
func TestReplayMonitorSkipsPrefixLoopOrder(t *testing.T) {
	src := writeCapture(t, "capture.txt", []string{
		"OK",
		`1000.000000 [0 127.0.0.1:5000] "CLIENT" "SETNAME" "x"`,
		`1000.001000 [0 127.0.0.1:5000] "SET" "a" "1"`,
		`1000.002000 [0 127.0.0.1:5000] "SUBSCRIBE" "ch"`,
		`1000.003000 [0 127.0.0.1:5000] "MSET" "b" "2" "c" "3"`,
		`1000.004000 [0 127.0.0.1:5000] "BLPOP" "q" "0"`,
		`1000.005000 [0 127.0.0.1:5000] "GET" "a"`,
		`1000.006000 [0 127.0.0.1:5000] "DEL" "a" "b"`,
		`1000.007000 [0 127.0.0.1:5000] "PING"`,
		`1000.007000 [0 lua] "INCR" "n"`,
	})
	tg := &cmdTarget{}
	sum := runReplay(t, tg, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+src+", key_prefix: \"replay:\", concurrency: 1}\n")
	p := sum.Phases[0]
	want := []string{"SET replay:a 1", "MSET replay:b 2 replay:c 3", "GET replay:a", "DEL replay:a replay:b", "PING"}
	if got := tg.sent(); !slices.Equal(got, want) {
		t.Fatalf("sent %q, want %q", got, want)
	}
	if s := p.Replay.Skipped; s["CLIENT"] != 1 || s["SUBSCRIBE"] != 1 || s["BLPOP"] != 1 || len(s) != 3 || p.Replay.ScriptLines != 1 {
		t.Fatalf("skipped %v, script lines %d", s, p.Replay.ScriptLines)
	}
	for _, g := range []string{"SET", "MSET", "GET", "DEL", "PING"} {
		if p.Result.Ops[g].Count != 1 {
			t.Errorf("group %s: %+v", g, p.Result.Ops[g])
		}
	}

	tg = &cmdTarget{}
	sum = runReplay(t, tg, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+src+", loop: true, duration: 300ms, concurrency: 1}\n")
	if n := len(tg.sent()); n < 10 {
		t.Fatalf("a looping replay of 5 ops over 300ms sent %d", n)
	}

	tg = &cmdTarget{}
	runReplay(t, tg, replayTarget+"seed: 7\nphases:\n  - {name: r, kind: replay, source: "+src+", order: random, rate: 1000, concurrency: 1}\n")
	got := tg.sent()
	sorted, ws := slices.Sorted(slices.Values(got)), []string{"DEL a b", "GET a", "MSET b 2 c 3", "PING", "SET a 1"}
	if !slices.Equal(sorted, ws) {
		t.Fatalf("random order sent %q", got)
	}
}

// Bad captures are refused before anything runs, naming the line.
func TestReplayRefusals(t *testing.T) {
	bad := writeCapture(t, "bad.txt", []string{"OK", `1.0 [0 a:1] "SET" "k" "v"`, `1.1 [0 a:1] "SET" "k`})
	destructive := writeCapture(t, "flush.txt", []string{`1.0 [0 a:1] "SET" "k" "v"`, `1.1 [0 a:1] "FLUSHALL"`})
	useless := writeCapture(t, "useless.txt", []string{"OK", `1.0 [0 a:1] "MONITOR"`})
	eval := writeCapture(t, "eval.txt", []string{`1.0 [0 a:1] "SET" "k" "v"`, `1.1 [0 a:1] "EVAL" "return redis.call('FLUSHALL')" "0"`, `1.1 [0 lua] "FLUSHALL"`})
	fcall := writeCapture(t, "fcall.txt", []string{`1.0 [0 a:1] "fcall" "wipe" "0"`})
	for _, tc := range []struct{ src, want string }{
		{eval, "line 2: EVAL runs a Lua script"},
		{fcall, "line 1: FCALL runs a function"},
		{bad, "line 3: argument 2: unterminated quoted string"},
		{destructive, "line 2: FLUSHALL destroys data"},
		{useless, "no op to replay in 2 lines (skipped: MONITOR x1)"},
	} {
		// Validation indexes the capture too (and refuses it the same
		// way); the capture is changed after it here, so the run's own
		// index is what refuses it.
		b, err := os.ReadFile(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tc.src, []byte(`1.0 [0 a:1] "SET" "k" "v"`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		sc := scenario(t, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+tc.src+"}\n")
		if err := os.WriteFile(tc.src, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), Options{Scenario: sc, Target: &cmdTarget{}, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "phase r: replay") {
			t.Errorf("%s: error %v, want one saying %q", tc.src, err, tc.want)
		}
	}
}

// appendTarget appends to the capture when the replay sends its first
// op, and rewrites the capture's last line in place.
type appendTarget struct {
	cmdTarget
	path string
	once sync.Once
}

func (a *appendTarget) Do(ctx context.Context, r *targets.Request) error {
	a.once.Do(func() {
		b, err := os.ReadFile(a.path)
		if err != nil {
			panic(err)
		}
		// Overwrite op 3's key in place (a quote lost: the line no longer
		// parses) and append a line.
		i := strings.Index(string(b), `"k3"`)
		copy(b[i:], `"k3 `)
		b = append(b, `{"ts": 100.5, "op": "SET", "args": ["late", "v"]}`+"\n"...)
		f, err := os.OpenFile(a.path, os.O_WRONLY, 0)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(b, 0); err != nil {
			panic(err)
		}
	})
	return a.cmdTarget.Do(ctx, r)
}

// A capture changed during the run is not read past its size at the
// start, and a line rewritten under the run fails its op with an error
// instead of sending other bytes.
func TestReplayFileChangedDuringRun(t *testing.T) {
	src := ndjsonCapture(t, 5, 50*time.Millisecond)
	tg := &appendTarget{path: src}
	sum := runReplay(t, tg, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+src+", format: ndjson, concurrency: 1}\n")
	got := tg.sent()
	want := []string{"SET k0 v", "SET k1 v", "SET k2 v", "SOAKD.REPLAY.UNREADABLE", "SET k4 v"}
	if !slices.Equal(got, want) {
		t.Fatalf("sent %q, want %q", got, want)
	}
	if n := sum.Phases[0].Result.Scheduled; n != 5 {
		t.Fatalf("scheduled %d; the appended line was replayed", n)
	}
}

// slowTarget serves SET in 30 ms and everything else at once.
type slowTarget struct{ cmdTarget }

func (s *slowTarget) Do(ctx context.Context, r *targets.Request) error {
	if len(r.Parts) > 0 && string(r.Parts[0]) == "SET" {
		time.Sleep(30 * time.Millisecond)
	}
	return s.cmdTarget.Do(ctx, r)
}

// slo.latency by a replayed command's name is judged on that command's
// group alone: SET (never faster than its 30 ms service) fails a 1 ms
// p99, GET passes a 10 s one. A name no group has stops the run before
// any op, listing the groups.
func TestReplaySLOByCommand(t *testing.T) {
	var lines []string
	for i := 0; i < 10; i++ {
		lines = append(lines, fmt.Sprintf(`{"ts": %d.001, "op": "SET", "args": ["k%d", "v"]}`, 100+i, i), fmt.Sprintf(`{"ts": %d.002, "op": "GET", "args": ["k%d"]}`, 100+i, i))
	}
	src := writeCapture(t, "ops.ndjson", lines)
	sum := runReplay(t, &slowTarget{}, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+src+", format: ndjson, rate: 200, concurrency: 2}\nslo: {latency: {SET: {p99: 1ms}, GET: {p99: 10s}}}\n")
	v := sum.Phases[0].SLO
	got := map[string]bool{}
	for _, c := range v.Checks {
		if c.What == "latency p99" || c.Percentile == 99 {
			got[c.Op] = c.Passed
		}
	}
	if v.Passed || got["SET"] || !got["GET"] || len(got) != 2 {
		t.Fatalf("verdict %+v", v)
	}
	sc := scenario(t, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+src+", format: ndjson}\n")
	sc.SLO.Latency = map[string]map[string]scenarios.Duration{"HGET": {"p99": scenarios.Duration(time.Millisecond)}}
	tg := &cmdTarget{}
	_, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "slo.latency.HGET: no op or replay latency group of that name (the replay groups: GET, SET)") {
		t.Errorf("unknown group: %v", err)
	}
	if len(tg.sent()) != 0 {
		t.Errorf("%d ops sent before the refusal", len(tg.sent()))
	}
}
