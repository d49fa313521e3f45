package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// Resuming a killed run (Options.Resume, docs/resume.md): the phases
// it finished are taken from its checkpoint as they were, the running
// one goes on from where the checkpoint left it, on its absolute
// schedule, and the measured ops whose outcome no one knows (due while
// soakd was down, or in flight or not yet logged at the checkpoint) are
// counted lost: scheduled = completed + dropped + lost.

// ResumeError says why a checkpoint cannot be resumed by this engine
// (its phase kind, a repeat or variant matrix, a checkpoint it cannot
// read).
type ResumeError struct{ Msg string }

func (e *ResumeError) Error() string { return "resume: " + e.Msg }

// CheckResume says whether ck can be resumed as a run of sc: nil, or a
// *ResumeError naming why not.
func CheckResume(sc *scenarios.Scenario, ck *rundir.Checkpoint) error {
	if cur := ck.Current; cur != nil {
		if cur.Unsupported != "" {
			return &ResumeError{fmt.Sprintf("phase %s: %s", cur.Name, cur.Unsupported)}
		}
		if cur.Index < 0 || cur.Index >= len(sc.Phases) || !runsAs(sc, cur.Index, cur.Name) {
			return &ResumeError{fmt.Sprintf("the checkpoint's phase %s (#%d) is not in scenario %s", cur.Name, cur.Index+1, sc.Name)}
		}
	}
	if n := runUnits(sc); len(ck.Done) > n {
		return &ResumeError{fmt.Sprintf("the checkpoint has %d phases done, scenario %s has %d", len(ck.Done), sc.Name, n)}
	}
	return nil
}

// resumeState is what a resumed run starts from.
type resumeState struct {
	ck *rundir.Checkpoint
	// first is the first phase to run; mid says it is resumed in its
	// middle (its barrier was passed before the kill).
	first int
	mid   bool
	// phase is the running phase's resume, taken by runPhase.
	phase *phaseResume
}

// phaseResume is a phase resumed in its middle: its start, its
// executor's state and its running segment's.
type phaseResume struct {
	start time.Time
	state json.RawMessage
	seg   *segResume
	// down is the checkpoint's time (a seam between two of its stages).
	down time.Time
	// seam notes a resume of one of its segments.
	seam func(rundir.Seam)
}

// segResume is a segment's checkpoint, decoded.
type segResume struct {
	st    *segState
	total *metrics.Set
	down  time.Time // the checkpoint's time
}

// dispatchFrom is where a resumed open-loop segment's dispatch starts.
type dispatchFrom struct {
	ep      *epoch // nil: the segment's own schedule
	sent    uint64
	warm    uint64
	retimed bool
}

// lostOps are measured ops whose outcome no one knows, per op; Seam
// says a resumed segment is among those counted (their results get
// Lost and per-op Scheduled).
type lostOps struct {
	N    int64                   `json:"n"`
	Ops  [scenarios.NumOps]int64 `json:"ops"`
	Seam bool                    `json:"seam"`
}

func (l *lostOps) add(o lostOps) {
	l.N += o.N
	for i, n := range o.Ops {
		l.Ops[i] += n
	}
	l.Seam = l.Seam || o.Seam
}

// apply puts l into r, a result of ops that a resume ran in: Lost, and
// each op's Lost and Scheduled (Count + Dropped + Lost).
func (l lostOps) apply(r *rundir.Result, names *scenarios.OpTable) {
	if !l.Seam {
		return
	}
	r.Lost = l.N
	for op, n := range l.Ops {
		if n == 0 {
			continue
		}
		name := names.Name(scenarios.Op(op))
		o := r.Ops[name]
		o.Lost = n
		r.Ops[name] = o
	}
	for name, o := range r.Ops {
		o.Scheduled = uint64(o.Count + o.Dropped + o.Lost)
		r.Ops[name] = o
	}
}

// done counts the ops of s whose outcome is known: completed or dropped.
func done(s *metrics.Set) int64 {
	var n int64
	for _, os := range s.Ops {
		if os != nil {
			n += os.Count + os.Dropped
		}
	}
	return n
}

// newResumeState decodes ck for a run of plan.
func newResumeState(ck *rundir.Checkpoint, plan *Plan) (*resumeState, error) {
	if err := CheckResume(plan.sc, ck); err != nil {
		return nil, err
	}
	rs := &resumeState{ck: ck, first: len(ck.Done)}
	cur := ck.Current
	if cur == nil {
		return rs, nil
	}
	rs.first, rs.mid = cur.Index, true
	rs.phase = &phaseResume{start: cur.Start, state: cur.Phase, down: ck.Written}
	if len(cur.Segment) > 0 {
		var st segState
		if err := json.Unmarshal(cur.Segment, &st); err != nil {
			return nil, &ResumeError{"checkpoint segment: " + err.Error()}
		}
		total, err := decodeSet(st.Total, nil)
		if err != nil {
			return nil, &ResumeError{"checkpoint segment: " + err.Error()}
		}
		rs.phase.seg = &segResume{st: &st, total: total, down: ck.Written}
	}
	return rs, nil
}

