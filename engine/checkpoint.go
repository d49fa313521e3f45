package engine

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// CheckpointConfig makes a run keep checkpoint.json beside its logs
// (rundir.Checkpoint), each interval, so that a killed run can be
// resumed (Options.Resume).
type CheckpointConfig struct {
	// Identity is the run's identity as the caller knows it: the
	// binary and the host (the engine fills the scenario, soakd's
	// version, the target and the shard).
	Identity rundir.CheckpointIdentity
	// Recipe is kept for whoever resumes the run (rundir.Checkpoint).
	Recipe json.RawMessage
	// Every spaces a segment's checkpoints: one is written at the
	// first interval at least Every after the last (0: every interval).
	// A phase's end is always checkpointed.
	Every time.Duration
}

// checkpointer writes a run's checkpoints: at each interval of a
// measured segment (from its collector, after the logs were written)
// and at each phase's end. Its state is what the run has finished;
// the running segment's is read from the segment when it writes.
type checkpointer struct {
	mu  sync.Mutex
	dir string
	ck  rundir.Checkpoint
	// logs are the run's logs: their sizes are the checkpoint's
	// offsets, synced to disk before it is written.
	logs     *runLogs
	inserted *scenarios.Inserted
	// stages are the runner's stage histograms; encoded caches their
	// encoding for the first stagesN of them.
	stages   *[]stageHist
	encoded  []byte
	encodedN int
	// unsupported, when set, is why no phase of this run can be resumed
	// mid-phase (a repeat or variant matrix).
	unsupported string
	// phaseState is the running phase's own state (executor's);
	// kindWhy says why the running phase's kind cannot be resumed,
	// refused why its current mode cannot ("" when it can).
	phaseState json.RawMessage
	kindWhy    string
	refused    string
	now        func() time.Time
	// every is CheckpointConfig.Every; last is when the last
	// checkpoint was written.
	every time.Duration
	last  time.Time
	// rates are the run's live rate changes so far (runner.rateChanges).
	rates func() []appliedChange
	// enc encodes the sets, its buffers kept between checkpoints.
	enc setEncoder
	// err is the first failed write; later checkpoints are still tried.
	err error
	// out hands the newest checkpoint to the writer (write); done is
	// closed when it has ended; closed: close was called.
	out    chan []byte
	done   chan struct{}
	closed bool
}

// newCheckpointer starts the checkpoints of a run of plan with o.
func newCheckpointer(r *runner, o Options, start time.Time) *checkpointer {
	c := &checkpointer{dir: o.OutDir, logs: &r.logs, inserted: r.inserted, stages: &r.stageHists, now: r.time.now, every: o.Checkpoint.Every,
		out: make(chan []byte, 1), done: make(chan struct{}), rates: r.rateChanges}
	go c.write()
	id := o.Checkpoint.Identity
	id.ScenarioHash = r.plan.sc.Hash()
	id.ScenarioFile = r.plan.sc.File
	id.SoakdVersion = soakdVersion(o.Version)
	id.TargetKind = string(o.TargetKind)
	id.TargetURL = scenarios.RedactURL(o.TargetURL)
	id.Shard = o.Shard
	c.ck = rundir.Checkpoint{Version: rundir.CheckpointVersion, Identity: id, Recipe: o.Checkpoint.Recipe, Start: start.UTC()}
	if len(r.variants()) > 1 {
		c.unsupported = "a run of several variants (targets or persistences) cannot be resumed yet"
	}
	return c
}

// resumed carries a resumed run's history over from its checkpoint: the
// phases it finished, its earlier seams, the recipe.
func (c *checkpointer) resumed(ck *rundir.Checkpoint) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ck.Done = append([]rundir.CheckpointPhase(nil), ck.Done...)
	c.ck.Seams = append([]rundir.Seam(nil), ck.Seams...)
	if c.ck.Recipe == nil {
		c.ck.Recipe = ck.Recipe
	}
}

// beginPhase notes that phase pi (named name, of kind k) started at start.
func (c *checkpointer) beginPhase(pi int, name string, k scenarios.PhaseKind, start time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ck.Current = &rundir.CheckpointCurrent{Index: pi, Name: name, Kind: string(k), Start: start.UTC()}
	c.kindWhy, c.refused = "", ""
	switch {
	case c.unsupported != "":
		c.kindWhy = c.unsupported
	case !resumableKind(k):
		c.kindWhy = fmt.Sprintf("phase kind %s cannot be resumed yet", k)
	}
	c.phaseState = nil
}

