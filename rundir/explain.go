package rundir

// Cause labels (Explanation.Cause): what a regression, change point or
// cliff is put down to (verdict.Attribute states the rule).
const (
	CauseServer      = "server work"          // the server's own time per call or its busy share rose
	CausePersistence = "persistence"          // a BGSAVE, AOF rewrite or fork overlapped it
	CauseMemory      = "memory/swap"          // the server evicted keys or its memory went to swap
	CauseNetwork     = "network or client"    // the client waited longer, the server's own time did not grow
	CauseBound       = "generator/host-bound" // soakd or the host was the limit: no verdict on the store
	CauseUnknown     = "unknown"              // no server-side figures to tell
)

// Explanation says whose slowness a regression, change point or cliff
// was: the cause label with the rule's reason, whether the server's own
// figures confirm it, and what overlapped it.
type Explanation struct {
	Cause string `json:"cause"`
	Why   string `json:"why"`
	// Server is the server's side of it (nil when the target reported
	// no per-command figures).
	Server *ServerSide `json:"server,omitempty"`
	// Events are what overlapped it: persistence jobs, forks,
	// evictions, swap, soakd's own CPU ("bgsave", "evicted 1200 keys").
	Events []string `json:"events,omitempty"`
}

// ServerSide is the server's own time compared between the reference
// (the baseline, or before a change point) and the judged window.
type ServerSide struct {
	// Command is the command whose time per call is compared: the op's
	// own (Redis commandstats "get", Mongo opLatencies "reads"), or
	// "all" when the server names no command of the op.
	Command string `json:"command"`
	// PerCall is the window's time per call over the reference's, with
	// its confidence interval (a block bootstrap over the stats
	// intervals) where there were enough intervals; Lo = Hi = Estimate
	// otherwise.
	PerCall *RatioInterval `json:"per_call,omitempty"`
	// PerCallSeconds is the time per call (reference, window).
	PerCallSeconds [2]float64 `json:"per_call_seconds"`
	// Busy is the server's busy share (every command's time but INFO's
	// per second of wall time; reference, window): other clients' work
	// shows here, not in the op's own time per call.
	Busy [2]float64 `json:"busy"`
	// Confirms: the server's own figures rose with the client's
	// (verdict.Attribute's server rule).
	Confirms bool `json:"confirms"`
}

// RatioInterval is a ratio with its confidence interval at Level.
type RatioInterval struct {
	Estimate float64 `json:"estimate"`
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Level    float64 `json:"level,omitempty"`
}