// skip says whether phase pi is not run (finished before the kill).
func (rs *resumeState) skip(pi int) bool { return rs != nil && pi < rs.first }

// passed says whether phase pi's barrier was passed before the kill.
func (rs *resumeState) passed(pi int) bool { return rs != nil && rs.mid && pi == rs.first }

// arrived says whether the killed run had arrived at the barrier key
// (it waits there again without arriving).
func (rs *resumeState) arrived(key string) bool {
	return rs != nil && rs.ck.Barrier != "" && rs.ck.Barrier == key
}

// take is phase pi's resume, once (nil: it starts afresh).
func (rs *resumeState) take(pi int) *phaseResume {
	if rs == nil || !rs.mid || pi != rs.first || rs.phase == nil {
		return nil
	}
	p := rs.phase
	rs.phase = nil
	return p
}

// resumeRun sets r up to continue the run of its checkpoint: the logs
// cut back to the checkpoint and reopened, the finished phases and
// stage histograms restored, the record count. It returns the run's
// start.
func (r *runner) resumeRun(ck *rundir.Checkpoint, sum *rundir.Summary) error {
	for _, d := range ck.Done {
		set, err := decodeSet(d.Hists, nil)
		if err != nil {
			return &ResumeError{fmt.Sprintf("checkpoint phase %s: %v", d.Result.Name, err)}
		}
		r.totals = append(r.totals, phaseTotal{d.Result.Name, set})
		sum.Phases = append(sum.Phases, d.Result)
	}
	hs, err := decodeStageHists(ck.StageHists)
	if err != nil {
		return &ResumeError{"checkpoint stage histograms: " + err.Error()}
	}
	r.stageHists = hs
	r.inserted.Store(ck.Inserted)
	r.seams = append(r.seams, ck.Seams...)
	r.rates = resumedRates(ck.RateChanges)
	return nil
}

// addSeam notes a resume of a segment, in the summary and the later
// checkpoints.
func (r *runner) addSeam(s rundir.Seam) {
	r.seams = append(r.seams, s)
	r.ck.addSeam(s)
}

// resumeSegment starts sr, a resumed segment, at now: its origin, its
// figures and counters from the checkpoint; the open-loop dispatch from
// the index due now (those due since the checkpoint are lost), the
// closed loop from the next index it had claimed. It notes the seam.
func (r *runner) resumeSegment(sr *segRun, now time.Time) {
	seg, rs := sr.seg, sr.seg.resume
	st, clk := rs.st, sr.clk
	clk.start(seg, st.T0)
	sr.res.Start = st.Start
	sr.res.Total.Merge(rs.total)
	clk.completed.Store(st.Completed)
	clk.warmTail.Store(st.WarmTail)
	clk.warmErrs.Store(st.WarmErrs)
	clk.lastEnd.Store(st.LastEnd)
	if st.Epoch != nil {
		sr.retime.Store(st.Epoch)
	}
	var measured uint64
	// skipLo, skipHi are the measured indices due while soakd was down
	// (open loop): their ops are known one by one.
	var skipLo, skipHi uint64
	if sr.work != nil {
		ep := &epoch{t0: st.T0.Add(seg.Offset), sched: seg.pacing()}
		f := &dispatchFrom{warm: st.Warm}
		if e := st.Epoch; e != nil {
			ep = &epoch{t0: e.T0, base: e.Base, sched: seg.atRate(e.Rate)}
			f.ep, f.retimed = ep, true
		}
		f.sent = max(st.Sent, min(ep.base+ep.sched.Due(now.Sub(ep.t0)), seg.limitFor(ep, st.T0)))
		if b, ok := seg.warmBound(ep, time.Unix(0, clk.warmEnd)); ok {
			f.warm = max(f.warm, min(b, f.sent))
		}
		sr.from = f
		sr.scheduled.Store(f.sent)
		sr.warmSent.Store(f.warm)
		measured = f.sent - f.warm
		skipLo, skipHi = max(st.Sent, f.warm), f.sent
	} else {
		sr.next.Store(st.Sent)
		sr.scheduled.Store(st.Sent)
		clk.warmSched.Store(st.Warm)
		measured = st.Sent - min(st.Warm, st.Sent)
	}
	// What is outstanding at the checkpoint includes what earlier
	// resumes of this segment lost: those ops are this seam's only once.
	var before int64
	for _, sm := range r.seams {
		if sm.Phase == seg.Phase && sm.Stage == seg.Stage {
			before += sm.Lost
		}
	}
	lost := max(int64(measured)-done(rs.total)-before, 0)
	per, byWeight := seamLostOps(seg, lost, skipLo, skipHi)
	// The segment's lost ops per op so far: its earlier seams' and this
	// one's (lostOps at its end).
	sr.seamLost = &lostOps{Seam: true}
	if st.Lost != nil {
		sr.seamLost.add(*st.Lost)
	}
	sr.seamLost.add(per)
	sm := rundir.Seam{Phase: seg.Phase, Stage: seg.Stage, Down: rs.down.UTC(), Resumed: now.UTC(), Lost: lost, Streams: sr.restored, ByWeight: byWeight}
	for op, n := range per.Ops {
		if n == 0 {
			continue
		}
		if sm.Ops == nil {
			sm.Ops = map[string]int64{}
		}
		sm.Ops[r.plan.ops.Name(scenarios.Op(op))] = n
		if exp := r.opts.Exporter; exp != nil {
			// soakd_ops_lost_total: the seam's own per-op figures.
			exp.AddLost(seg.Phase, scenarios.Op(op), n)
		}
	}
	r.addSeam(sm)
}

