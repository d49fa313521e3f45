package targets

import (
	"fmt"
	"io"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/scenarios"
)

// Family is what stores speaking one protocol share, registered once
// and referenced by each of their adapters (Adapter.Family): the form
// of a custom op, ops.<name>.<Name>, and the replay dialect. Redis and
// the embedded store are the RESP family "redis" (targets/resp).
type Family struct {
	// Name is the key of the family's custom-op form under ops.<name>
	// (redis, mongo, ...).
	Name string
	// Custom decodes, checks and places the family's custom-op form
	// (nil: its stores run no custom ops).
	Custom scenarios.CustomFormat
	// Replay reads a capture for the family's stores (nil: they replay
	// nothing).
	Replay ReplayDialect
}

// ReplayDialect is a family's replay: how its ops are read from a
// capture and what a replay phase may do on its stores.
type ReplayDialect interface {
	// Dialect returns the capture dialect, a new one per index (it may
	// keep state while the index is built).
	Dialect() capture.Dialect
	// CheckReplay returns the problems of replay phase spec r on sc's
	// target, each on its key in the phase (format, key_prefix,
	// scripts).
	CheckReplay(sc *scenarios.Scenario, r *scenarios.ReplaySpec) []scenarios.FieldError
	// Refusal says why op args may not be replayed on sc's target
	// without allow_destructive, "" when they may (r nil: no scripts:
	// list). scenarios.Scenario.DestructiveRefusal words the common
	// case.
	Refusal(sc *scenarios.Scenario, r *scenarios.ReplaySpec, args []string) string
}

// replayRules is a family's ReplayDialect as scenarios sees it: its
// checks, and the capture indexed at validate as the run will.
type replayRules struct{ d ReplayDialect }

func (r replayRules) CheckReplay(sc *scenarios.Scenario, spec *scenarios.ReplaySpec) []scenarios.FieldError {
	return r.d.CheckReplay(sc, spec)
}

func (r replayRules) Refusal(sc *scenarios.Scenario, spec *scenarios.ReplaySpec, args []string) string {
	return r.d.Refusal(sc, spec, args)
}

func (r replayRules) Index(sc *scenarios.Scenario, p *scenarios.Phase, f io.Reader, size int64) (groups, folded []string, err error) {
	ix, err := capture.Build(f, size, replayOptions(sc, p, r.d))
	if err != nil {
		return nil, nil, err
	}
	return ix.Groups, ix.Folded, nil
}

// ReplayOptions are the capture.Build options of replay phase p of sc:
// the dialect of the family of sc's store, from the registry.
func ReplayOptions(sc *scenarios.Scenario, p *scenarios.Phase) (capture.Options, error) {
	return registry.ReplayOptions(sc, p)
}

// ReplayOptions is the package's ReplayOptions with r's stores.
func (r *Registry) ReplayOptions(sc *scenarios.Scenario, p *scenarios.Phase) (capture.Options, error) {
	a, ok := r.adapter(sc.Target.Kind)
	if !ok || a.Family == nil || a.Family.Replay == nil {
		return capture.Options{}, fmt.Errorf("no replay dialect for a %s target", sc.Target.Kind)
	}
	return replayOptions(sc, p, a.Family.Replay), nil
}

// CaptureDialect is the capture dialect of kind's family, for reading a
// capture back after a run (the report's replay schedule); false when
// the kind is not registered or replays nothing.
func CaptureDialect(kind scenarios.TargetKind) (capture.Dialect, bool) {
	a, ok := registry.adapter(kind)
	if !ok || a.Family == nil || a.Family.Replay == nil {
		return nil, false
	}
	return a.Family.Replay.Dialect(), true
}