// setPhaseState keeps the running phase's own state (an executor's,
// JSON), written with each checkpoint until the next.
func (c *checkpointer) setPhaseState(v any) {
	if c == nil {
		return
	}
	js, err := json.Marshal(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refused = ""
	if err != nil {
		c.refused = "its state could not be kept: " + err.Error()
		c.phaseState = nil
		return
	}
	c.phaseState = js
}

// refusePhase marks the running phase as not resumable until its next
// setPhaseState (a mode of a kind that keeps no resumable state).
func (c *checkpointer) refusePhase(why string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refused = why
}

// phaseDone notes phase pr finished, with its measured ops total, and
// writes a checkpoint between phases.
func (c *checkpointer) phaseDone(pr *rundir.PhaseResult, total *metrics.Set) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ck.Done = append(c.ck.Done, rundir.CheckpointPhase{Result: *pr, Hists: c.enc.encode(total)})
	c.ck.Current = nil
	if c.unsupported != "" { // not between its phases either (resume_rounds.go)
		c.ck.Current = &rundir.CheckpointCurrent{Index: -1, Name: pr.Name, Kind: string(pr.Kind), Unsupported: c.unsupported}
	}
	c.phaseState = nil
	c.writeLocked(nil)
}

// arrived notes that the run arrived at the barrier key, in a
// checkpoint written at once: a kill while it waits there must not
// make it arrive twice.
func (c *checkpointer) arrived(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ck.Barrier = key
	c.writeLocked(nil)
}

// addSeam notes a resume of the run (kept in every later checkpoint).
func (c *checkpointer) addSeam(s rundir.Seam) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ck.Seams = append(c.ck.Seams, s)
}

// segment writes a checkpoint in the middle of segment sr, from its
// collector, after the interval's logs were written.
func (c *checkpointer) segment(sr *segRun) {
	if c == nil {
		return
	}
	c.mu.Lock()
	due := c.every <= 0 || c.last.IsZero() || c.now().Sub(c.last) >= c.every
	c.mu.Unlock()
	if !due {
		return
	}
	st := sr.state(&c.enc)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeLocked(st)
}

// writeLocked writes the checkpoint, with seg the running segment's
// state (nil between phases, or when the phase cannot be resumed).
func (c *checkpointer) writeLocked(seg *segState) {
	if c.closed {
		return
	}
	if cur := c.ck.Current; cur != nil {
		cur.Segment, cur.Phase, cur.Stage = nil, nil, ""
		cur.Unsupported = c.kindWhy
		if cur.Unsupported == "" {
			cur.Unsupported = c.refused
		}
		if cur.Unsupported == "" {
			cur.Phase = c.phaseState // between two stages: the executor's state alone
		}
		if cur.Unsupported == "" && seg != nil {
			js, err := json.Marshal(seg)
			if err != nil {
				c.fail(err)
				return
			}
			cur.Segment, cur.Stage = js, seg.Stage
		}
	}
	if n := len(*c.stages); n != c.encodedN {
		c.encoded, c.encodedN = encodeStageHists(*c.stages), n
	}
	c.ck.StageHists = c.encoded
	c.ck.Inserted = c.inserted.Load()
	if c.rates != nil {
		c.ck.RateChanges = checkpointRates(c.rates())
	}
	c.last = c.now()
	c.ck.Written = c.last.UTC()
	c.ck.Logs = c.logs.sizes()
	js, err := json.Marshal(&c.ck)
	if err != nil {
		c.fail(err)
		return
	}
	c.hand(js)
}

// hand gives the writer the newest checkpoint, in place of one it has
// not taken yet.
func (c *checkpointer) hand(js []byte) {
	for {
		select {
		case c.out <- js:
			return
		default:
		}
		select {
		case <-c.out:
		default:
		}
	}
}

// write is the writer's goroutine: for each checkpoint handed to it,
// the logs synced to disk (they hold at least what it counts), then
// checkpoint.json written atomically. Off the collector, so that the
// fsyncs delay no interval and no segment's end.
func (c *checkpointer) write() {
	defer close(c.done)
	path := filepath.Join(c.dir, rundir.CheckpointFile)
	for js := range c.out {
		err := c.logs.sync()
		if err == nil {
			err = rundir.WriteFileAtomic(path, js)
		}
		if err != nil {
			c.mu.Lock()
			c.fail(err)
			c.mu.Unlock()
		}
	}
}

// close writes the last checkpoint handed over and ends the writer:
// before the logs are closed.
func (c *checkpointer) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	close(c.out)
	c.mu.Unlock()
	<-c.done
}

// fail keeps the first error (c.mu held) and notes it in the run's
// write-error note.
func (c *checkpointer) fail(err error) {
	if c.err == nil {
		c.err = fmt.Errorf("checkpoint: %w", err)
		c.logs.noteErr(c.err)
	}
}

