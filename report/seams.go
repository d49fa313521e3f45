package report

// A resumed run's seams and its lost ops: the text's seam lines and
// accounting lines, the phase notes, and the shaded gap on every chart
// over time where soakd was down.

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/soakd/soakd/internal/term"
	"github.com/soakd/soakd/rundir"
)

// SeamLine is one seam in words, its time from start (the run's or the
// phase's): "resumed at +1h2m after 14s down: 5600 ops lost (phase
// steady, stage s3)".
func SeamLine(sm rundir.Seam, start time.Time) string {
	at := sm.Resumed.Sub(start)
	line := fmt.Sprintf("resumed at +%s after %s down: %d ops lost", term.Duration(at), term.Duration(sm.Downtime()), sm.Lost)
	where := []string{"phase " + sm.Phase}
	if sm.Stage != "" {
		where = append(where, "stage "+sm.Stage)
	}
	line += " (" + strings.Join(where, ", ") + ")"
	if sm.ByWeight > 0 && len(sm.Ops) > 0 {
		line += fmt.Sprintf(", per op: %d by the mix's weights", sm.ByWeight)
	}
	if sm.Streams != "" && sm.Streams != "restored" {
		line += ", streams " + sm.Streams
	}
	return line
}

// writeSeams lists a resumed run's seams under its header, times from
// the run's start; nothing for a run never resumed.
func writeSeams(b *strings.Builder, s *rundir.Summary) {
	if len(s.Seams) == 0 {
		return
	}
	var lost int64
	var down time.Duration
	for _, sm := range s.Seams {
		lost += sm.Lost
		down += sm.Downtime()
	}
	times := fmt.Sprintf("%d times", len(s.Seams))
	if len(s.Seams) == 1 {
		times = "once"
	}
	fmt.Fprintf(b, "resumed %s: %s down, %d ops lost in all\n", times, term.Duration(down), lost)
	for _, sm := range s.Seams {
		fmt.Fprintf(b, "  %s\n", SeamLine(sm, s.Start))
	}
}

// lostNote is ", N lost" for a phase or stage line of a run that shows
// lost ops, else nothing.
func lostNote(show bool, r *rundir.Result) string {
	if !show {
		return ""
	}
	return fmt.Sprintf(", %d lost", r.Lost)
}

// AccountingLine is r's identity in words: "scheduled 120000 =
// completed 114390 + dropped 10 + lost 5600", and when it does not hold
// by how much.
func AccountingLine(r *rundir.Result) string {
	return accountingWords(r.Scheduled, r.Completed, r.Dropped, r.Lost, r.Unaccounted())
}

func accountingWords(scheduled uint64, completed, dropped, lost, off int64) string {
	line := fmt.Sprintf("scheduled %d = completed %d + dropped %d + lost %d", scheduled, completed, dropped, lost)
	switch {
	case off > 0:
		line = strings.Replace(line, " = ", " != ", 1) + fmt.Sprintf(": %d ops unaccounted for", off)
	case off < 0:
		line = strings.Replace(line, " = ", " != ", 1) + fmt.Sprintf(": %d ops counted twice", -off)
	}
	return line
}

// writeAccounting writes a phase's accounting, then each op's, in a run
// that shows lost ops.
func writeAccounting(b *strings.Builder, show bool, r *rundir.Result) {
	if !show {
		return
	}
	fmt.Fprintf(b, "  accounting: %s\n", AccountingLine(r))
	for _, op := range slices.Sorted(maps.Keys(r.Ops)) {
		o := r.Ops[op]
		fmt.Fprintf(b, "    %s: %s\n", op, accountingWords(o.ScheduledOps(), o.Count, o.Dropped, o.Lost, o.Unaccounted()))
	}
}

// seamNotes are the phase's seams and accounting as report notes (the
// HTML phase section, report --json), times from the phase's start.
func seamNotes(s *rundir.Summary, p *rundir.PhaseResult) []string {
	if !s.ShowsLost() {
		return nil
	}
	var out []string
	for _, sm := range s.PhaseSeams(p.Name) {
		out = append(out, SeamLine(sm, p.Start)+"; shaded grey on the charts over time")
	}
	return append(out, "accounting: "+AccountingLine(&p.Result))
}

// seamGaps are the phase's seams as x ranges of its charts over time
// (seconds since the phase's start), labelled.
func seamGaps(p *rundir.PhaseResult, seams []rundir.Seam) []Span {
	var out []Span
	for _, sm := range seams {
		from := round6(math.Max(0, sm.Down.Sub(p.Start).Seconds()))
		to := round6(math.Max(from, sm.Resumed.Sub(p.Start).Seconds()))
		out = append(out, Span{From: from, To: to, Label: fmt.Sprintf("soakd down %s: %d ops lost", term.Duration(sm.Downtime()), sm.Lost)})
	}
	return out
}

// markSeams shades the seams on plots (the phase's charts over time)
// and breaks every line at them: nothing ran there, so no line may
// cross one. A measured series (one with MaxGap) breaks; a reference
// line (a mean, a target step) stops at the gap's edges and goes on
// after it.
func markSeams(plots []Plot, p *rundir.PhaseResult, seams []rundir.Seam) {
	gaps := seamGaps(p, seams)
	if len(gaps) == 0 {
		return
	}
	for i := range plots {
		pl := &plots[i]
		pl.Gaps = append(pl.Gaps, gaps...)
		for j := range pl.Series {
			for _, g := range gaps {
				pl.Series[j].cutAt(g)
			}
		}
	}
}

// cutAt breaks s at gap g (see markSeams).
func (s *Series) cutAt(g Span) {
	mid := (g.From + g.To) / 2
	if s.MaxGap > 0 {
		s.Breaks = append(s.Breaks, g.From, mid, g.To)
		return
	}
	var pts []Point
	for i, pt := range s.Points {
		if i > 0 {
			prev := s.Points[i-1]
			// A step crossing an edge gets a point on it.
			for _, x := range []float64{g.From, g.To} {
				if prev.X < x && pt.X > x {
					f := (x - prev.X) / (pt.X - prev.X)
					pts = append(pts, Point{X: x, Y: prev.Y + f*(pt.Y-prev.Y)})
				}
			}
		}
		if pt.X > g.From && pt.X < g.To {
			continue // inside the gap: nothing ran there
		}
		pts = append(pts, pt)
	}
	s.Points = pts
	s.Breaks = append(s.Breaks, mid)
}
