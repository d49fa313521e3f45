package report

// A replay's target is its capture's own timing: how many ops it
// scheduled in each bucket, not the capture's mean rate.

import (
	"fmt"
	"math"
	"time"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/regfile"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// replayTimed says whether a replay phase kept its capture's timing
// (speed given, or neither speed nor rate): its target rate is then the
// capture's mean, (ops-1)*speed/span; a fixed rate is anything else.
func replayTimed(p *rundir.PhaseResult) bool {
	r := p.Replay
	if r == nil || r.Ops < 2 || r.SpanSeconds <= 0 {
		return false
	}
	if r.Speed > 0 {
		return true
	}
	mean := float64(r.Ops-1) / r.SpanSeconds
	return p.TargetRate > 0 && math.Abs(p.TargetRate-mean) <= 0.01*mean
}

// replaySchedule reads a timed replay's capture again and returns what
// it scheduled per bucket of width w: one point per bucket at its
// middle, the bucket's scheduled ops over the time it covers. nil when
// the capture cannot be read or no longer holds the ops the run
// replayed (changed since, or a store whose dialect skips others).
func replaySchedule(p *rundir.PhaseResult, kind string, w time.Duration) []Point {
	r := p.Replay
	if !replayTimed(p) || w <= 0 || !p.End.After(p.Start) {
		return nil
	}
	f, err := regfile.Open(r.Source)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	d, ok := targets.CaptureDialect(scenarios.TargetKind(kind))
	if !ok {
		return nil
	}
	ix, err := capture.Build(f, fi.Size(), capture.Options{Format: capture.Format(r.Format), Dialect: d, MaxGroups: math.MaxUint16})
	if err != nil || int64(len(ix.Entries)) != r.Ops {
		return nil
	}
	return scheduleBuckets(ix.Entries, r, p.End.Sub(p.Start), w)
}

// scheduleBuckets counts the entries' intended starts (the engine's
// replay timing: captured offset over speed, each looped pass one
// period, the span plus one mean gap, after the last) in buckets of w
// over a phase of length d.
func scheduleBuckets(e []capture.Entry, r *rundir.ReplayResult, d, w time.Duration) []Point {
	speed := r.Speed
	if speed <= 0 {
		speed = 1
	}
	off := func(j int) time.Duration { return time.Duration(float64(e[j].TS) / speed) }
	span := off(len(e) - 1)
	gap := span / time.Duration(len(e)-1)
	if gap <= 0 {
		gap = time.Millisecond
	}
	period := span + gap
	n := int((d + w - 1) / w)
	counts := make([]int64, n)
	for k := time.Duration(0); ; k++ {
		for j := range e {
			at := k*period + off(j)
			if at >= d {
				break
			}
			counts[int(at/w)]++
		}
		if !r.Loop || (k+1)*period >= d {
			break
		}
	}
	out := make([]Point, 0, n)
	for i, c := range counts {
		from := time.Duration(i) * w
		to := min(from+w, d)
		out = append(out, Point{X: round6((from + (to-from)/2).Seconds()), Y: round6(float64(c) / (to - from).Seconds())})
	}
	return out
}

// replayTargetNote says why a timed replay's chart has no target line
// (its capture could not be read back), "" when it has one or is not a
// timed replay.
func replayTargetNote(p *rundir.PhaseResult, tl *Timeline) string {
	if !replayTimed(p) || (tl != nil && tl.Scheduled[p.Name] != nil) {
		return ""
	}
	return fmt.Sprintf("target: the capture's own timing, which could not be read back from %s; no target line is drawn (the capture's mean, %s, would read as a shortfall wherever the capture was quieter)", p.Replay.Source, rateStr(p.TargetRate))
}
