package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"

	"github.com/soakd/soakd/regfile"
)

// Merged is several shards' run directories of one scenario run merged
// into one result (`soakd report DIR1 DIR2 ...`).
type Merged struct {
	Scenario string
	Count    int               // shards
	Shards   []*rundir.Summary // by shard index
	Dirs     []string          // by shard index
	// Phases holds the merged figures: counts, rates and errors summed,
	// latency/service percentiles from the losslessly merged HDR
	// histograms; Lag is the per-field maximum over shards (an upper bound:
	// lag histograms are not in the run directory).
	Phases []rundir.PhaseResult
	// Hists are the merged histograms by tag <phase>.<op>.latency|service.
	Hists map[string]*hdr.Histogram
	// Source names the histogram file each shard was read from.
	Source []string
	SLO    rundir.Verdict
	// ChangeErr says why the merged phases have no change points (a
	// shard's latency.hlog could not be read); nil when they were
	// searched.
	ChangeErr error
}

// ErrShards is wrapped by every error about the set of shards given.
var ErrShards = errors.New("shards do not make one run")

// MergeRunDirs reads the shard run directories and merges them. It
// refuses directories of different scenarios or shard counts, duplicate
// shards and missing shards, naming what is wrong.
func MergeRunDirs(dirs []string) (*Merged, error) {
	var problems []string
	type shardDir struct {
		s   *rundir.Summary
		dir string
	}
	var got []shardDir
	for _, d := range dirs {
		s, err := rundir.ReadSummary(d)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				if _, serr := os.Stat(d); serr != nil {
					problems = append(problems, fmt.Sprintf("%s: no such run directory", d))
				} else {
					problems = append(problems, fmt.Sprintf("%s: no summary.json (the run did not finish: killed?)", d))
				}
				continue
			}
			problems = append(problems, err.Error())
			continue
		}
		if s.Shard.Count == 0 {
			s.Shard.Count = 1
		}
		got = append(got, shardDir{s, d})
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrShards, strings.Join(append(problems, "no readable run directory"), "; "))
	}
	ref := got[0]
	for _, g := range got[1:] {
		if g.s.Scenario != ref.s.Scenario {
			return nil, fmt.Errorf("%w: different scenarios: %s is %q, %s is %q", ErrShards, ref.dir, ref.s.Scenario, g.dir, g.s.Scenario)
		}
		if g.s.Shard.Count != ref.s.Shard.Count {
			return nil, fmt.Errorf("%w: different shard counts: %s is shard %s, %s is shard %s", ErrShards, ref.dir, ref.s.Shard, g.dir, g.s.Shard)
		}
		if !samePhases(g.s, ref.s) && g.s.Status == rundir.StatusCompleted && ref.s.Status == rundir.StatusCompleted {
			return nil, fmt.Errorf("%w: different phases: %s has %s, %s has %s", ErrShards, ref.dir, phaseNames(ref.s), g.dir, phaseNames(g.s))
		}
	}
	n := ref.s.Shard.Count
	m := &Merged{Scenario: ref.s.Scenario, Count: n, Shards: make([]*rundir.Summary, n), Dirs: make([]string, n), Source: make([]string, n), Hists: map[string]*hdr.Histogram{}}
	for _, g := range got {
		i := g.s.Shard.Index
		if i < 0 || i >= n {
			return nil, fmt.Errorf("%w: %s: shard %d/%d out of range", ErrShards, g.dir, i, n)
		}
		if m.Shards[i] != nil {
			return nil, fmt.Errorf("%w: shard %d/%d given twice: %s and %s", ErrShards, i, n, m.Dirs[i], g.dir)
		}
		m.Shards[i], m.Dirs[i] = g.s, g.dir
	}
	var missing []string
	for i, s := range m.Shards {
		if s == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		word := "shard"
		if len(missing) > 1 {
			word = "shards"
		}
		msg := fmt.Sprintf("%s %s missing", word, strings.Join(missing, ", "))
		if len(problems) > 0 {
			msg += " (" + strings.Join(problems, "; ") + ")"
		}
		return nil, fmt.Errorf("%w: %s", ErrShards, msg)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrShards, strings.Join(problems, "; "))
	}
	for i, d := range m.Dirs {
		hs, src, err := readRunHistograms(d)
		if err != nil {
			return nil, err
		}
		m.Source[i] = src
		for tag, h := range hs {
			acc := m.Hists[tag]
			if acc == nil {
				acc = metrics.NewHist()
				m.Hists[tag] = acc
			}
			acc.Merge(h)
		}
	}
	m.mergePhases()
	m.fillOverTime()
	m.evaluate()
	m.ChangeErr = m.findChangePoints()
	return m, nil
}

