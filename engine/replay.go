package engine

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/regfile"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A replay phase sends a captured stream: the engine indexes the capture
// when the run starts (so a bad capture fails the run before any phase
// runs), and its segment then goes through the same dispatcher as a
// steady phase, with a schedule that puts op i at its captured offset
// scaled by speed (or at i/rate). Workers read each op back from the
// file by its offset, so the capture is never held in memory.

// replayGroupCap is the most latency groups one replay phase adds to the
// run's op table (scenarios.MaxCustomOps names in all, the scenario's
// own ops among them).
const replayGroupCap = 32

// replayPlan is one replay phase, indexed.
type replayPlan struct {
	spec    scenarios.ReplaySpec
	path    string
	file    *os.File
	format  capture.Format
	dialect capture.Dialect
	// prefixes is the key prefix of each db's ops: key_prefix, then
	// "dbN:" when the capture spans several dbs (nil: key_prefix).
	prefixes map[uint16]string
	ix       *capture.Index
	ops      []scenarios.Op // by group
	mix      *scenarios.Mix
	sched    pacing
	limit    uint64 // ops to send; 0 = until the duration is up (loop)
	rate     float64
}

// prepareReplays indexes every replay phase's capture of sc, adding
// their latency groups to ops; on an error the captures opened so far
// are closed.
func prepareReplays(ctx context.Context, sc *scenarios.Scenario, ops *scenarios.OpTable) (map[string]*replayPlan, error) {
	var replays map[string]*replayPlan
	closeAll := func() {
		for _, p := range replays {
			p.file.Close()
		}
	}
	for i := range sc.Phases {
		ph := &sc.Phases[i]
		if ph.Kind != scenarios.PhaseReplay {
			continue
		}
		p, err := openReplay(ctx, sc, ops, ph, i)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("phase %s: replay %s: %w", ph.Name, sc.ReplaySource(ph), err)
		}
		if replays == nil {
			replays = map[string]*replayPlan{}
		}
		replays[ph.Name] = p
	}
	if err := checkReplayLimits(sc, replays); err != nil {
		closeAll()
		return nil, err
	}
	return replays, nil
}

// checkReplayLimits refuses an slo.latency key that names no op and no
// latency group of the run's replays (validate checks it too when it
// can read the capture).
func checkReplayLimits(sc *scenarios.Scenario, replays map[string]*replayPlan) error {
	if len(replays) == 0 {
		return nil
	}
	var groups []string
	for _, name := range slices.Sorted(maps.Keys(sc.SLO.Latency)) {
		if name == "*" || sc.HasOp(name) {
			continue
		}
		found := false
		for _, p := range replays {
			if slices.Contains(p.ix.Groups, name) {
				found = true
			}
			if slices.Contains(p.ix.Folded, name) {
				return fmt.Errorf("slo.latency.%s: %s is folded under %q in replay %s (it keeps the %d most frequent commands apart); limit %s instead", name, name, capture.OtherGroup, p.path, scenarios.ReplayMaxGroups-1, capture.OtherGroup)
			}
		}
		if found {
			continue
		}
		if groups == nil {
			for _, p := range replays {
				groups = append(groups, p.ix.Groups...)
			}
			slices.Sort(groups)
			groups = slices.Compact(groups)
		}
		return fmt.Errorf("slo.latency.%s: no op or replay latency group of that name (the replay groups: %s)", name, strings.Join(groups, ", "))
	}
	return nil
}

// openReplay indexes replay phase ph (the pi-th of sc).
func openReplay(ctx context.Context, sc *scenarios.Scenario, ops *scenarios.OpTable, ph *scenarios.Phase, pi int) (*replayPlan, error) {
	p := &replayPlan{spec: *ph.Replay, path: sc.ReplaySource(ph), format: capture.Format(ph.Replay.Format)}
	// A FIFO is refused by name, and the index's pass stops within a
	// chunk's read of a cancel (SIGINT during a 30M-op capture's index).
	f, err := regfile.Open(p.path)
	if err != nil {
		return nil, err
	}
	p.file = f
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	o, err := targets.ReplayOptions(sc, ph)
	if err != nil {
		f.Close()
		return nil, err
	}
	p.dialect = o.Dialect
	ix, err := capture.Build(regfile.Reader(ctx, f), st.Size(), o)
	if err != nil {
		f.Close()
		return nil, err
	}
	p.ix = ix
	if len(ix.DBs) > 1 {
		if !o.KeepsDBs {
			f.Close()
			return nil, fmt.Errorf(`ops in %d dbs ("db" in the op log): only a redis replay keeps dbs apart`, len(ix.DBs))
		}
		p.prefixes = map[uint16]string{}
		for _, db := range ix.DBs {
			p.prefixes[uint16(db)] = ph.Replay.KeyPrefix + "db" + strconv.Itoa(db) + ":"
		}
	}
	if ph.Replay.Order == scenarios.ReplayOrderRandom {
		ix.Shuffle(uint64(sc.Seed) ^ uint64(pi+1)*0x9e3779b97f4a7c15)
	}
	weights := map[string]float64{}
	counts := make([]int64, len(ix.Groups))
	for _, e := range ix.Entries {
		counts[e.Group]++
	}
	for g, name := range ix.Groups {
		op, err := ops.Add(name)
		if err != nil {
			// The run's op table is full (many custom ops, or replay
			// phases of many commands): this group's latency goes under
			// "other", and the summary says so.
			if op, err = ops.Add(capture.OtherGroup); err != nil {
				f.Close()
				return nil, fmt.Errorf("latency group %s: %w", name, err)
			}
			if name != capture.OtherGroup {
				ix.Folded = append(ix.Folded, name)
			}
			name = capture.OtherGroup
		}
		p.ops = append(p.ops, op)
		weights[name] += float64(counts[g])
	}
	if p.mix, err = scenarios.NewMix(weights, ops); err != nil {
		f.Close()
		return nil, err
	}
	n := uint64(len(ix.Entries))
	if ph.Rate > 0 {
		p.sched = replayRate{n: n, rate: ph.Rate}
		p.rate = ph.Rate
	} else {
		speed := ph.Replay.Speed
		if speed <= 0 {
			speed = 1
		}
		s := newReplayTiming(ix.Entries, speed)
		p.sched = s
		p.rate = s.meanRate()
	}
	if !ph.Replay.Loop {
		p.limit = n
	}
	return p, nil
}