// segState is a running segment's checkpoint: its origin, how far its
// schedule got and what it measured so far.
type segState struct {
	Stage      string    `json:"stage,omitempty"`
	StageIndex int       `json:"stage_index,omitempty"`
	Start      time.Time `json:"start"`
	T0         time.Time `json:"t0"`
	// Sent is the schedule indices handed out (open loop) or claimed
	// (closed loop); Warm those of them in the warmup.
	Sent      uint64 `json:"sent"`
	Warm      uint64 `json:"warm"`
	Completed int64  `json:"completed"`
	WarmTail  int64  `json:"warm_tail,omitempty"`
	WarmErrs  int64  `json:"warm_errs,omitempty"`
	LastEnd   int64  `json:"last_end,omitempty"`
	// Epoch is the schedule in force after a live rate change (nil:
	// the segment's own from T0).
	Epoch *epochState `json:"epoch,omitempty"`
	// KeyBase and Limit are a sequential (load) segment's.
	KeyBase int64  `json:"key_base,omitempty"`
	Limit   uint64 `json:"limit,omitempty"`
	// Streams are the workers' op stream positions (streams.go), one
	// per worker, null where one published none yet.
	Streams []*streamPos `json:"streams,omitempty"`
	// Lost are the ops its seams lost so far, per op (nil: never
	// resumed).
	Lost *lostOps `json:"lost,omitempty"`
	// Total is what the segment measured so far (encodeSet).
	Total []byte `json:"total"`
}

// epochState is a live rate change's schedule: from T0 on, index Base
// and later at Rate.
type epochState struct {
	T0   time.Time `json:"t0"`
	Base uint64    `json:"base"`
	Rate float64   `json:"rate"`
}

// position is the segment's schedule position and counters now: taken
// by its collector right after it drained the workers' stripes, so that
// what the schedule sent since, and what completed since (not in this
// interval's window), is as little as can be: the checkpoint counts it
// lost.
func (sr *segRun) position() segState {
	seg, clk := sr.seg, sr.clk
	st := segState{Stage: seg.Stage, StageIndex: seg.StageIndex, Start: sr.res.Start, T0: clk.t0,
		Completed: clk.completed.Load(), WarmTail: clk.warmTail.Load(), WarmErrs: clk.warmErrs.Load(), LastEnd: clk.lastEnd.Load(),
		KeyBase: seg.KeyBase, Limit: seg.Limit, Epoch: sr.retime.Load(), Streams: sr.streams.snapshot(),
		Lost: sr.seamLost}
	if sr.work != nil {
		st.Warm = sr.warmSent.Load()
		st.Sent = sr.scheduled.Load()
	} else {
		st.Sent = sr.scheduled.Load()
		st.Warm = clk.warmSched.Load()
	}
	return st
}

// state is the segment's checkpoint: its position at the last drain
// and what it measured up to it (the collector's goroutine: res.Total
// is its own), encoded with enc.
func (sr *segRun) state(enc *setEncoder) *segState {
	st := sr.pos
	st.Total = enc.encode(sr.res.Total)
	return &st
}

// setState is a metrics.Set's encoding: each op's counters and
// histograms (hdr's compressed encoding) and the lag's.
type setState struct {
	Ops []opState `json:"ops"`
	Lag []byte    `json:"lag"`
}

type opState struct {
	Op      int              `json:"op"`
	Counts  metrics.OpCounts `json:"counts"`
	Latency []byte           `json:"latency"`
	Service []byte           `json:"service"`
}

// appendHist appends h's counts to b: its range, then each count as a
// varint, a run of empty buckets as its negated length. hdr's own
// encoding compresses at zlib's best, ~3 ms a histogram: too slow for
// a checkpoint a second (the set is compressed once, fast, instead).
func appendHist(b []byte, h *hdr.Histogram) []byte {
	s := h.Export()
	b = binary.AppendVarint(b, s.LowestTrackableValue)
	b = binary.AppendVarint(b, s.HighestTrackableValue)
	b = binary.AppendVarint(b, s.SignificantFigures)
	b = binary.AppendUvarint(b, uint64(len(s.Counts)))
	for i := 0; i < len(s.Counts); {
		if s.Counts[i] != 0 {
			b = binary.AppendVarint(b, s.Counts[i])
			i++
			continue
		}
		j := i
		for j < len(s.Counts) && s.Counts[j] == 0 {
			j++
		}
		b = binary.AppendVarint(b, -int64(j-i))
		i = j
	}
	return b
}

