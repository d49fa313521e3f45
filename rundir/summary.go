// Package rundir is the run-directory contract: summary.json (schema v1)
// and its types, summary.txt, histograms.hlog and latency.hlog names and
// readers, the partial log of a killed run, and atomic writes (temp file,
// fsync, rename) so a crash never leaves a torn file. It judges nothing
// (verdict/) and renders nothing (report/).
package rundir

import (
	"encoding/json"
	"fmt"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/storeinfo"
	"os"
	"path/filepath"
	"time"

	"github.com/soakd/soakd/metrics"

	"github.com/soakd/soakd/regfile"
)

// SchemaVersion of summary.json.
const SchemaVersion = 1

// The run directory's files.
const (
	SummaryFile     = "summary.json"
	SummaryTextFile = "summary.txt"
	// LatencyLog is the interval log (one interval per second, warmup
	// included) a finished run leaves; PartialLog is its name while the
	// run is going (and after a kill).
	LatencyLog = "latency.hlog"
)

// Run statuses.
const (
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted"
)

// Summary is summary.json.
type Summary struct {
	// Dir is the run directory the summary was read from (ReadSummary)
	// or written to (the run path); not stored. Every table of the run's
	// rounds and variants reads its intervals from Dir's latency logs,
	// so the end-of-run text, report, report --side-by-side and the
	// HTML show the same numbers.
	Dir           string `json:"-"`
	SchemaVersion int    `json:"schema_version"`
	Scenario      string `json:"scenario"`
	ScenarioFile  string `json:"scenario_file,omitempty"`
	// ScenarioHash identifies the workload that ran: the effective
	// scenario (overrides applied) without its target
	// (scenarios.Scenario.Hash).
	ScenarioHash string `json:"scenario_hash,omitempty"`
	// Host is where the run ran (host.go); nil in older summaries.
	Host *Host `json:"host,omitempty"`
	// SoakdVersion is the build that ran (BuildVersion); empty in
	// summaries written before it was recorded.
	SoakdVersion string     `json:"soakd_version,omitempty"`
	Target       TargetInfo `json:"target"`
	Shard        Shard      `json:"shard"`
	Start        time.Time  `json:"start"`
	End          time.Time  `json:"end"`
	Status       string     `json:"status"`
	// StatusReason says why an interrupted run ended early when it was
	// not a signal: a managed server died, a barrier timed out.
	StatusReason string        `json:"status_reason,omitempty"`
	Phases       []PhaseResult `json:"phases"`
	SLO          Verdict       `json:"slo"`
	// Partial: the figures were rebuilt from latency.hlog.partial alone
	// (a killed run, or one whose writes failed): counts and latency
	// only; errors, drops and lag are unknown (shown as such, not 0).
	Partial bool `json:"partial,omitempty"`
	// Seams are the places a killed run was resumed (run --resume), in
	// order; none in a run that was never resumed.
	Seams []Seam `json:"seams,omitempty"`
}

// Seam is one resume of a killed run: from its last checkpoint (Down)
// to when ops were sent again (Resumed). The ops due in between, and
// those in flight or not yet logged at Down, are Lost: never latency.
type Seam struct {
	Phase string `json:"phase"`
	// Stage is the growth stage or ramp step the seam fell in ("" none).
	Stage   string    `json:"stage,omitempty"`
	Down    time.Time `json:"down"`
	Resumed time.Time `json:"resumed"`
	Lost    int64     `json:"lost"`
	// Streams says how the op streams' random state went on across the
	// seam: "restored" from the checkpoint, or which were reseeded with
	// the seam's own seed and why ("" for a segment without streams
	// restored: a load's records in order).
	Streams string `json:"streams,omitempty"`
	// Ops are Lost per op. Those due while soakd was down are counted
	// one by one; ByWeight of them (the ops in flight or not yet logged
	// at the checkpoint, whose kinds are not recorded, and a downtime
	// of more than 2^26 ops) are split over the ops by the mix's weights.
	Ops      map[string]int64 `json:"ops,omitempty"`
	ByWeight int64            `json:"by_weight,omitempty"`
}

