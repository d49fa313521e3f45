package report

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/soakd/soakd/rundir"

	"github.com/soakd/soakd/regfile"
)

// FillOverTime reads dir's latency.hlog (and counts.csv: which ops
// failed) and sets each steady phase's per-op OverTime: the mean of the
// p99s of the buckets the report's latency-over-time chart draws
// (timelineWidth wide), after the warmup.
func FillOverTime(dir string, s *rundir.Summary) error {
	f, err := regfile.Open(filepath.Join(dir, rundir.LatencyLog))
	if err != nil {
		return err
	}
	defer f.Close()
	tl, err := readTimeline(f, f.Name(), s, timelineWidth)
	if err != nil {
		return err
	}
	counts, err := rundir.ReadCounts(filepath.Join(dir, rundir.CountsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tl.addErrors(counts, s)
	fillOverTime(s, tl)
	return nil
}

// fillOverTime sets OverTime on every op of every steady phase that has
// buckets after its warmup in tl.
func fillOverTime(s *rundir.Summary, tl *Timeline) {
	for i := range s.Phases {
		p := &s.Phases[i]
		if !kindOf(p).overTime {
			continue
		}
		w := tl.Width[p.Name]
		for op, o := range p.Ops {
			pts := afterWarmup(p, tl.Phases[p.Name][op])
			if len(pts) == 0 || w <= 0 {
				continue
			}
			var sum float64
			worst := pts[0]
			for _, tp := range pts {
				sum += tp.P99
				if tp.P99 > worst.P99 {
					worst = tp
				}
			}
			o.OverTime = &rundir.OverTime{MeanP99: sum / float64(len(pts)), BucketSeconds: w.Seconds(), Buckets: len(pts),
				WorstP99: worst.P99, WorstAtSeconds: worst.At.Sub(p.Start).Seconds()}
			p.Ops[op] = o
		}
	}
}

// afterWarmup is the buckets that start at or after the warmup's end
// and hold ops that did not all fail: the ones the latency chart draws
// (a bucket of failures alone has no latency).
func afterWarmup(p *rundir.PhaseResult, pts []TimePoint) []TimePoint {
	warmEnd := p.Start.Add(time.Duration(p.WarmupSeconds * float64(time.Second)))
	var out []TimePoint
	for _, tp := range pts {
		if !tp.At.Before(warmEnd) && tp.Count > tp.Errors {
			out = append(out, tp)
		}
	}
	return out
}

// overTimeLine is a phase's "avg p99 over the run" next to each op's
// overall p99, "" when no op has it.
func overTimeLine(p *rundir.PhaseResult) string {
	var parts []string
	var w float64
	for _, op := range slices.Sorted(maps.Keys(p.Ops)) {
		o := p.Ops[op]
		if o.OverTime == nil {
			continue
		}
		w = o.OverTime.BucketSeconds
		part := fmt.Sprintf("%s %s over %d buckets (overall p99 %s)", op, fmtDur(o.OverTime.MeanP99), o.OverTime.Buckets, fmtDur(o.Latency.P99))
		if o.OverTime.WorstP99 > 0 {
			part += fmt.Sprintf(", worst bucket %s at +%s", fmtDur(o.OverTime.WorstP99), time.Duration(o.OverTime.WorstAtSeconds*float64(time.Second)).Round(time.Millisecond))
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("avg p99 over the run (mean of the p99s of %s buckets after the warmup): %s", time.Duration(w*float64(time.Second)), strings.Join(parts, "; "))
}
