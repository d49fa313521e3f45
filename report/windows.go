package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/regfile"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/verdict"
)

// FillWindows judges the SLO's latency limits over every window of
// width (slo.window) in each steady phase, from dir's latency.hlog: the
// windows are tumbling, from the end of the warmup; an interval belongs
// to the window its start falls in; a last window shorter than half of
// width is not judged (too few ops to stand for a window). The checks
// join the phase's verdict and the run's (window_latency), so a phase
// passes only when every window held. Only one histogram per op is held
// at a time.
func FillWindows(dir string, s *rundir.Summary, l *verdict.Limits, width time.Duration) error {
	if l == nil || width <= 0 {
		return nil
	}
	f, err := regfile.Open(filepath.Join(dir, rundir.LatencyLog))
	if err != nil {
		return err
	}
	defer f.Close()
	type phaseWins struct {
		p    *rundir.PhaseResult
		from time.Time // the warmup's end
		last int64     // the last window that may be judged
		w    *verdict.Windows
		cur  map[string]*winAcc
	}
	phases := map[string]*phaseWins{}
	for i := range s.Phases {
		p := &s.Phases[i]
		if !kindOf(p).overTime {
			continue
		}
		from := p.Start.Add(time.Duration(p.WarmupSeconds * float64(time.Second)))
		span := p.End.Sub(from)
		last := int64(span / width)
		if span%width < width/2 {
			last--
		}
		phases[p.Name] = &phaseWins{p: p, from: from, last: last, w: l.Windows(p.Name, width), cur: map[string]*winAcc{}}
	}
	if len(phases) == 0 {
		return nil
	}
	flush := func(pw *phaseWins, op string, a *winAcc) {
		if a != nil {
			pw.w.Add(op, pw.from.Add(time.Duration(a.n)*width).Sub(pw.p.Start), a.h)
		}
	}
	src := &logSource{lr: hdr.NewHistogramLogReader(f), name: f.Name()}
	for {
		if err := src.advance(); err != nil {
			return err
		}
		h := src.next
		if h == nil {
			break
		}
		tag := strings.TrimSuffix(h.Tag(), ".latency")
		i := strings.LastIndexByte(tag, '.')
		if i < 0 {
			continue
		}
		pw := phases[tag[:i]]
		if pw == nil {
			continue
		}
		op := tag[i+1:]
		at := time.UnixMilli(h.StartTimeMs())
		if at.Before(pw.from) {
			continue // the warmup
		}
		n := int64(at.Sub(pw.from) / width)
		if n > pw.last {
			continue // the short last window
		}
		a := pw.cur[op]
		if a == nil || a.n != n {
			flush(pw, op, a)
			a = &winAcc{n: n, h: metrics.NewHist()}
			pw.cur[op] = a
		}
		if dropped := a.h.Merge(h); dropped != 0 {
			return fmt.Errorf("%s: tag %s: %d values outside the histogram range", src.name, h.Tag(), dropped)
		}
	}
	for i := range s.Phases {
		pw := phases[s.Phases[i].Name]
		if pw == nil {
			continue
		}
		for op, a := range pw.cur {
			flush(pw, op, a)
		}
		addChecks(s, pw.p, pw.w.Checks())
	}
	return nil
}

// winAcc is one op's window being merged: the n-th after the warmup.
type winAcc struct {
	n int64
	h *hdr.Histogram
}

// addChecks adds cs to p's verdict and the run's.
func addChecks(s *rundir.Summary, p *rundir.PhaseResult, cs []rundir.Check) {
	if len(cs) == 0 {
		return
	}
	if p.SLO == nil {
		p.SLO = &rundir.Verdict{Passed: true}
	}
	for _, c := range cs {
		p.SLO.Checks = append(p.SLO.Checks, c)
		p.SLO.Passed = p.SLO.Passed && c.Passed
		s.SLO.Checks = append(s.SLO.Checks, c)
		s.SLO.Passed = s.SLO.Passed && c.Passed
	}
}
