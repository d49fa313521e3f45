package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/verdict"
)

// growthInsertOp is the op a growth stage's batch uses: the custom op
// growth.insert names, else set for a string-value (redis-benchmark
// style) mix and the YCSB insert otherwise.
func growthInsertOp(g *scenarios.GrowthSpec, mix map[string]float64) string {
	if g.Insert != "" {
		return g.Insert
	}
	for _, op := range []string{"set", "get", "del", "incr", "mset"} {
		if mix[op] > 0 {
			return "set"
		}
	}
	if mix["hset"] > 0 {
		return "hset"
	}
	return "insert"
}

// growthExec runs a growth phase: stages of (insert a batch, measure
// at a fixed rate) until a stop condition: stop_records, stop_memory
// (server used_memory_bytes), the first cliff plus after_cliff stages,
// or max_stages.
type growthExec struct{ sloJudged }

func (growthExec) run(ctx context.Context, env *phaseEnv, pr *rundir.PhaseResult) (*metrics.Set, error) {
	ph, sg := env.ph, env.stages
	mix, err := env.phaseMix()
	if err != nil {
		return nil, err
	}
	base := env.base
	base.Mix, base.Source = mix, env.mix
	// Defaults (cliff factor, max stages, stop records) are the
	// scenario's: scenarios.ApplyDefaults.
	g := *ph.Growth
	insMix, err := scenarios.NewMix(map[string]float64{growthInsertOp(&g, ph.Mix): 100}, env.ops)
	if err != nil {
		return nil, fmt.Errorf("phase %s: %w", ph.Name, err)
	}
	total := metrics.NewSet(mix.Ops())
	var scheduled uint64
	var elapsed time.Duration
	// n is the next record number (a failed insert's number is not
	// reused); records counts the records that exist: those before the
	// phase plus the inserts that succeeded.
	n := env.inserted.Load()
	records := n
	var drain time.Duration
	var lost lostOps
	first := 0
	// Resumed: the stages finished before the kill are kept, the one it
	// was killed in goes on (its insert from the next record, or its
	// measuring on its schedule).
	var gs *growthState
	if env.resume != nil && len(env.resume.state) > 0 {
		gs = &growthState{}
		if err := json.Unmarshal(env.resume.state, gs); err != nil {
			return nil, &ResumeError{fmt.Sprintf("phase %s: %v", ph.Name, err)}
		}
		t, err := decodeSet(gs.Total, mix.Ops())
		if err != nil {
			return nil, &ResumeError{fmt.Sprintf("phase %s: %v", ph.Name, err)}
		}
		total = t
		scheduled, elapsed, drain, lost = gs.Scheduled, gs.Elapsed, gs.Drain, gs.Lost
		pr.Stages = gs.Stages
		n, records, first = gs.N, gs.Records, gs.Stage
	}
	state := func(i int, measuring bool) *growthState {
		return &growthState{Stage: i, Measuring: measuring, N: n, Records: records, Stages: pr.Stages, Total: encodeSet(total),
			Scheduled: scheduled, Elapsed: elapsed, Drain: drain, Lost: lost}
	}
	for i := first; i < g.MaxStages && ctx.Err() == nil; i++ {
		batch := g.Batch
		if g.StopRecords > 0 && records+batch > g.StopRecords {
			batch = g.StopRecords - records
		}
		if batch <= 0 {
			break
		}
		name := fmt.Sprintf("stage-%d", i+1)
		ls := base
		ls.Stage, ls.StageIndex, ls.Rate, ls.Duration, ls.Warmup = name, i+1, g.LoadRate, 0, 0
		ls.Limit, ls.Sequential, ls.KeyBase, ls.Mix = uint64(batch), true, n, insMix
		ls.Seed = base.Seed + uint64(2*i+1)*0x632be59bd9b4e019
		ms := base
		ms.Stage, ms.StageIndex, ms.Rate, ms.Duration, ms.Warmup = name, i+1, g.MeasureRate, g.MeasureFor.D(), 0
		ms.Seed = base.Seed + uint64(2*i+2)*0x632be59bd9b4e019
		sctx, span := sg.stageSpan(ctx, &ms) // the batch insert and the measuring
		var load *rundir.Result
		var loadStart, loadEnd time.Time
		if gs != nil && gs.Measuring {
			// Resumed while measuring: the insert was done.
			load, loadStart = gs.Load, gs.LoadStart
		} else {
			env.ck.setPhaseState(state(i, false))
			lres := env.insertBatch(sctx, &ls)
			n += int64(lres.Scheduled)
			records += succeeded(lres.Total)
			load = &rundir.Result{}
			fillResult(load, lres.Total, env.ops, lres.Scheduled, lres.Elapsed, lres.Drain, lres.WarmTail, lres.WarmTailErrors, env.classes)
			load.TargetRate = g.LoadRate
			loadStart, loadEnd = lres.Start, lres.End
		}
		gs = nil
		if n > env.inserted.Load() {
			env.inserted.Store(n)
		}
		if ctx.Err() != nil {
			if downCause(ctx) != nil {
				// The server died in the batch insert (an OOM kill):
				// the stage is kept with its inserts (variantDown).
				pr.Stages = append(pr.Stages, downStage(name, load, loadStart, loadEnd, records))
			}
			span.End()
			break
		}
		var mres *segResult
		var perOp map[string]*rundir.Result
		if g.Measure == scenarios.MeasurePerOp {
			env.ck.refusePhase("growth stages measured per op cannot be resumed while measuring yet")
			mres, perOp = env.measurePerOp(sctx, &ms, &ls, mix)
		} else {
			st := state(i, true)
			st.Load, st.LoadStart = load, loadStart
			env.ck.setPhaseState(st)
			env.resumeSegment(sctx, &ms)
			mres = sg.measure(sctx, &ms)
		}
		lost.add(mres.lost)
		total.Merge(mres.Total)
		scheduled += mres.Scheduled
		elapsed += mres.Elapsed
		drain = max(drain, mres.Drain)
		st := stageResult(&ms, mres, sg.freshStats(ctx), env.ops)
		mres.lost.apply(&st.Result, env.ops)
		st.PerOp = perOp
		sg.keepStageHists(ph.Name, name, mres.Total)
		st.Start = loadStart.UTC()
		st.Records = records
		st.Memory = rundir.StageMemoryOf(st.Server)
		st.Load = load
		pr.Stages = append(pr.Stages, st)
		span.SetAttributes(resultAttrs(&st.Result)...)
		span.SetAttributes(attribute.Int64("soakd.records", st.Records), attribute.Float64("soakd.load.achieved_rate", load.AchievedRate))
		span.End()

		pr.Cliff = verdict.DetectCliff(pr.Stages, g.CliffFactor)
		if c := pr.Cliff; c != nil && !c.Unconfirmed && env.exporter != nil {
			env.exporter.SetCliff(ph.Name, c.Stage, c.Reason, pr.Stages[c.StageIndex].Start)
		}
		if c := pr.Cliff; c != nil && !c.Unconfirmed && g.AfterCliff >= 0 && len(pr.Stages)-1-c.StageIndex >= g.AfterCliff {
			break
		}
		if g.StopMemory > 0 && st.Server["used_memory_bytes"] >= float64(g.StopMemory) {
			break
		}
	}
	fillResult(&pr.Result, total, env.ops, scheduled, elapsed, drain, 0, 0, env.classes)
	lost.apply(&pr.Result, env.ops)
	pr.TargetRate = g.MeasureRate
	return total, nil
}

