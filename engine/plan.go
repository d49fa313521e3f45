package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/soakd/soakd/datagen"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/verdict"
)

// A Plan is everything about a run that is known before it starts and
// read only while it runs: the field values, the op table (the
// scenario's custom ops, then the replay phases' latency groups), the
// compiled custom ops, the replay phases' indexed captures, the corpus
// and its query generator, the SLO limits, the outcome classes and the
// record count the run starts from. Prepare builds it without a
// target, so a bad capture, corpus, template or limit fails before
// anything is opened; the runner keeps only what changes as the run
// goes.
//
// A Plan serves one run: the only thing in it that a run changes is
// the note of a failed corpus read (readFaults), kept once.
type Plan struct {
	sc *scenarios.Scenario
	// values are the field value bytes shared by all workers.
	values *scenarios.Values
	// ops names the run's ops: the scenario's, then the replay phases'
	// latency groups.
	ops *scenarios.OpTable
	// custom is the scenario's compiled custom ops; nil when it has none.
	custom *datagen.Program
	// replays are the replay phases' indexed captures, by phase name.
	replays map[string]*replayPlan
	// corpus is record.source; zero without one.
	corpus corpusState
	faults *readFaults
	// limits are the scenario's SLO, parsed once: phases, capacity
	// probes and the run's verdict are judged with them.
	limits   *verdict.Limits
	classes  []string
	classIdx map[string]uint8
	// initInserted is the record count a run (and each persistence
	// variant, on its fresh server) starts from.
	initInserted int64
}

// Prepare builds the plan of a run of sc with o (o.TargetKind names the
// store when the scenario does not; o.Shard is the shard it runs as).
// It opens no target: its errors (a shard the scenario cannot be split
// into, a capture or corpus that cannot be read or indexed, a custom op
// with no template for the store, an SLO naming no op) come before the
// run has touched anything. The caller closes the plan (Close) after
// the run; Run closes the plans it prepares itself.
func Prepare(ctx context.Context, sc *scenarios.Scenario, o Options) (_ *Plan, err error) {
	sh := o.Shard
	if sh.Count == 0 {
		sh.Count = 1
	}
	if err := CheckShard(sc, sh); err != nil {
		return nil, err
	}
	p := &Plan{sc: sc, classes: targets.Classes(), classIdx: map[string]uint8{}, faults: &readFaults{}}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	p.values = scenarios.NewValues(rand.New(rand.NewPCG(uint64(sc.Seed), 0x5eed)), sc.Record.FieldBytes)
	if p.ops, err = sc.OpTable(); err != nil {
		return nil, err
	}
	if p.custom, err = compileCustom(sc, p.ops, o.TargetKind); err != nil {
		return nil, err
	}
	if p.replays, err = prepareReplays(ctx, sc, p.ops); err != nil {
		return nil, err
	}
	if p.corpus, err = prepareCorpus(ctx, sc, p.custom, p.faults.report); err != nil {
		return nil, err
	}
	if p.limits, err = verdict.New(sc.SLO, p.ops); err != nil {
		return nil, err
	}
	for i, c := range p.classes {
		p.classIdx[c] = uint8(i)
	}
	if len(sc.Phases) == 0 || !fillsDataset(sc.Phases[0].Kind) {
		p.initInserted = sc.Keyspace.Records
	}
	// The distribution is checked here; the run builds its choosers on
	// its own record count (newMixSource).
	if _, err := scenarios.NewChoosers(sc.Keyspace, p.inserted()); err != nil {
		return nil, err
	}
	return p, nil
}

// Close releases the plan's files (the captures, the corpus).
func (p *Plan) Close() {
	for _, rp := range p.replays {
		rp.file.Close()
	}
	if p.corpus.c != nil {
		p.corpus.c.Close()
	}
}

// inserted is a fresh record count at the plan's start.
func (p *Plan) inserted() *scenarios.Inserted {
	n := &scenarios.Inserted{}
	n.Store(p.initInserted)
	return n
}

// readFaults keeps the first failed read of the run's inputs (a corpus
// file changed under the run) and ends the run with it.
type readFaults struct {
	mu     sync.Mutex
	err    error
	cancel context.CancelCauseFunc
}

// watch ends the run with cancel at the first fault (at once when one
// came already).
func (f *readFaults) watch(cancel context.CancelCauseFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancel = cancel
	if f.err != nil {
		cancel(f.err)
	}
}

// report notes err when it is the first.
func (f *readFaults) report(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return
	}
	f.err = err
	if f.cancel != nil {
		f.cancel(err)
	}
}

// corpusError is the run's error when a corpus read failed.
func (f *readFaults) corpusError() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		return nil
	}
	return fmt.Errorf("record.source: %w", f.err)
}