// replayResult is what the summary says about a replay phase.
func (p *replayPlan) result() *rundir.ReplayResult {
	return &rundir.ReplayResult{
		Source: p.path, Format: string(p.format), Ops: int64(len(p.ix.Entries)), DBs: p.dbs(),
		Lines: p.ix.Lines, Skipped: p.ix.Skipped, ScriptLines: p.ix.ScriptLines, Folded: p.ix.Folded,
		SpanSeconds: float64(p.ix.Span()) / 1e9, Speed: p.spec.Speed, Loop: p.spec.Loop, Order: p.spec.Order,
	}
}

// dbs lists the capture's dbs when it spans several (their keys were
// remapped), nil otherwise.
func (p *replayPlan) dbs() []int {
	if len(p.ix.DBs) < 2 {
		return nil
	}
	return p.ix.DBs
}

// prefix is the key prefix of entry e's op.
func (p *replayPlan) prefix(e capture.Entry) string {
	if p.prefixes != nil {
		return p.prefixes[e.DB]
	}
	return p.spec.KeyPrefix
}

// entry returns the capture entry schedule index i sends.
func (p *replayPlan) entry(i uint64) capture.Entry {
	return p.ix.Entries[i%uint64(len(p.ix.Entries))]
}

// op is schedule index i's latency group.
func (p *replayPlan) op(i uint64) scenarios.Op { return p.ops[p.entry(i).Group] }

// pacing is an open-loop schedule: when op i is intended (an offset
// from the epoch's start), how many are due by an elapsed time, how
// many a span calls for (Total: a segment's count), and how long to
// wait for the next. Schedule (a fixed rate) is one, Ticked another.
type pacing interface {
	At(i uint64) time.Duration
	Due(elapsed time.Duration) uint64
	Total(d time.Duration) uint64
	Pace(elapsed time.Duration, done, limit uint64) (wait time.Duration, stop bool)
}

// replayRate is a fixed rate over a capture of n ops: Schedule's timing.
type replayRate struct {
	n    uint64
	rate float64
}

func (s replayRate) sched() Schedule              { return Schedule{Rate: s.rate} }
func (s replayRate) At(i uint64) time.Duration    { return s.sched().At(i) }
func (s replayRate) Due(el time.Duration) uint64  { return s.sched().Due(el) }
func (s replayRate) Total(d time.Duration) uint64 { return s.sched().Total(d) }
func (s replayRate) Pace(el time.Duration, done, limit uint64) (time.Duration, bool) {
	return s.sched().Pace(el, done, limit)
}

// replayTiming is the captured timing scaled by speed: op i is intended
// at its captured offset from the first op divided by speed. Looping,
// pass k of the capture starts k periods in, a period being the
// capture's span plus one mean gap between ops (so the last op of a
// pass and the first of the next are not sent at once).
type replayTiming struct {
	entries []capture.Entry
	speed   float64
	period  time.Duration
}

func newReplayTiming(e []capture.Entry, speed float64) replayTiming {
	s := replayTiming{entries: e, speed: speed}
	span := s.offset(len(e) - 1)
	gap := time.Duration(0)
	if len(e) > 1 {
		gap = span / time.Duration(len(e)-1)
	}
	if gap <= 0 {
		gap = time.Millisecond
	}
	s.period = span + gap
	return s
}

// offset is entry j's scaled offset within a pass.
func (s replayTiming) offset(j int) time.Duration {
	return time.Duration(float64(s.entries[j].TS) / s.speed)
}

// meanRate is the ops per second of one pass (for the target rate).
func (s replayTiming) meanRate() float64 {
	return float64(len(s.entries)) / s.period.Seconds()
}

func (s replayTiming) At(i uint64) time.Duration {
	n := uint64(len(s.entries))
	k := i / n
	if k > 0 && float64(k)*float64(s.period) >= float64(maxAt) {
		return maxAt
	}
	return time.Duration(k)*s.period + s.offset(int(i%n))
}

func (s replayTiming) Due(el time.Duration) uint64 {
	if el < 0 {
		return 0
	}
	k := uint64(el / s.period)
	if k > maxDue/uint64(len(s.entries)) {
		return maxDue
	}
	in := el - time.Duration(k)*s.period
	j := sort.Search(len(s.entries), func(j int) bool { return s.offset(j) > in })
	return k*uint64(len(s.entries)) + uint64(j)
}

func (s replayTiming) Total(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	return s.Due(d - 1)
}

func (s replayTiming) Pace(el time.Duration, done, limit uint64) (time.Duration, bool) {
	return paceAt(s, el, done, limit)
}