// exactLost bounds the schedule indices whose ops a seam counts one by
// one (opFor, ~5 ns each: 2^26 is ~0.3 s of a resume); a longer downtime
// is split over the ops by the mix's weights.
const exactLost = 1 << 26

// seamLostOps splits a seam's lost ops over the ops: the indices
// [skipLo, skipHi) due while soakd was down one by one (each index's op
// is a pure function of it), when they are lost and no more than
// exactLost; the rest (the ops in flight or not yet logged at the
// checkpoint, whose indices are not recorded) by the mix's weights,
// byWeight of them.
func seamLostOps(seg *segment, lost int64, skipLo, skipHi uint64) (per lostOps, byWeight int64) {
	per = lostOps{N: lost, Seam: true}
	byWeight = lost
	if k := skipHi - min(skipLo, skipHi); k > 0 && k <= exactLost && int64(k) <= lost {
		for i := skipLo; i < skipHi; i++ {
			per.Ops[seg.opFor(i)]++
		}
		byWeight -= int64(k)
	}
	seg.Mix.Split(byWeight, &per.Ops)
	return per, byWeight
}

// lostOps are a resumed segment's lost ops once it ended: what its
// schedule called for less what completed or was dropped; per op, its
// seams' (seamLostOps), any difference split by the mix's weights.
func (sr *segRun) lostOps() lostOps {
	l := lostOps{Seam: true}
	n := int64(sr.res.Scheduled) - done(sr.res.Total)
	if n <= 0 {
		return l
	}
	l.N = n
	if k := sr.seamLost; k != nil && k.N <= n {
		l.Ops = k.Ops
		n -= k.N
	}
	sr.seg.Mix.Split(n, &l.Ops)
	return l
}

// resumeSegment applies the phase's resume to s, one of its segments,
// when it is the one the run was killed in (by stage name): an
// open-loop or closed-loop segment goes on from its checkpoint
// (segment.resume); a load (records in order, bounded by their count)
// goes on from the next record: the records just before it, which ops
// in flight at the checkpoint may not have written, are inserted again
// first, unmeasured. It returns the load's figures before the kill
// (nil for any other segment): the caller adds them to what it
// measures next.
func (e *phaseEnv) resumeSegment(ctx context.Context, s *segment) *segResult {
	p := e.resume
	if p == nil || p.seg == nil || p.seg.st.Stage != s.Stage {
		return nil
	}
	rs := p.seg
	p.seg = nil
	if !(s.Sequential && s.Limit > 0 && s.Duration <= 0) {
		s.resume = rs
		return nil
	}
	st := rs.st
	c := uint64(done(rs.total))
	c = min(c, s.Limit)
	prior := &segResult{Start: st.Start, End: rs.down, Total: rs.total, Scheduled: c, Elapsed: rs.down.Sub(st.Start), lost: lostOps{Seam: true}}
	if p.seam != nil {
		p.seam(rundir.Seam{Phase: s.Phase, Stage: s.Stage, Down: rs.down.UTC(), Resumed: e.time.now().UTC()})
	}
	if redo := min(c, 2*(st.Sent-min(st.Sent, c))+uint64(2*s.Concurrency)); redo > 0 && ctx.Err() == nil {
		back := *s
		back.KeyBase, back.Limit = s.KeyBase+int64(c-redo), redo
		e.stages.unmeasured(ctx, &back)
	}
	s.KeyBase += int64(c)
	s.Limit -= c
	return prior
}
