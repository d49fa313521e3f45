package rundir

// ReplayResult describes a replay phase's capture: what it held, what
// was sent and what was not.
type ReplayResult struct {
	Source string `json:"source"`
	Format string `json:"format"`
	// Ops is how many ops one pass of the capture sends.
	Ops   int64 `json:"ops"`
	Lines int64 `json:"lines"`
	// Skipped counts the commands not replayed (blocking, subscribing or
	// connection-state commands), by name.
	Skipped map[string]int64 `json:"skipped,omitempty"`
	// ScriptLines counts MONITOR's lines a script issued ("[db lua]"),
	// not replayed: the EVAL or FCALL that ran the script is.
	ScriptLines int64 `json:"script_lines,omitempty"`
	// Folded lists the command names whose latency is under "other".
	Folded []string `json:"folded,omitempty"`
	// DBs lists the dbs of a capture that spans several: each db's keys
	// were replayed under "dbN:" (after the key prefix).
	DBs         []int   `json:"dbs,omitempty"`
	SpanSeconds float64 `json:"span_seconds"`
	Speed       float64 `json:"speed,omitempty"`
	Loop        bool    `json:"loop,omitempty"`
	Order       string  `json:"order,omitempty"`
}
