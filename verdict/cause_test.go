package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestAttributeRule: each cause, and the order the rule checks them in.
func TestAttributeRule(t *testing.T) {
	confirms := &rundir.ServerSide{Command: "get", PerCall: &rundir.RatioInterval{Estimate: 2, Lo: 1.5, Hi: 2.5, Level: 0.95}, Busy: [2]float64{0.01, 0.02}, Confirms: true}
	flat := &rundir.ServerSide{Command: "get", PerCall: &rundir.RatioInterval{Estimate: 1.02, Lo: 0.9, Hi: 1.1, Level: 0.95}, Busy: [2]float64{0.01, 0.011}}
	bgsave := ServerEvents{Persistence: []string{rundir.PersistBGSave}, Forks: 1, ForkMax: 0.012, Seconds: 10}
	cases := []struct {
		name string
		e    Evidence
		want string
	}{
		{"bound first", Evidence{Bound: rundir.BoundGenerator, BoundWhy: "cpu", Server: confirms, Win: bgsave}, rundir.CauseBound},
		{"swap before persistence", Evidence{Server: confirms, Win: ServerEvents{SwapGrowth: 4 << 20, Forks: 1}}, rundir.CauseMemory},
		{"swap under 1 MiB is not", Evidence{Server: flat, Win: ServerEvents{SwapGrowth: 4 << 10, Seconds: 10}}, rundir.CauseNetwork},
		{"evictions", Evidence{Server: confirms, Win: ServerEvents{Evicted: 500, Seconds: 10}, Ref: ServerEvents{Evicted: 10, Seconds: 10}}, rundir.CauseMemory},
		{"evictions as in the reference", Evidence{Server: confirms, Win: ServerEvents{Evicted: 100, Seconds: 10}, Ref: ServerEvents{Evicted: 90, Seconds: 10}}, rundir.CauseServer},
		{"bgsave", Evidence{Server: confirms, Win: bgsave}, rundir.CausePersistence},
		{"bgsave in both", Evidence{Server: flat, Win: bgsave, Ref: bgsave}, rundir.CauseNetwork},
		{"server per call", Evidence{Server: confirms}, rundir.CauseServer},
		{"server busy", Evidence{Server: &rundir.ServerSide{Command: "get", PerCall: &rundir.RatioInterval{Estimate: 1, Lo: 0.9, Hi: 1.1, Level: 0.95}, Busy: [2]float64{0.01, 0.4}, Confirms: true}}, rundir.CauseServer},
		{"server flat", Evidence{Server: flat}, rundir.CauseNetwork},
		{"no server figures", Evidence{}, rundir.CauseUnknown},
	}
	for _, c := range cases {
		x := Attribute(c.e)
		if x.Cause != c.want || x.Why == "" {
			t.Errorf("%s: %q (%s), want %q", c.name, x.Cause, x.Why, c.want)
		}
	}
	x := Attribute(Evidence{Server: confirms, Win: bgsave, SelfCPU: [2]float64{0.3, 0.4}, Cores: 2})
	if got := strings.Join(x.Events, "; "); got != "bgsave; 1 fork(s), longest 12.00ms; soakd CPU 0.30 -> 0.40 of 2 cores" {
		t.Fatalf("events %q", got)
	}
}

// samplesOf builds a server log: one sample a second from t0 with the
// get counters and extra figures per second.
func samplesOf(t0 time.Time, perCall []float64, callsPerSec float64, extra func(i int, st map[string]float64)) []rundir.ServerSample {
	var out []rundir.ServerSample
	calls, secs := 0.0, 0.0
	for i := 0; i <= len(perCall); i++ {
		if i > 0 {
			calls += callsPerSec
			secs += callsPerSec * perCall[i-1]
		}
		st := map[string]float64{"cmd_get_calls_total": calls, "cmd_get_seconds_total": secs, "cmd_info_calls_total": float64(i), "cmd_info_seconds_total": float64(i) * 0.5}
		if extra != nil {
			extra(i, st)
		}
		out = append(out, rundir.ServerSample{At: t0.Add(time.Duration(i) * time.Second), Stats: st})
	}
	return out
}