// decodeHist decodes encodeHist's b.
func decodeHist(b []byte) (*hdr.Histogram, error) {
	r := bytes.NewReader(b)
	var s hdr.Snapshot
	var err error
	read := func() int64 {
		v, e := binary.ReadVarint(r)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	s.LowestTrackableValue, s.HighestTrackableValue, s.SignificantFigures = read(), read(), read()
	n, e := binary.ReadUvarint(r)
	if err != nil || e != nil || n > 1<<24 {
		return nil, errors.New("histogram: bad header")
	}
	s.Counts = make([]int64, n)
	for i := 0; i < len(s.Counts) && err == nil; {
		v := read()
		switch {
		case v >= 0:
			s.Counts[i] = v
			i++
		case -v > int64(len(s.Counts)-i):
			return nil, errors.New("histogram: run of empty buckets past its end")
		default:
			i += int(-v)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	return hdr.Import(&s), nil
}

// encodeSet encodes s (nil: none), compressed (setEncoder, once).
func encodeSet(s *metrics.Set) []byte {
	var e setEncoder
	return e.encode(s)
}

// setEncoder encodes sets as encodeSet does, keeping its buffers and
// its flate writer from one encoding to the next: a checkpointer's,
// which would otherwise make ~2 MB of them a checkpoint (a flate writer
// alone is ~1 MB; BenchmarkCheckpoint). What is left is hdr's Export,
// a copy of each histogram's counts, which its API gives no other way
// to read.
type setEncoder struct {
	mu sync.Mutex
	// hist holds the histograms' encodings one after another, ends
	// where each ends; st is the set's state, out its compressed form.
	hist []byte
	ends []int
	st   setState
	out  bytes.Buffer
	fw   *flate.Writer
}

// encode encodes s (nil: none) into a slice of its own.
func (e *setEncoder) encode(s *metrics.Set) []byte {
	if s == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hist, e.ends = appendHist(e.hist[:0], s.Lag), e.ends[:0]
	e.ends = append(e.ends, len(e.hist))
	e.st.Ops = e.st.Ops[:0]
	for op, os := range s.Ops {
		if os == nil {
			continue
		}
		e.hist = appendHist(e.hist, os.Latency)
		e.ends = append(e.ends, len(e.hist))
		e.hist = appendHist(e.hist, os.Service)
		e.ends = append(e.ends, len(e.hist))
		e.st.Ops = append(e.st.Ops, opState{Op: op, Counts: os.OpCounts})
	}
	// The slices into hist are taken once it stopped growing.
	part := func(i int) []byte {
		if i == 0 {
			return e.hist[:e.ends[0]]
		}
		return e.hist[e.ends[i-1]:e.ends[i]]
	}
	e.st.Lag = part(0)
	for i := range e.st.Ops {
		e.st.Ops[i].Latency, e.st.Ops[i].Service = part(1+2*i), part(2+2*i)
	}
	e.out.Reset()
	if e.fw == nil {
		e.fw, _ = flate.NewWriter(&e.out, flate.BestSpeed)
	} else {
		e.fw.Reset(&e.out)
	}
	_ = json.NewEncoder(e.fw).Encode(&e.st)
	_ = e.fw.Close()
	return bytes.Clone(e.out.Bytes())
}

// decodeSet decodes encodeSet's b into a set for ops (nil b: empty).
func decodeSet(b []byte, ops []scenarios.Op) (*metrics.Set, error) {
	s := metrics.NewSet(ops)
	if len(b) == 0 {
		return s, nil
	}
	js, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(b)), 1<<30))
	if err != nil {
		return nil, err
	}
	var st setState
	if err := json.Unmarshal(js, &st); err != nil {
		return nil, err
	}
	o := &metrics.Set{}
	if o.Lag, err = decodeHist(st.Lag); err != nil {
		return nil, fmt.Errorf("lag: %w", err)
	}
	for _, x := range st.Ops {
		if x.Op < 0 || x.Op >= int(scenarios.NumOps) {
			return nil, fmt.Errorf("op %d out of range", x.Op)
		}
		os := &metrics.OpStats{OpCounts: x.Counts}
		if os.Latency, err = decodeHist(x.Latency); err != nil {
			return nil, fmt.Errorf("op %d latency: %w", x.Op, err)
		}
		if os.Service, err = decodeHist(x.Service); err != nil {
			return nil, fmt.Errorf("op %d service: %w", x.Op, err)
		}
		o.Ops[x.Op] = os
	}
	s.Merge(o)
	return s, nil
}

// stageHistState is one kept stage histogram.
type stageHistState struct {
	Tag  string `json:"tag"`
	Data []byte `json:"data"`
}

func encodeStageHists(hs []stageHist) []byte {
	if len(hs) == 0 {
		return nil
	}
	out := make([]stageHistState, len(hs))
	for i, h := range hs {
		out[i] = stageHistState{h.tag, h.data}
	}
	b, _ := json.Marshal(out)
	return b
}

func decodeStageHists(b []byte) ([]stageHist, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var in []stageHistState
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, err
	}
	out := make([]stageHist, len(in))
	for i, h := range in {
		out[i] = stageHist{h.Tag, h.Data}
	}
	return out, nil
}