// openLogs opens every shard's latency.hlog; close closes them.
func (m *Merged) openLogs() (rds []io.Reader, names []string, close func(), err error) {
	var files []*os.File
	close = func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, d := range m.Dirs {
		f, err := regfile.Open(filepath.Join(d, rundir.LatencyLog))
		if err != nil {
			close()
			return nil, nil, nil, err
		}
		files = append(files, f)
		rds, names = append(rds, f), append(names, f.Name())
	}
	return rds, names, close, nil
}

// findChangePoints runs the change-point detector over the merged run:
// per bucket, the shards' interval histograms merged (latency) and
// summed (rate, and errors and ops from their counts.csv), on buckets
// from the merged phase's start. The logs' interval is taken as 1 s,
// soakd's default.
func (m *Merged) findChangePoints() error {
	rds, names, done, err := m.openLogs()
	if err != nil {
		return err
	}
	defer done()
	counts, err := m.readCounts()
	if err != nil {
		return err
	}
	return findChangePointsIn(rds, names, counts, &rundir.Summary{Phases: m.Phases}, time.Second)
}

// fillOverTime sets each steady phase's per-op over_time from the
// merged latency over time (per bucket, the shards' interval
// histograms merged); shards without a readable latency.hlog leave it
// out.
func (m *Merged) fillOverTime() {
	tl, err := m.Timeline()
	if err != nil {
		return
	}
	fillOverTime(&rundir.Summary{Phases: m.Phases}, tl)
}

// Timeline is the merged run's latency over time (report.html): each
// bucket's percentiles from all the shards' interval histograms, and
// its failed ops from all their counts.csv (a bucket of failures alone
// is drawn as no latency, as in a single run's charts).
func (m *Merged) Timeline() (*Timeline, error) {
	rds, names, done, err := m.openLogs()
	if err != nil {
		return nil, err
	}
	defer done()
	s := m.Summary()
	tl, err := readTimelines(rds, names, s, timelineWidth)
	if err != nil {
		return nil, err
	}
	counts, err := m.readCounts()
	if err != nil {
		return nil, err
	}
	tl.addErrors(counts, s)
	return tl, nil
}

// readCounts is every shard's counts.csv (a shard that left none adds
// nothing).
func (m *Merged) readCounts() ([]rundir.IntervalCount, error) {
	var counts []rundir.IntervalCount
	for _, d := range m.Dirs {
		c, err := rundir.ReadCounts(filepath.Join(d, rundir.CountsFile))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		counts = append(counts, c...)
	}
	return counts, nil
}

// readRunHistograms returns a run directory's cumulative histograms per
// tag: histograms.hlog where present, else the sum of latency.hlog's
// intervals (which include warmup).
func readRunHistograms(dir string) (map[string]*hdr.Histogram, string, error) {
	p := filepath.Join(dir, rundir.HistogramsFile)
	hs, err := rundir.ReadHistogramLog(p)
	if err == nil {
		return hs, rundir.HistogramsFile, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, "", err
	}
	p = filepath.Join(dir, "latency.hlog")
	hs, err = rundir.ReadHistogramLog(p)
	if err != nil {
		return nil, "", err
	}
	return hs, "latency.hlog (intervals, warmup included)", nil
}

func samePhases(a, b *rundir.Summary) bool {
	return phaseNames(a) == phaseNames(b)
}

func phaseNames(s *rundir.Summary) string {
	names := make([]string, len(s.Phases))
	for i, p := range s.Phases {
		names[i] = p.Name
	}
	return "[" + strings.Join(names, " ") + "]"
}

