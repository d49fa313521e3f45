package verdict

import (
	"math"
	"strings"
	"time"

	"github.com/soakd/soakd/rundir"
)

// ServerWindow is what a run's server log (rundir.ServerLog) says about
// a window of it: the server's own time per call of one command per
// stats interval, its busy share, and the events in the window.
type ServerWindow struct {
	// Command is the command compared ("get"; "all" when the log names
	// no command of the op); Known says the log had per-command figures
	// in the window.
	Command string
	Known   bool
	// PerCall is the server's seconds per call of Command in each stats
	// interval that had calls; Calls and Seconds their totals.
	PerCall        []float64
	Calls, Seconds float64
	// BusySeconds is every command's time but INFO's (the stats
	// sampler's own), over WallSeconds between the first and last sample.
	BusySeconds, WallSeconds float64
	Events                   ServerEvents
}

// ServerEvents are the persistence, fork, eviction and swap figures of a
// window.
type ServerEvents struct {
	Persistence []string // rundir.PersistBGSave, rundir.PersistAOFRewrite, each once
	Jobs        int      // persistence jobs seen (a save counter grew, or a job was running where it was not before)
	Forks       int      // forks seen (latest_fork_seconds changed)
	ForkMax     float64  // the longest fork's seconds
	Evicted     float64  // keys evicted
	SwapGrowth  float64  // bytes the server's swap grew
	Seconds     float64  // the window's wall seconds (Evicted per second)
}

// Busy is the server's busy share over the window (0 with no time).
func (w ServerWindow) Busy() float64 {
	if w.WallSeconds <= 0 {
		return 0
	}
	return w.BusySeconds / w.WallSeconds
}

// ServerWindowOf reads the figures of [from, to] out of a run's server
// log for op. The sample just before from is the base of the first
// interval's deltas; a counter that fell (a CONFIG RESETSTAT, a server
// restart) leaves its interval out.
func ServerWindowOf(samples []rundir.ServerSample, from, to time.Time, op string) ServerWindow {
	lo := 0
	for lo < len(samples) && samples[lo].At.Before(from) {
		lo++
	}
	if lo > 0 {
		lo--
	}
	hi := lo
	for hi < len(samples) && !samples[hi].At.After(to) {
		hi++
	}
	win := samples[lo:hi]
	w := ServerWindow{Command: "all"}
	cmd := strings.ToLower(op)
	for _, s := range win {
		if _, ok := s.Stats["cmd_"+cmd+"_calls_total"]; ok && cmd != "" {
			w.Command = cmd
			break
		}
	}
	if len(win) < 2 {
		return w
	}
	var seen map[string]bool
	lastFork := math.NaN()
	swap0, swapSeen := 0.0, false
	for i, s := range win {
		for _, k := range []struct{ stat, kind string }{{"rdb_bgsave_in_progress", rundir.PersistBGSave}, {"aof_rewrite_in_progress", rundir.PersistAOFRewrite}} {
			if s.Stats[k.stat] > 0 && i > 0 {
				seen = addSeen(seen, k.kind)
				if win[i-1].Stats[k.stat] == 0 {
					w.Events.Jobs++
				}
			}
		}
		if f, ok := s.Stats["latest_fork_seconds"]; ok {
			if i > 0 && !math.IsNaN(lastFork) && f != lastFork {
				w.Events.Forks++
				w.Events.ForkMax = max(w.Events.ForkMax, f)
			}
			lastFork = f
		}
		if sw, ok := swapOf(s.Stats); ok {
			if !swapSeen {
				swap0, swapSeen = sw, true
			}
			w.Events.SwapGrowth = max(w.Events.SwapGrowth, sw-swap0)
		}
		if i == 0 {
			continue
		}
		p := win[i-1]
		for _, k := range []struct{ stat, flag, kind string }{
			{"rdb_saves_total", "rdb_bgsave_in_progress", rundir.PersistBGSave},
			{"aof_rewrites_total", "aof_rewrite_in_progress", rundir.PersistAOFRewrite},
		} {
			if d, ok := delta(p.Stats, s.Stats, k.stat); ok && d > 0 {
				seen = addSeen(seen, k.kind)
				if s.Stats[k.flag] == 0 && p.Stats[k.flag] == 0 {
					w.Events.Jobs += int(d) // started and ended between two samples
				}
			}
		}
		if d, ok := delta(p.Stats, s.Stats, "evicted_keys_total"); ok && d > 0 {
			w.Events.Evicted += d
		}
		dt := s.At.Sub(p.At).Seconds()
		var busy float64
		okBusy := false
		// A sample without commandstats (its INFO commandstats failed
		// under load) has no base to subtract from: every total after it
		// would count as spent in one interval (a real run read a busy
		// share of 310%). A command missing from a sample that has them
		// had no call yet: its total is this interval's.
		pHas := hasCommandStats(p.Stats)
		for k, v := range s.Stats {
			name, ok := strings.CutSuffix(strings.TrimPrefix(k, "cmd_"), "_seconds_total")
			if !ok || !strings.HasPrefix(k, "cmd_") || name == "info" || !pHas {
				continue
			}
			if d := v - p.Stats[k]; d >= 0 {
				busy += d
				okBusy = true
			}
		}
		if okBusy && dt > 0 {
			w.Known = true
			w.BusySeconds += busy
			w.WallSeconds += dt
		}
		dc, dcs, ok := commandDelta(p.Stats, s.Stats, w.Command)
		if ok && dc > 0 {
			w.Calls += dc
			w.Seconds += dcs
			w.PerCall = append(w.PerCall, dcs/dc)
		}
	}
	w.Events.Seconds = win[len(win)-1].At.Sub(win[0].At).Seconds()
	for _, k := range []string{rundir.PersistBGSave, rundir.PersistAOFRewrite} {
		if seen[k] {
			w.Events.Persistence = append(w.Events.Persistence, k)
		}
	}
	return w
}

