package verdict

import (
	"fmt"
	"strings"

	"github.com/soakd/soakd/rundir"
)

// Explanation is a regression's, change point's or cliff's cause
// (rundir's: summary.json holds those of change points and cliffs).
type Explanation = rundir.Explanation

// Evidence is what Attribute judges: whether soakd or the host was the
// limit, the server's own figures compared, and the events in the
// reference (the baseline, the stretch before a change) and the judged
// window.
type Evidence struct {
	// Bound is rundir.BoundGenerator or rundir.BoundHost when the self
	// record says so for the window or its reference; BoundWhy its reason.
	Bound, BoundWhy string
	// Server is nil when the target reported no per-command figures.
	Server   *rundir.ServerSide
	Ref, Win ServerEvents
	// SelfCPU is soakd's mean CPU in cores (reference, window) of Cores.
	SelfCPU [2]float64
	Cores   int
	// ClientAdded is how much the client's latency grew, in seconds (the
	// window's p50 less the reference's, or the changed percentile's);
	// 0 when not known.
	ClientAdded float64
}

// Memory rule constants (Attribute).
const (
	// MemorySwapGrowth: the server's swap grew by at least 1 MiB.
	MemorySwapGrowth = 1 << 20
	// MemoryEvictFactor: keys were evicted in the window at more than
	// twice the reference's rate (per second).
	MemoryEvictFactor = 2.0
)

// Attribute puts a change down to one cause by a stated rule, checked in
// this order; the first that holds names it:
//
//  1. generator/host-bound: the self record says soakd or the host was
//     the limit (selfbound.go); no verdict on the store.
//  2. memory/swap: the server's swap grew by MemorySwapGrowth or more
//     in the window, or it evicted keys there at more than
//     MemoryEvictFactor times the reference's rate.
//  3. persistence: a BGSAVE or AOF rewrite ran, or the server forked,
//     in the window, more often a second than in the reference.
//  4. server work: the server confirms: the whole interval of its own
//     time per call of the op's command lies above 1+ServerPerCallRise
//     and the time that added per call is at least ServerShareMin of
//     the client's added latency (when known), or its busy share rose by
//     ServerBusyRise of wall time and to ServerBusyFactor times the
//     reference's.
//  5. network or client: the server's figures are there and do not
//     confirm: the time was spent between soakd and the server.
//  6. unknown: the target gave no server-side figures.
func Attribute(e Evidence) Explanation {
	if ss := e.Server; ss != nil {
		added := ss.PerCallSeconds[1] - ss.PerCallSeconds[0]
		material := e.ClientAdded <= 0 || added >= ServerShareMin*e.ClientAdded
		ss.Confirms = (perCallRose(ss) && material) || busyRose(ss)
	}
	x := Explanation{Server: e.Server, Events: eventWords(e)}
	switch {
	case e.Bound != "":
		x.Cause = rundir.CauseBound
		x.Why = fmt.Sprintf("%s-bound (%s): these figures measure soakd or the host, no verdict on the store", e.Bound, e.BoundWhy)
	case e.Win.SwapGrowth >= MemorySwapGrowth:
		x.Cause = rundir.CauseMemory
		x.Why = fmt.Sprintf("the server's swap grew by %s", bytesWord(e.Win.SwapGrowth))
	case evictRate(e.Win) > 0 && evictRate(e.Win) > MemoryEvictFactor*evictRate(e.Ref):
		x.Cause = rundir.CauseMemory
		x.Why = fmt.Sprintf("the server evicted %.0f keys/s (reference %.0f/s)", evictRate(e.Win), evictRate(e.Ref))
	case persistRate(e.Win) > 0 && persistRate(e.Win) > persistRate(e.Ref):
		x.Cause = rundir.CausePersistence
		x.Why = "a persistence job or fork overlapped it (" + strings.Join(persistWords(e.Win), ", ") + ") and not the reference"
	case e.Server != nil && e.Server.Confirms:
		x.Cause = rundir.CauseServer
		x.Why = "the server confirms: " + serverWords(e.Server)
	case e.Server != nil:
		x.Cause = rundir.CauseNetwork
		x.Why = "the server does not confirm (" + serverWords(e.Server) + "): the time was spent between soakd and the server"
	default:
		x.Cause = rundir.CauseUnknown
		x.Why = "the target reported no server-side time per command"
	}
	return x
}

func evictRate(ev ServerEvents) float64 {
	if ev.Seconds <= 0 {
		return 0
	}
	return ev.Evicted / ev.Seconds
}

// persistRate is the persistence jobs or forks a second a window saw
// (whichever more: each job forks once, a fork may be seen without its
// job's flag and the reverse).
func persistRate(ev ServerEvents) float64 {
	n := max(ev.Jobs, ev.Forks, len(ev.Persistence))
	if n == 0 {
		return 0
	}
	if ev.Seconds <= 0 {
		return float64(n)
	}
	return float64(n) / ev.Seconds
}

func persistWords(ev ServerEvents) []string {
	out := append([]string{}, ev.Persistence...)
	if ev.Forks > 0 {
		out = append(out, fmt.Sprintf("%d fork(s), longest %s", ev.Forks, FormatSeconds(ev.ForkMax)))
	}
	return out
}

// serverWords: "get per call x2.10 [1.80, 2.50]; busy 0.3% -> 41.0% of the time".
func serverWords(s *rundir.ServerSide) string {
	var parts []string
	if pc := s.PerCall; pc != nil {
		w := fmt.Sprintf("%s per call x%.2f", s.Command, pc.Estimate)
		if pc.Level > 0 {
			w += fmt.Sprintf(" [%.2f, %.2f]", pc.Lo, pc.Hi)
		} else {
			w += " (too few intervals for an interval)"
		}
		parts = append(parts, w)
	}
	parts = append(parts, fmt.Sprintf("busy %.1f%% -> %.1f%% of the time", 100*s.Busy[0], 100*s.Busy[1]))
	return strings.Join(parts, "; ")
}

// eventWords lists what overlapped the window.
func eventWords(e Evidence) []string {
	out := persistWords(e.Win)
	if e.Win.Evicted > 0 {
		out = append(out, fmt.Sprintf("evicted %.0f keys", e.Win.Evicted))
	}
	if e.Win.SwapGrowth > 0 {
		out = append(out, "swap +"+bytesWord(e.Win.SwapGrowth))
	}
	if e.Cores > 0 && (e.SelfCPU[0] > 0 || e.SelfCPU[1] > 0) {
		out = append(out, fmt.Sprintf("soakd CPU %.2f -> %.2f of %d cores", e.SelfCPU[0], e.SelfCPU[1], e.Cores))
	}
	return out
}

func bytesWord(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	default:
		return fmt.Sprintf("%.0f KiB", b/(1<<10))
	}
}

// ExplainLine is an explanation as a line of text: "cause of steady get:
// server work: the server confirms: ... (overlapping: bgsave)".
func ExplainLine(what string, x Explanation) string {
	line := "cause of " + what + ": " + x.Cause + ": " + x.Why
	if len(x.Events) > 0 {
		line += " (overlapping: " + strings.Join(x.Events, "; ") + ")"
	}
	return line + "\n"
}
