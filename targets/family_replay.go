package targets

import (
	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/scenarios"
)

// replayOptions are the capture.Build options of replay phase p of sc
// in dialect d: the phase's replay keys read here, in the kind's own
// file.
func replayOptions(sc *scenarios.Scenario, p *scenarios.Phase, d ReplayDialect) capture.Options {
	return capture.Options{
		Format:    capture.Format(p.Replay.Format),
		ByLine:    p.Replay.Group == scenarios.ReplayGroupLine,
		MaxGroups: scenarios.ReplayMaxGroups,
		Dialect:   d.Dialect(),
		KeyPrefix: p.Replay.KeyPrefix,
		Refuse:    func(args []string) string { return sc.ReplayRefusalIn(p.Replay, args) },
		// validate estimated the index from the capture's first MiB;
		// the index itself stops at the phase's bound.
		MaxIndexBytes: scenarios.MaxPhaseBytes,
		KeepsDBs:      keepsDBs(d),
	}
}

// keepsDBs says whether dialect d keeps a capture's dbs apart (it has
// KeepsDBs() true).
func keepsDBs(d ReplayDialect) bool {
	k, ok := d.(interface{ KeepsDBs() bool })
	return ok && k.KeepsDBs()
}