func (m *Merged) mergePhases() {
	// Phase order: the longest shard's.
	var order []rundir.PhaseResult
	for _, s := range m.Shards {
		if len(s.Phases) > len(order) {
			order = s.Phases
		}
	}
	same := sameStore(m.Shards)
	for _, ref := range order {
		pr := rundir.PhaseResult{Name: ref.Name, Kind: ref.Kind, Start: ref.Start, End: ref.End, WarmupSeconds: ref.WarmupSeconds, TickSeconds: ref.TickSeconds, Variant: ref.Variant, Repeat: ref.Repeat}
		pr.Ops = map[string]rundir.OpResult{}
		stages := map[string]*rundir.StageResult{}
		parts := map[string][]*rundir.StageResult{}
		var shards []shardPhase
		var stageOrder []string
		for _, s := range m.Shards {
			p := findPhase(s, ref.Name)
			if p == nil {
				continue
			}
			if p.Start.Before(pr.Start) {
				pr.Start = p.Start
			}
			if p.End.After(pr.End) {
				pr.End = p.End
			}
			addResult(&pr.Result, &p.Result)
			shards = append(shards, shardPhase{label: s.Shard.String(), p: p})
			for i := range p.Stages {
				st := &p.Stages[i]
				parts[st.Name] = append(parts[st.Name], st)
				acc := stages[st.Name]
				if acc == nil {
					acc = &rundir.StageResult{Name: st.Name, Start: st.Start, End: st.End}
					stages[st.Name] = acc
					stageOrder = append(stageOrder, st.Name)
				}
				if st.Start.Before(acc.Start) {
					acc.Start = st.Start
				}
				if st.End.After(acc.End) {
					acc.End = st.End
				}
				addResult(&acc.Result, &st.Result)
			}
		}
		for op, or := range pr.Ops {
			or.Latency = metrics.Summarize(m.Hists[ref.Name+"."+op+".latency"])
			or.Service = metrics.Summarize(m.Hists[ref.Name+"."+op+".service"])
			pr.Ops[op] = or
		}
		for _, name := range stageOrder {
			st := stages[name]
			// Stage percentiles from the merged stage histograms; a
			// shard written before they were kept has none: then the
			// stage shows counts only.
			merged := true
			for op := range st.Ops {
				if m.Hists[ref.Name+"/"+name+"."+op+".latency"] == nil {
					merged = false
				}
			}
			if !merged {
				st.Ops = nil
			}
			mergeStageExtras(st, parts[name], same)
			for op, or := range st.Ops {
				or.Latency = metrics.Summarize(m.Hists[ref.Name+"/"+name+"."+op+".latency"])
				or.Service = metrics.Summarize(m.Hists[ref.Name+"/"+name+"."+op+".service"])
				st.Ops[op] = or
			}
			pr.Stages = append(pr.Stages, *st)
		}
		if f := kindOf(&pr).merge; f != nil {
			f(&pr, &ref, shards)
		}
		mergePhaseExtras(&pr, m.Shards)
		m.Phases = append(m.Phases, pr)
	}
}

// Summary is the merged run as one Summary (for report.html): shard 0's
// target, the merged phases and SLO verdict, interrupted if any shard
// was, Shard.Count = the number of shards merged.
func (m *Merged) Summary() *rundir.Summary {
	ref := m.Shards[0]
	s := &rundir.Summary{SchemaVersion: ref.SchemaVersion, Scenario: m.Scenario, ScenarioFile: ref.ScenarioFile, Target: ref.Target,
		Shard: rundir.Shard{Count: m.Count}, Start: ref.Start, End: ref.End, Status: rundir.StatusCompleted, Phases: m.Phases, SLO: m.SLO}
	for _, sh := range m.Shards {
		if sh.Start.Before(s.Start) {
			s.Start = sh.Start
		}
		if sh.End.After(s.End) {
			s.End = sh.End
		}
		if sh.Status == rundir.StatusInterrupted {
			s.Status = rundir.StatusInterrupted
		}
		s.Seams = append(s.Seams, sh.Seams...)
	}
	slices.SortStableFunc(s.Seams, func(a, b rundir.Seam) int { return a.Down.Compare(b.Down) })
	s.Scenario = fmt.Sprintf("%s (merged %d shards)", m.Scenario, m.Count)
	return s
}