// TestServerWindowAndCompare: the window's deltas, events and busy
// share (INFO left out), and the server confirming a doubled time per
// call but not an unchanged one.
func TestServerWindowAndCompare(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	flat := make([]float64, 20)
	slow := make([]float64, 20)
	for i := range flat {
		flat[i] = 2e-6 * (1 + 0.05*float64(i%3))
		slow[i] = 2 * flat[i]
	}
	base := samplesOf(t0, flat, 1000, nil)
	cand := samplesOf(t0, slow, 1000, func(i int, st map[string]float64) {
		st["rdb_bgsave_in_progress"] = float64(i % 2)
		st["latest_fork_seconds"] = float64(i/5) * 0.01
		st["evicted_keys_total"] = float64(10 * i)
	})
	bw := ServerWindowOf(base, t0.Add(2*time.Second), t0.Add(20*time.Second), "GET")
	if bw.Command != "get" || !bw.Known || len(bw.PerCall) != 19 || bw.Calls != 19000 {
		t.Fatalf("%+v", bw)
	}
	if b := bw.Busy(); b < 0.0019 || b > 0.0023 {
		t.Fatalf("busy %v (INFO's 0.5 s a second must not count)", b)
	}
	cw := ServerWindowOf(cand, t0, t0.Add(20*time.Second), "get")
	if cw.Events.Forks != 4 || cw.Events.Evicted != 200 || len(cw.Events.Persistence) != 1 {
		t.Fatalf("events %+v", cw.Events)
	}
	ss := CompareServer([]ServerWindow{bw}, []ServerWindow{cw}, BootstrapOptions{Seed: 1})
	if ss == nil || !ss.Confirms || ss.PerCall.Lo < 1.8 || ss.PerCall.Hi > 2.2 || ss.PerCall.Level != DefaultLevel {
		t.Fatalf("%+v %+v", ss, ss.PerCall)
	}
	same := CompareServer([]ServerWindow{bw}, []ServerWindow{ServerWindowOf(base, t0, t0.Add(20*time.Second), "get")}, BootstrapOptions{Seed: 1})
	if same == nil || same.Confirms || same.PerCall.Lo > 1 || same.PerCall.Hi < 1 {
		t.Fatalf("A/A: %+v %+v", same, same.PerCall)
	}
	if CompareServer([]ServerWindow{bw}, []ServerWindow{{}}, BootstrapOptions{}) != nil {
		t.Fatal("a side without figures compared")
	}
	// A sample whose INFO commandstats failed: the totals after it are
	// not spent in one interval (a busy share of 310% on a real run).
	gap := samplesOf(t0, flat, 1000, func(i int, st map[string]float64) {
		st["cmd_debug_calls_total"], st["cmd_debug_seconds_total"] = 100, 30 // before the window
		if i == 5 {
			for k := range st {
				if strings.HasPrefix(k, "cmd_") {
					delete(st, k)
				}
			}
		}
	})
	if b := ServerWindowOf(gap, t0, t0.Add(20*time.Second), "get").Busy(); b < 0.0019 || b > 0.0023 {
		t.Fatalf("busy %v across a sample without commandstats, want about 0.002", b)
	}
	other := ServerWindowOf(base, t0, t0.Add(20*time.Second), "hset")
	if other.Command != "all" || other.Calls != 20000 {
		t.Fatalf("an op the server does not name: %+v", other)
	}
}

// TestRegressionsExplained: a regressed op of the history verdict gets
// its explanation (unknown: these runs left no server log) and a line
// under the table; an op that did not regress gets none.
func TestRegressionsExplained(t *testing.T) {
	var hist []*rundir.Summary
	for i := 0; i < 6; i++ {
		f := 1 + 0.02*float64(i%3)
		hist = append(hist, synth(0.001*f, 0.005*f, 0.01*f))
	}
	cand := synth(0.001, 0.005, 0.01)
	op := cand.Phases[0].Ops["get"]
	op.Latency.P50 = 0.004
	cand.Phases[0].Ops["get"] = op
	v := Compare(hist, cand, RegressOptions{MinHistory: 5})
	if !v.Regressed {
		t.Fatal("not a regression")
	}
	for _, ov := range v.Ops {
		if (ov.Explain != nil) != ov.Regressed {
			t.Fatalf("%s: regressed %v, explain %+v", ov.Op, ov.Regressed, ov.Explain)
		}
		if ov.Explain != nil && ov.Explain.Cause != rundir.CauseUnknown {
			t.Fatalf("%+v", ov.Explain)
		}
	}
	if tab := v.Table(); !strings.Contains(tab, "cause of steady get: unknown") || !strings.Contains(tab, "calibration (history)") {
		t.Fatal(tab)
	}
}

// TestAttributeServerShare: a GET's time per call up x1.5 (2 us to 3 us)
// explains none of a client's 4 ms rise: not server work; the same
// ratio with no client figure, or a rise that adds a tenth of the
// client's, is.
func TestAttributeServerShare(t *testing.T) {
	ss := func() *rundir.ServerSide {
		return &rundir.ServerSide{Command: "get", PerCall: &rundir.RatioInterval{Estimate: 1.5, Lo: 1.3, Hi: 1.7, Level: 0.95}, PerCallSeconds: [2]float64{2e-6, 3e-6}, Busy: [2]float64{0.01, 0.01}}
	}
	if x := Attribute(Evidence{Server: ss(), ClientAdded: 0.004}); x.Cause != rundir.CauseNetwork || x.Server.Confirms {
		t.Fatalf("immaterial rise: %+v", x)
	}
	if x := Attribute(Evidence{Server: ss()}); x.Cause != rundir.CauseServer {
		t.Fatalf("no client figure: %+v", x)
	}
	if x := Attribute(Evidence{Server: ss(), ClientAdded: 9e-6}); x.Cause != rundir.CauseServer {
		t.Fatalf("material rise: %+v", x)
	}
}