// TargetInfo describes the target without credentials.
type TargetInfo struct {
	Kind   string `json:"kind"`
	URL    string `json:"url,omitempty"`
	Server string `json:"server,omitempty"`
	Note   string `json:"note,omitempty"`
	// MemoryLimits is what caps the server's memory (maxmemory, the
	// managed server's cgroup, host swap), where the target tells.
	MemoryLimits *storeinfo.MemoryLimits `json:"memory_limits,omitempty"`
	// Variants names what each variant ran against when the variants
	// are several targets (run --target A --target B --repeat N): the
	// variant (target-1, ...) and its URL, redacted.
	Variants map[string]string `json:"variants,omitempty"`
}

// Result is what a phase or a stage measured.
type Result struct {
	TargetRate float64 `json:"target_rate"`
	// AchievedRate is CompletedInWindow over DurationSeconds: the ops
	// that completed inside the measured window, per second of it. Ops
	// that finished in the drain after it do not count; warmup ops that
	// finished inside it do.
	AchievedRate float64 `json:"achieved_rate"`
	// GoodputRate is the successful ops per second of the same window:
	// the ops AchievedRate counts less those that failed (an error
	// class; a miss is a successful read that found nothing). It is what
	// min_achieved_ratio judges. Summaries written before it have 0: read
	// it with Goodput.
	GoodputRate float64 `json:"goodput_rate"`
	// DurationSeconds is the measured window (warmup excluded).
	DurationSeconds float64 `json:"duration_seconds"`
	// Scheduled is how many ops the schedule called for in the measured
	// window (by intended start; dropped included, warmup excluded).
	Scheduled uint64              `json:"scheduled"`
	Ops       map[string]OpResult `json:"ops"`
	Dropped   int64               `json:"dropped"`
	// Lost counts the measured ops the schedule called for whose
	// outcome no one knows: due while soakd was down (a kill, before
	// run --resume), or in flight or unlogged since the last checkpoint.
	// Scheduled = Completed + Dropped + Lost. 0 in a run never resumed.
	Lost   int64 `json:"lost,omitempty"`
	Errors int64 `json:"errors"`
	// Misses are cache reads that found no value (outcome miss): not
	// errors, but the hit ratio a growth phase watches.
	Misses int64 `json:"misses,omitempty"`
	// Completed counts the measured ops that completed, in the window
	// or in the drain after it. CompletedInWindow counts, by completion
	// time, every op that completed inside the window: the measured ops
	// not late, plus warmup ops that finished after the warmup ended.
	Completed         int64 `json:"completed"`
	CompletedInWindow int64 `json:"completed_in_window"`
	// DrainSeconds is how long after the window's end the last measured
	// op completed: the backlog the store still had when time was up.
	DrainSeconds float64         `json:"drain_seconds"`
	MaxLag       float64         `json:"max_lag"`
	Lag          metrics.Summary `json:"lag"`
}

// OpResult is one op's figures.
type OpResult struct {
	Count int64 `json:"count"`
	// Late: completed after the measured window ended (in Count).
	Late    int64            `json:"late,omitempty"`
	Errors  map[string]int64 `json:"errors"`
	Misses  int64            `json:"misses,omitempty"`
	Dropped int64            `json:"dropped"`
	// Scheduled is this op's share of the phase's Scheduled: Count +
	// Dropped + Lost. 0 in summaries written before it was recorded.
	Scheduled uint64 `json:"scheduled,omitempty"`
	// Lost is this op's share of the phase's Lost (Result.Lost).
	Lost int64 `json:"lost,omitempty"`
	// GoodputRate is this op's measured ops that completed inside the
	// window without an error, per second of the window.
	GoodputRate float64         `json:"goodput_rate"`
	Latency     metrics.Summary `json:"latency"`
	Service     metrics.Summary `json:"service"`
	// OverTime is the op's p99 over the run (steady phases): the mean of
	// its latency-over-time buckets' p99s after the warmup.
	OverTime *OverTime `json:"over_time,omitempty"`
}