func findPhase(s *rundir.Summary, name string) *rundir.PhaseResult {
	for i := range s.Phases {
		if s.Phases[i].Name == name {
			return &s.Phases[i]
		}
	}
	return nil
}

// addResult adds shard result b into a: counts and rates summed, lag
// figures the maximum.
func addResult(a, b *rundir.Result) {
	a.TargetRate += b.TargetRate
	a.AchievedRate += b.AchievedRate
	a.GoodputRate += b.Goodput()
	if b.DurationSeconds > a.DurationSeconds {
		a.DurationSeconds = b.DurationSeconds
	}
	a.Scheduled += b.Scheduled
	a.Dropped += b.Dropped
	a.Lost += b.Lost
	a.Errors += b.Errors
	a.Misses += b.Misses
	a.Completed += b.Completed
	a.CompletedInWindow += b.CompletedInWindow
	a.DrainSeconds = max(a.DrainSeconds, b.DrainSeconds)
	if b.MaxLag > a.MaxLag {
		a.MaxLag = b.MaxLag
	}
	a.Lag = maxSummary(a.Lag, b.Lag)
	if a.Ops == nil {
		a.Ops = map[string]rundir.OpResult{}
	}
	for op, o := range b.Ops {
		acc := a.Ops[op]
		acc.Count += o.Count
		acc.Dropped += o.Dropped
		acc.Lost += o.Lost
		acc.Scheduled += o.Scheduled
		acc.Misses += o.Misses
		acc.GoodputRate += o.GoodputRate
		if acc.Errors == nil {
			acc.Errors = map[string]int64{}
		}
		for c, n := range o.Errors {
			acc.Errors[c] += n
		}
		acc.Latency = maxSummary(acc.Latency, o.Latency)
		acc.Service = maxSummary(acc.Service, o.Service)
		a.Ops[op] = acc
	}
}

func maxSummary(a, b metrics.Summary) metrics.Summary {
	mx := func(x, y float64) float64 {
		if y > x {
			return y
		}
		return x
	}
	return metrics.Summary{Count: a.Count + b.Count, P50: mx(a.P50, b.P50), P90: mx(a.P90, b.P90), P99: mx(a.P99, b.P99),
		P999: mx(a.P999, b.P999), P9999: mx(a.P9999, b.P9999), Max: mx(a.Max, b.Max), Mean: mx(a.Mean, b.Mean), Min: mx(a.Min, b.Min)}
}

// evaluate re-judges shard 0's SLO checks (the scenario's limits, each
// with its metric, percentile and comparison) on the merged figures:
// latency at the exact percentile of the merged histograms; a capacity
// phase's highest rate held is the sum of the shards' (0 when no shard
// held any rate: failed).
func (m *Merged) evaluate() {
	completed := true
	for _, s := range m.Shards {
		if s.Status != rundir.StatusCompleted {
			completed = false
		}
	}
	var vs []*verdict.Verdict
	for i := range m.Phases {
		p := &m.Phases[i]
		ref := findPhase(m.Shards[0], p.Name)
		if ref == nil || ref.SLO == nil {
			continue
		}
		held := 0.0
		for _, s := range m.Shards {
			if sp := findPhase(s, p.Name); sp != nil {
				if f := kindOf(sp).held; f != nil {
					held += f(sp)
				}
			}
		}
		in := verdict.Phase{Name: p.Name, TargetRate: p.TargetRate, AchievedRate: p.AchievedRate, GoodputRate: p.Goodput(), Scheduled: p.Scheduled,
			Completed: p.Completed, Errors: p.Errors, Dropped: p.Dropped, Staged: len(p.Stages) > 0,
			Latency: func(op string) *hdr.Histogram { return m.Hists[p.Name+"."+op+".latency"] }}
		p.SLO = verdict.Rejudge(ref.SLO.Checks, in, held)
		vs = append(vs, p.SLO)
	}
	m.SLO = verdict.Run(completed, vs...)
}