// growthState is a growth phase's own checkpoint: the stage it is in
// and whether its insert is done, the records so far, the stages
// finished and the measured figures so far.
type growthState struct {
	Stage     int                  `json:"stage"`
	Measuring bool                 `json:"measuring"`
	N         int64                `json:"n"`
	Records   int64                `json:"records"`
	LoadStart time.Time            `json:"load_start,omitzero"`
	Load      *rundir.Result       `json:"load,omitempty"`
	Stages    []rundir.StageResult `json:"stages,omitempty"`
	Total     []byte               `json:"total"`
	Scheduled uint64               `json:"scheduled"`
	Elapsed   time.Duration        `json:"elapsed"`
	Drain     time.Duration        `json:"drain"`
	Lost      lostOps              `json:"lost"`
}

// insertBatch runs a growth stage's batch insert ls (resumed: from the
// next record of the one the kill cut short) and returns its figures.
func (e *phaseEnv) insertBatch(ctx context.Context, ls *segment) *segResult {
	prior := e.resumeSegment(ctx, ls)
	if prior != nil && ls.Limit == 0 {
		return prior
	}
	res := e.stages.measure(ctx, ls)
	if prior != nil {
		prior.absorb(res)
		return prior
	}
	return res
}

// measurePerOp measures a growth stage one op at a time: each op of the
// mix alone, closed loop (rate 0) with the phase's workers, for an equal
// slice of the stage's measuring time, in scenarios.PerOpOrder. It
// returns the slices together (the stage's figures) and each op's own.
//
// A delete slice must not empty the dataset it measures (closed loop, it
// would delete tens of thousands of records a second): it deletes a run
// of consecutive existing records from a random start, at most a batch
// of them, and afterwards the batch insert ls puts exactly those back,
// unmeasured, so every stage measures against all the records inserted.
func (e *phaseEnv) measurePerOp(ctx context.Context, ms, ls *segment, mix *scenarios.Mix) (*segResult, map[string]*rundir.Result) {
	ops := scenarios.PerOpOrder(mix.Ops(), e.ops)
	all := &segResult{Total: metrics.NewSet(ops)}
	per := map[string]*rundir.Result{}
	slice := ms.Duration / time.Duration(len(ops))
	rng := rand.New(rand.NewPCG(ms.Seed, 0xde1e7e))
	for k, op := range ops {
		if ctx.Err() != nil {
			break
		}
		one, err := scenarios.NewMix(map[string]float64{e.ops.Name(op): 100}, e.ops)
		if err != nil {
			continue // an op of a valid mix always makes a mix of its own
		}
		s := *ms
		s.Rate, s.Duration, s.Mix = 0, slice, one
		s.Seed = ms.Seed + uint64(k+1)*0x9e3779b97f4a7c15
		del := op == scenarios.OpDel || op == scenarios.OpDelete
		n := e.inserted.Load()
		if del {
			run := min(ls.Limit, uint64(n))
			if run == 0 {
				continue
			}
			s.Sequential, s.Limit = true, run
			s.KeyBase = rng.Int64N(n - int64(run) + 1) // records [0, n) all exist
		}
		res := e.stages.measure(ctx, &s)
		if del && res.Scheduled > 0 && ctx.Err() == nil {
			back := *ls
			back.KeyBase, back.Limit = s.KeyBase, res.Scheduled
			e.stages.measure(ctx, &back)
		}
		all.absorb(res)
		pr := &rundir.Result{}
		fillResult(pr, res.Total, e.ops, res.Scheduled, res.Elapsed, res.Drain, res.WarmTail, res.WarmTailErrors, e.classes)
		per[op.String()] = pr
	}
	return all, per
}

// succeeded counts the ops of s that succeeded (class ok): an insert
// that failed, or missed (miss_when), is not a record.
func succeeded(s *metrics.Set) int64 {
	var ok int64
	for _, os := range s.Ops {
		if os != nil {
			ok += os.Classes[0]
		}
	}
	return ok
}