// OverTime is an op's p99 over time in a steady phase, from latency.hlog
// in buckets BucketSeconds wide (the report's latency-over-time chart):
// MeanP99 is the unweighted mean of the p99s of the Buckets buckets that
// start after the warmup and hold ops of this kind, not all failed
// (a bucket of failures alone has no latency; seconds, from
// intended start), next to the phase's overall p99.
// WorstP99 is the highest of those p99s, in the bucket starting
// WorstAtSeconds after the phase's start: the worst window the SLO saw
// at the chart's resolution.
type OverTime struct {
	MeanP99        float64 `json:"mean_p99"`
	BucketSeconds  float64 `json:"bucket_seconds"`
	Buckets        int     `json:"buckets"`
	WorstP99       float64 `json:"worst_p99,omitempty"`
	WorstAtSeconds float64 `json:"worst_at_seconds,omitempty"`
}

// PhaseResult is one phase.
type PhaseResult struct {
	Name  string              `json:"name"`
	Kind  scenarios.PhaseKind `json:"kind"` // empty (unknown) when rebuilt from an interval log without run.json
	Start time.Time           `json:"start"`
	End   time.Time           `json:"end"`
	// WarmupSeconds is the warmup at the phase's start (steady phases):
	// its ops are in latency.hlog but not in the phase's figures.
	WarmupSeconds float64 `json:"warmup_seconds,omitempty"`
	// TickSeconds is the phase's tick: its open-loop arrivals came in
	// ticks this long, each tick's ops intended at its start; 0 = each
	// op at its own instant.
	TickSeconds float64 `json:"tick_seconds,omitempty"`
	Result
	Stages []StageResult      `json:"stages,omitempty"`
	Server map[string]float64 `json:"server,omitempty"`
	SLO    *Verdict           `json:"slo,omitempty"`
	// Growth phases: the persistence variant and the first cliff.
	Variant string `json:"variant,omitempty"`
	// Repeat is the round (1..N) of a phase run with repeat: N > 1, in
	// which the variants ran interleaved; 0 = not repeated.
	Repeat int    `json:"repeat,omitempty"`
	Cliff  *Cliff `json:"cliff,omitempty"`
	// Capacity phases: the search's outcome.
	Capacity *CapacityResult `json:"capacity,omitempty"`
	// Sweep phases: one figure per point.
	Sweep *SweepResult `json:"sweep,omitempty"`
	// Replay phases: the capture sent (replay.go).
	Replay *ReplayResult `json:"replay,omitempty"`
	// PersistenceEvents are the periods in the phase when the server ran
	// a background persistence job, from its stats sampled at the
	// collector's interval and at each stage's end.
	PersistenceEvents []PersistenceEvent `json:"persistence_events,omitempty"`
	// ChangePoints are where the phase's per-op latency or rate shifted
	// (report.FindChangePoints, with verdict.Detect).
	ChangePoints []ChangePoint `json:"change_points,omitempty"`
	// RateChanges are the live rate changes (daemon API POST
	// /api/v1/runs/{id}/rate) applied during the phase, in order.
	RateChanges []RateChange `json:"rate_changes,omitempty"`
	// Self is soakd's own health over the phase and whether the phase
	// was generator- or host-bound (selfhealth.go).
	Self *SelfHealth `json:"self,omitempty"`
	// EndedEarly says the phase stopped before its duration: its
	// figures are over what ran.
	EndedEarly *EarlyEnd `json:"ended_early,omitempty"`
}

// EarlyEnd is where and why a phase stopped before its duration.
type EarlyEnd struct {
	AtSeconds float64 `json:"at_seconds"` // from the phase's start
	OfSeconds float64 `json:"of_seconds"` // its duration (0: none set, a growth)
	Reason    string  `json:"reason"`
}

// String is "ended early at 5.0s of 600.0s: reason" ("at 5.0s:" for a
// phase with no set duration: a growth).
func (e *EarlyEnd) String() string {
	if e.OfSeconds <= 0 {
		return fmt.Sprintf("ended early at %.1fs: %s", e.AtSeconds, e.Reason)
	}
	return fmt.Sprintf("ended early at %.1fs of %.1fs: %s", e.AtSeconds, e.OfSeconds, e.Reason)
}