// Text renders the merged run: per phase the merged table, then one
// line per shard.
func (m *Merged) Text() string {
	var b strings.Builder
	ref := m.Shards[0]
	fmt.Fprintf(&b, "scenario: %s (merged %d shards)\ntarget: %s", m.Scenario, m.Count, ref.Target.Kind)
	if ref.Target.URL != "" {
		fmt.Fprintf(&b, " %s", ref.Target.URL)
	}
	b.WriteString("\n")
	if ml := ref.Target.MemoryLimits; ml != nil {
		fmt.Fprintf(&b, "memory limits (shard 0): %s\n", ml)
	}
	for i, s := range m.Shards {
		fmt.Fprintf(&b, "shard %s: %s  start %s  end %s  status %s  histograms from %s\n", s.Shard, m.Dirs[i],
			s.Start.Format("2006-01-02T15:04:05.000Z07:00"), s.End.Format("2006-01-02T15:04:05.000Z07:00"), s.Status, m.Source[i])
		for _, sm := range s.Seams {
			fmt.Fprintf(&b, "  shard %s %s\n", s.Shard, SeamLine(sm, s.Start))
		}
	}
	lost := m.Summary().ShowsLost()
	for _, p := range m.Phases {
		fmt.Fprintf(&b, "\nphase %s (%s), all shards: target %s achieved %.1f ops/s goodput %.1f ops/s over %.1fs, %d ops, %d errors, %d dropped%s, max lag %s\n",
			p.Name, p.Kind, rateStr(p.TargetRate)+tickNote(p.TickSeconds), p.AchievedRate, p.Goodput(), p.DurationSeconds, p.Completed, p.Errors, p.Dropped, lostNote(lost, &p.Result), fmtDur(p.MaxLag))
		writeOutcomes(&b, p.Result)
		writeOpTable(&b, p.Result)
		writeAccounting(&b, lost, &p.Result)
		for _, st := range p.Stages {
			if unmeasured(&st) {
				fmt.Fprintf(&b, "  stage %s: nothing measured (the run stopped in its batch insert)%s\n", st.Name, stageExtra(st))
				continue
			}
			fmt.Fprintf(&b, "  stage %s: target %s achieved %.1f ops/s, %d errors, %d dropped%s", st.Name, rateStr(st.TargetRate), st.AchievedRate, st.Errors, st.Dropped, stageExtra(st))
			for _, op := range slices.Sorted(maps.Keys(st.Ops)) {
				fmt.Fprintf(&b, " | %s p99 %s", op, fmtDur(st.Ops[op].Latency.P99))
			}
			b.WriteString("\n")
		}
		if l := overTimeLine(&p); l != "" {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		writeKindText(&b, &p)
		writePersistence(&b, &p)
		ids := make([]int, 0, len(m.Shards))
		for i := range m.Shards {
			ids = append(ids, i)
		}
		sort.Ints(ids)
		for _, i := range ids {
			sp := findPhase(m.Shards[i], p.Name)
			if sp == nil {
				fmt.Fprintf(&b, "  shard %s: phase not run\n", m.Shards[i].Shard)
				continue
			}
			fmt.Fprintf(&b, "  shard %s: target %s achieved %.1f ops/s, %d ops, %d errors, %d dropped%s, max lag %s\n",
				m.Shards[i].Shard, rateStr(sp.TargetRate), sp.AchievedRate, sp.Completed, sp.Errors, sp.Dropped, lostNote(lost, &sp.Result), fmtDur(sp.MaxLag))
		}
		writeChangePoints(&b, &p)
		writeChecks(&b, p.SLO)
	}
	if m.ChangeErr != nil {
		fmt.Fprintf(&b, "\nchange points not searched: %v\n", m.ChangeErr)
	}
	status, reason := rundir.StatusCompleted, ""
	for i, s := range m.Shards {
		if s.Status == rundir.StatusInterrupted {
			status = rundir.StatusInterrupted
			reason = fmt.Sprintf("shard %s: %s", m.Shards[i].Shard, s.StatusReason)
			if s.StatusReason == "" {
				reason = fmt.Sprintf("shard %s stopped before its end", m.Shards[i].Shard)
			}
			break
		}
	}
	line := VerdictLine(status, reason, m.SLO)
	if status == rundir.StatusCompleted {
		line = strings.Replace(line, "SLO ", "SLO (all shards) ", 1)
	}
	fmt.Fprintf(&b, "\n%s\n", line)
	return b.String()
}
