package engine

import (
	"math"
	"sync"
	"time"

	"github.com/soakd/soakd/rundir"
)

// persistKinds are the background persistence jobs tracked from the
// server stats: the in-progress flag and the count of jobs started.
var persistKinds = []struct{ kind, flag, started string }{
	{rundir.PersistBGSave, "rdb_bgsave_in_progress", "rdb_saves_total"},
	{rundir.PersistAOFRewrite, "aof_rewrite_in_progress", "aof_rewrites_total"},
}

type persistEvent struct {
	kind       string
	start, end time.Time // end zero: still running at the last sample
}

// persistTracker turns server stats samples (the background sampler's
// and each stage's closing snapshot) into periods when a BGSAVE or an
// AOF rewrite ran. A period is known to the samples around it: it
// starts at the last sample that did not see it and ends at the first
// sample that no longer does, so it covers the whole time the job may
// have run. A job that started and ended between two samples (the
// started count rose, the flag was never seen) is the period between
// them.
type persistTracker struct {
	mu     sync.Mutex
	lastAt time.Time
	// lastTaken is when the previous sample was asked for: the server
	// answered it somewhere between then and lastAt, so a job it did not
	// see started after lastTaken (not necessarily after lastAt).
	lastTaken time.Time
	last      map[string]float64 // the previous sample's started counts
	open      map[string]int     // kind -> index in events of the running job
	events    []persistEvent
	sampled   bool
}

// observe takes one stats sample answered by at (asked for at the same
// instant: see observeSpan).
func (p *persistTracker) observe(at time.Time, st map[string]float64) { p.observeSpan(at, at, st) }

// observeSpan takes one stats sample asked for at taken and answered by
// at. Samples older than the last one are ignored (the sampler and a
// stage's snapshot race).
func (p *persistTracker) observeSpan(taken, at time.Time, st map[string]float64) {
	if st == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sampled && at.Before(p.lastAt) {
		return
	}
	if p.open == nil {
		p.open, p.last = map[string]int{}, map[string]float64{}
	}
	from := p.lastTaken
	if !p.sampled {
		from = taken
	}
	for _, k := range persistKinds {
		running := st[k.flag] > 0
		started := 0.0
		if c, ok := st[k.started]; ok {
			if prev, seen := p.last[k.kind]; seen && c >= prev {
				started = c - prev
			}
			// A lower count is a new server (the next persistence
			// variant): counted from here on.
			p.last[k.kind] = c
		}
		i, isOpen := p.open[k.kind]
		switch {
		case running && !isOpen:
			p.open[k.kind] = len(p.events)
			p.events = append(p.events, persistEvent{kind: k.kind, start: from})
			started--
		case running && isOpen && started > 0:
			// The job seen before ended and another began between the
			// samples: one period covers both.
			started--
		case !running && isOpen:
			p.events[i].end = at
			delete(p.open, k.kind)
			if started > 0 {
				// Another started and ended after the last sample: it
				// lies inside the period just closed.
				started = 0
			}
		}
		if started > 0 && !running {
			p.events = append(p.events, persistEvent{kind: k.kind, start: from, end: at})
		}
	}
	p.lastAt, p.lastTaken, p.sampled = at, taken, true
}

// newTarget ends the running jobs at at (their server is gone) and
// forgets the started counts: the next server counts from its own.
func (p *persistTracker) newTarget(at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, i := range p.open {
		p.events[i].end = at
		delete(p.open, k)
	}
	p.last = map[string]float64{}
	p.lastAt, p.lastTaken, p.sampled = at, at, true
}

// between returns the periods that overlap [start, end], clipped to it,
// as offsets in seconds from start. A job still running at end ends
// there (the next phase shows the rest).
func (p *persistTracker) between(start, end time.Time) []rundir.PersistenceEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []rundir.PersistenceEvent
	for _, e := range p.events {
		eEnd := e.end
		if eEnd.IsZero() || eEnd.After(end) {
			eEnd = end
		}
		if eEnd.Before(start) || e.start.After(end) {
			continue
		}
		s := e.start
		if s.Before(start) {
			s = start
		}
		out = append(out, rundir.PersistenceEvent{Kind: e.kind,
			StartOffsetSeconds: round3(s.Sub(start).Seconds()), EndOffsetSeconds: round3(eEnd.Sub(start).Seconds())})
	}
	return out
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