// hasCommandStats: the sample holds the server's per-command totals.
func hasCommandStats(st map[string]float64) bool {
	for k := range st {
		if strings.HasPrefix(k, "cmd_") && strings.HasSuffix(k, "_seconds_total") {
			return true
		}
	}
	return false
}

func addSeen(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

// swapOf is the server's swap in bytes: its cgroup's, else its process's.
func swapOf(st map[string]float64) (float64, bool) {
	if v, ok := st["cgroup_swap_usage_bytes"]; ok {
		return v, true
	}
	v, ok := st["process_swap_bytes"]
	return v, ok
}

// delta is a counter's growth between two samples (ok false when either
// lacks it or it fell).
func delta(a, b map[string]float64, k string) (float64, bool) {
	x, ok1 := a[k]
	y, ok2 := b[k]
	if !ok1 || !ok2 || y < x {
		return 0, false
	}
	return y - x, true
}

// commandDelta is the calls and seconds of cmd ("all": every command
// but INFO) between two samples.
func commandDelta(a, b map[string]float64, cmd string) (calls, secs float64, ok bool) {
	if cmd != "all" {
		c, ok1 := delta(a, b, "cmd_"+cmd+"_calls_total")
		s, ok2 := delta(a, b, "cmd_"+cmd+"_seconds_total")
		return c, s, ok1 && ok2
	}
	for k := range b {
		name, isCalls := strings.CutSuffix(strings.TrimPrefix(k, "cmd_"), "_calls_total")
		if !isCalls || !strings.HasPrefix(k, "cmd_") || name == "info" {
			continue
		}
		c, ok1 := delta(a, b, k)
		s, ok2 := delta(a, b, "cmd_"+name+"_seconds_total")
		if ok1 && ok2 {
			calls += c
			secs += s
			ok = true
		}
	}
	return calls, secs, ok
}

// Server-side rule constants (Attribute; docs/verdicts.md).
const (
	// ServerPerCallRise: the server confirms when the whole interval of
	// its own time per call (window over reference) lies above 1.2, the
	// regression threshold's default.
	ServerPerCallRise = 0.20
	// ServerShareMin: a rise of the time per call confirms only when the
	// time it added per call is at least a tenth of what the client's
	// latency grew by (where that is known): a GET's 2 us becoming 3 us
	// on a busy host is a real ratio that explains none of a 4 ms delay.
	ServerShareMin = 0.10
	// ServerBusyRise and ServerBusyFactor: or when its busy share rose
	// by at least 5 points of wall time and to at least 1.5 times the
	// reference's (another client's work, a blocking command).
	ServerBusyRise   = 0.05
	ServerBusyFactor = 1.5
	// minServerIntervals: fewer stats intervals a side than this give a
	// point estimate only (no interval: Lo = Hi = Estimate).
	minServerIntervals = 3
)

// CompareServer compares the server's own time between the reference
// windows (each a run or a stretch of one) and the judged windows: nil
// when either side has no per-command figures. The ratio's interval is
// RateRatio's block bootstrap over the per-interval times per call.
func CompareServer(ref, win []ServerWindow, o BootstrapOptions) *rundir.ServerSide {
	agg := func(ws []ServerWindow) (series [][]float64, calls, secs, busy, wall float64, n int, known bool, cmd string) {
		for _, w := range ws {
			if !w.Known {
				continue
			}
			known = true
			cmd = w.Command
			series = append(series, w.PerCall)
			calls += w.Calls
			secs += w.Seconds
			busy += w.BusySeconds
			wall += w.WallSeconds
			n += len(w.PerCall)
		}
		return
	}
	rs, rc, rsec, rb, rw, rn, rk, rcmd := agg(ref)
	ws, wc, wsec, wb, ww, wn, wk, wcmd := agg(win)
	if !rk || !wk || rw <= 0 || ww <= 0 {
		return nil
	}
	ss := &rundir.ServerSide{Command: wcmd, Busy: [2]float64{rb / rw, wb / ww}}
	if rcmd != wcmd {
		ss.Command = "all"
	}
	if rc > 0 && wc > 0 && rsec > 0 {
		ss.PerCallSeconds = [2]float64{rsec / rc, wsec / wc}
		est := ss.PerCallSeconds[1] / ss.PerCallSeconds[0]
		ri := &rundir.RatioInterval{Estimate: est, Lo: est, Hi: est}
		if rn >= minServerIntervals && wn >= minServerIntervals && ss.Command == wcmd {
			if iv := RateRatio(rs, ws, o); iv.Valid() {
				ri = &rundir.RatioInterval{Estimate: est, Lo: iv.Lo, Hi: iv.Hi, Level: iv.Level}
			}
		}
		ss.PerCall = ri
	}
	ss.Confirms = perCallRose(ss) || busyRose(ss)
	return ss
}

// perCallRose: the whole interval of the server's time per call lies
// above 1+ServerPerCallRise.
func perCallRose(ss *rundir.ServerSide) bool {
	return ss.PerCall != nil && ss.PerCall.Level > 0 && ss.PerCall.Lo > 1+ServerPerCallRise
}

// busyRose: the server's busy share rose by ServerBusyRise of wall time
// and to ServerBusyFactor times the reference's.
func busyRose(ss *rundir.ServerSide) bool {
	return ss.Busy[1]-ss.Busy[0] >= ServerBusyRise && ss.Busy[1] >= ServerBusyFactor*ss.Busy[0]
}
