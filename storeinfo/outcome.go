// Package storeinfo is what a store tells a run about itself and its
// ops, as the run directory records it: each op's outcome class and
// what caps the server's memory. A leaf (it imports no soakd package),
// so rundir and verdict name these without importing targets, and
// targets, which reports them, without importing rundir.
package storeinfo

// Outcome classes of an op: the label values of soakd_ops_total{outcome}
// and the keys of a phase's error counts in summary.json (targets'
// Classifier returns them; targets.ClassOK and the rest are these).
const (
	ClassOK         = "ok"
	ClassTimeout    = "timeout"
	ClassConnection = "connection"
	ClassOOM        = "oom"
	ClassMoved      = "moved"
	ClassRejected   = "rejected"
	ClassNotFound   = "not_found"
	ClassOther      = "other"
	// ClassMiss is a cache read that found no value (redis GET of an
	// absent key): an outcome, not an error. It is counted apart from
	// errors, and a growth phase uses its rise to see evictions.
	ClassMiss = "miss"
	// ClassInterrupted is an op still in flight (or queued) when a
	// stopped run passed its drain deadline: never answered, counted
	// as an error.
	ClassInterrupted = "interrupted"
	// ClassCrossSlot is a Redis Cluster CROSSSLOT reply: the keys of
	// one command, script or MULTI hash to different slots, an error in
	// the op's template (the store is fine).
	ClassCrossSlot = "crossslot"
)

// Classes lists every outcome label value, so metrics stay bounded.
func Classes() []string {
	return []string{ClassOK, ClassTimeout, ClassConnection, ClassOOM, ClassMoved, ClassRejected, ClassNotFound, ClassOther, ClassMiss, ClassInterrupted, ClassCrossSlot}
}

// IsError reports whether an outcome class counts as an error: every
// class but ok and miss.
func IsError(class string) bool { return class != ClassOK && class != ClassMiss }