// RateChange is one live rate change: from At (OffsetSeconds after the
// phase's start; in Stage for a staged phase) the schedule ran at Rate
// instead of FromRate (0 in summaries written before it was recorded).
type RateChange struct {
	At            time.Time `json:"at"`
	OffsetSeconds float64   `json:"offset_seconds"`
	Stage         string    `json:"stage,omitempty"`
	Rate          float64   `json:"rate"`
	FromRate      float64   `json:"from_rate,omitempty"`
}

// StageResult is one stage of a ramp, growth or capacity phase.
type StageResult struct {
	Name  string    `json:"name"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Result
	Server map[string]float64 `json:"server,omitempty"`
	// Growth stages: dataset size after the stage's batch, and the
	// batch insert's own figures.
	Records int64   `json:"records,omitempty"`
	Load    *Result `json:"load,omitempty"`
	// PerOp (growth.measure per_op) is each op of the mix measured alone,
	// closed loop, for its slice of measure_for: its AchievedRate is the
	// op's throughput at this dataset size, and its Ops hold that op only.
	// The stage's own figures are these slices together.
	PerOp map[string]*Result `json:"per_op,omitempty"`
	// Memory is the server's memory at the stage's end, from Server:
	// what the growth study plots against records.
	Memory *StageMemory `json:"memory,omitempty"`
	// Self is soakd's own health over the stage (selfhealth.go).
	Self *SelfHealth `json:"self,omitempty"`
}

// Persistence event kinds.
const (
	PersistBGSave     = "bgsave"      // an RDB snapshot (BGSAVE) in a fork child
	PersistAOFRewrite = "aof_rewrite" // an AOF rewrite (BGREWRITEAOF) in a fork child
)

// PersistenceEvent is one period when a background persistence job ran,
// in seconds from the phase's start. It spans the stats samples around
// the job (the last that did not see it running to the first that no
// longer did), so the job ran within it; one still running when the
// phase ended ends at the phase's end.
type PersistenceEvent struct {
	Kind               string  `json:"kind"`
	StartOffsetSeconds float64 `json:"start_offset_seconds"`
	EndOffsetSeconds   float64 `json:"end_offset_seconds"`
	// Shard is the shard that saw the event ("1/3"), in a merged run
	// only (offsets then from the merged phase's start).
	Shard string `json:"shard,omitempty"`
}

// StageMemory is a growth stage's memory figures in bytes; a figure the
// target does not report is absent (nil), never 0.
type StageMemory struct {
	// UsedBytes is the store's own count (Redis used_memory), RSSBytes
	// its process's resident size.
	UsedBytes *float64 `json:"used_bytes,omitempty"`
	RSSBytes  *float64 `json:"rss_bytes,omitempty"`
	// Cgroup*: the managed server's memory cgroup. Usage is what the
	// kernel charges against the cap: anonymous memory (the heap) plus
	// file pages (page cache of the AOF and RDB files the server and its
	// fork children wrote).
	CgroupUsageBytes *float64 `json:"cgroup_usage_bytes,omitempty"`
	CgroupLimitBytes *float64 `json:"cgroup_limit_bytes,omitempty"`
	CgroupFileBytes  *float64 `json:"cgroup_file_bytes,omitempty"`
	CgroupAnonBytes  *float64 `json:"cgroup_anon_bytes,omitempty"`
	// SwapBytes is the swap in use: the cgroup's when the server has
	// one, else the server process's (VmSwap).
	SwapBytes *float64 `json:"swap_bytes,omitempty"`
}

// StageMemoryOf picks a stage's memory figures out of its server stats
// (nil when there are none).
func StageMemoryOf(server map[string]float64) *StageMemory {
	get := func(names ...string) *float64 {
		for _, n := range names {
			if v, ok := server[n]; ok {
				return &v
			}
		}
		return nil
	}
	m := &StageMemory{
		UsedBytes:        get("used_memory_bytes"),
		RSSBytes:         get("used_memory_rss_bytes"),
		CgroupUsageBytes: get("cgroup_memory_usage_bytes"),
		CgroupLimitBytes: get("cgroup_memory_limit_bytes"),
		CgroupFileBytes:  get("cgroup_memory_file_bytes"),
		CgroupAnonBytes:  get("cgroup_memory_anon_bytes"),
		SwapBytes:        get("cgroup_swap_usage_bytes", "process_swap_bytes"),
	}
	if *m == (StageMemory{}) {
		return nil
	}
	return m
}

// WriteError is Run's error when the run finished but its results could
// not be written (a full disk): the summary returned with it is
// complete, only the run directory is not.
type WriteError struct {
	Dir string
	Err error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("results could not be written to %s: %v", e.Dir, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// WriteFileAtomic writes data to a temp file in the same directory,
// fsyncs it, renames it over path and fsyncs the directory, so a crash
// leaves either the old file or the new one, never a torn one.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// ReadSummary loads a run directory's summary.json.
func ReadSummary(dir string) (*Summary, error) {
	data, err := regfile.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, SummaryFile), err)
	}
	if s.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d, this soakd reads %d", dir, s.SchemaVersion, SchemaVersion)
	}
	Upgrade(&s.SLO)
	for i := range s.Phases {
		Upgrade(s.Phases[i].SLO)
	}
	s.Dir = dir
	return &s, nil
}

// CapacityResult is a capacity phase's outcome.
type CapacityResult struct {
	HighestRateHeld float64         `json:"highest_rate_held"`
	Curve           []CapacityPoint `json:"curve"`
	// Confirmation is the search's final answer probed again: the rate
	// held and the first rate above it that failed, with what every
	// probe of each saw.
	Confirmation *CapacityConfirmation `json:"confirmation,omitempty"`
	// Bound is set when a probe at the limit (the rate held, or the
	// first above it that failed) was generator- or host-bound: the
	// limit found is then soakd's or the host's, not the store's; Note
	// says so.
	Bound string `json:"bound,omitempty"`
	Note  string `json:"note,omitempty"`
}

// CapacityPoint is one probe.
type CapacityPoint struct {
	Rate     float64            `json:"rate"`
	Achieved float64            `json:"achieved"`
	P99      map[string]float64 `json:"p99"`
	Passed   bool               `json:"passed"`
	// Goodput is the probe's successful ops/s (what the SLO's
	// min_achieved_ratio judges).
	Goodput float64  `json:"goodput"`
	Failed  []string `json:"failed,omitempty"` // which SLO checks failed
	// SettledSeconds is how long the store was given to settle (low
	// rate, until it held the SLO again) after the previous probe
	// failed, before this one started.
	SettledSeconds float64 `json:"settled_seconds,omitempty"`
	// Drain is the probe's drain time: how long after its window its
	// last op completed.
	DrainSeconds float64 `json:"drain_seconds,omitempty"`
	// Shard is the shard whose search ran the probe ("1/3"), in a
	// merged run only.
	Shard string `json:"shard,omitempty"`
	// Recheck: a probe of the confirmation, not of the search.
	Recheck bool `json:"recheck,omitempty"`
	// Lost is the probe's ops lost to a kill it was resumed after (a
	// seam): it was judged on the ops it ran. Uncalled: so few ran that
	// it was not called either way, and its rate was probed again.
	Lost     int64 `json:"lost,omitempty"`
	Uncalled bool  `json:"uncalled,omitempty"`
	// Bound is the probe's stage's Self.Bound: a probe soakd or the
	// host limited says nothing about the store.
	Bound string `json:"bound,omitempty"`
}

// SweepResult is a sweep phase's outcome: what it varied and each
// point's throughput and latency (the cross-point table and chart).
type SweepResult struct {
	Over    scenarios.SweepOver    `json:"over"`
	Measure scenarios.SweepMeasure `json:"measure"`
	// Axis names what each point's X is (target rate, workers, field
	// bytes, or the one op a mix sweep's points set, "update (% of
	// ops)"); empty when the points differ in more than one number.
	Axis   string       `json:"axis,omitempty"`
	Points []SweepPoint `json:"points"`
}

// SweepPoint is one point of a sweep. Closed and rate points are the
// stage named Label; a capacity point's probes are the stages
// <label>-probe-N.
type SweepPoint struct {
	Label string `json:"label"`
	// X is the point's value on the sweep's axis (when it has one).
	X float64 `json:"x,omitempty"`
	// What the point ran: its mix (percentages), rate (0 = closed loop
	// or a capacity search), workers and value size.
	Mix         map[string]float64 `json:"mix"`
	TargetRate  float64            `json:"target_rate"`
	Concurrency int                `json:"concurrency"`
	FieldBytes  int                `json:"field_bytes"`
	// AchievedOpsPerSec is the point's achieved rate (a capacity point:
	// the highest rate held, HighestRateHeld, whose probe's figures
	// the point shows).
	AchievedOpsPerSec float64  `json:"achieved_ops_per_sec"`
	HighestRateHeld   *float64 `json:"highest_rate_held,omitempty"`
	// Confirmation is a capacity point's search answer probed again
	// (CapacityResult.Confirmation).
	Confirmation *CapacityConfirmation `json:"confirmation,omitempty"`
	Completed    int64                 `json:"completed"`
	Errors       int64                 `json:"errors"`
	Dropped      int64                 `json:"dropped"`
	Ops          map[string]SweepOp    `json:"ops"`
}

// SweepOp is one op's figures at a sweep point: latency from intended
// start, in seconds.
type SweepOp struct {
	Count int64   `json:"count"`
	P0    float64 `json:"p0"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99.9"`
}

// FillSweepPoint sets a closed or rate point's figures from its stage
// (the engine's, or a shard merge's).
func FillSweepPoint(pt *SweepPoint, st *StageResult) {
	pt.AchievedOpsPerSec = st.AchievedRate
	pt.Completed, pt.Errors, pt.Dropped = st.Completed, st.Errors, st.Dropped
	pt.Ops = map[string]SweepOp{}
	for op, o := range st.Ops {
		pt.Ops[op] = SweepOp{Count: o.Count, P0: o.Latency.Min, P50: o.Latency.P50, P99: o.Latency.P99, P999: o.Latency.P999}
	}
}

// Cliff is the first growth stage where the store stopped keeping up
// (verdict.DetectCliff): writes refused for memory, the rate not held,
// errors or misses jumping, closed-loop throughput falling, or p99
// jumping. Signals say what the server was doing then, from the stats
// snapshot against the previous stage's.
type Cliff struct {
	Stage      string `json:"stage"`
	StageIndex int    `json:"stage_index"`
	Op         string `json:"op,omitempty"`
	// Reason is the first rule of Evidence (the Cliff* constants): oom,
	// rate (achieved/target < MinHeldRatio), errors (error ratio
	// jumped), misses (an op's cache-miss ratio jumped: the dataset no
	// longer fits and the server evicts), throughput (closed-loop
	// successful ops/s fell) or p99 (p99 > factor x median of earlier
	// stages' p99).
	Reason string `json:"reason"`
	// Value is what tripped: the ops refused for memory, the
	// achieved/target ratio, the error or miss ratio, the successful
	// ops/s or the p99 in seconds; Baseline the earlier stages' median.
	Value           float64  `json:"value"`
	Baseline        float64  `json:"baseline"`
	Records         int64    `json:"records"`
	UsedMemoryBytes float64  `json:"used_memory_bytes"`
	Signals         []string `json:"signals"`
	// Unconfirmed: a p99 jump in the last stage measured, not yet seen in
	// a following stage (one noisy stage is not a cliff).
	Unconfirmed bool `json:"unconfirmed,omitempty"`
	// Evidence is every rule that fired at the cliff stage, the one
	// above first, each with the values it compared.
	Evidence []CliffEvidence `json:"evidence,omitempty"`
	// Explain is the cliff's cause: the label, whether the server
	// confirms it (its figures at this stage's end against the previous
	// stage's), what overlapped it (verdict.ExplainCliff).
	Explain *Explanation `json:"explain,omitempty"`
}

// Write writes summary.json and summary.txt (text, the summary as a
// table) atomically.
func Write(dir string, s *Summary, text string) error {
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, SummaryFile), append(js, '\n')); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, SummaryTextFile), []byte(text))
}
