package metrics

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// A window set (NewWindowSet) is the collector's set for one interval.
// Its tallies (mirror) are the authority: the stripes drain into them,
// a merge from the window reads them, and its hdr histograms are
// rebuilt from them only when Sync asks. Each step costs the buckets in
// use this interval, not the histogram's whole range: hdr.Histogram's
// Merge walks every bucket up to the source's maximum through its
// iterator (~6,000 at 10 ms, ~24,000 at the 1 h top), and a drain that
// records into hdr from each stripe repeats that per stripe. On one
// core that work runs on the pacer's only P, so it is the schedule's
// lag tail.

// MergePaused is Merge, running pause (when not nil) after each op's
// histograms when o is a window set.
func (s *Set) MergePaused(o *Set, pause func()) {
	if o.mirror == nil {
		s.Merge(o)
		return
	}
	_ = s.mergeMirror(o, pause)
}

// mergeMirror adds window set o into s from o's tallies: into s's own
// tallies when s is a window set too (its histograms follow at Sync),
// else one RecordValues per bucket o has in use, running pause (when
// not nil) after each op's pair. It returns the number of histogram
// buckets it recorded into.
func (s *Set) mergeMirror(o *Set, pause func()) (buckets int) {
	for i, os := range o.Ops {
		if os == nil {
			continue
		}
		if s.Ops[i] == nil {
			s.Ops[i] = newOpStats()
		}
		s.Ops[i].OpCounts.add(&os.OpCounts)
	}
	if s.mirror != nil {
		s.mirror.merge(o.mirror)
		s.stale = true
		return 0
	}
	for i, t := range o.mirror.ops {
		if t == nil || t.lat.total == 0 && t.svc.total == 0 {
			continue
		}
		if s.Ops[i] == nil {
			s.Ops[i] = newOpStats()
		}
		buckets += t.lat.addTo(s.Ops[i].Latency)
		buckets += t.svc.addTo(s.Ops[i].Service)
		if pause != nil {
			pause()
		}
	}
	return buckets + o.mirror.lag.addTo(s.Lag)
}

// drainIntoMirror adds s into window set dst's tallies and counters and
// empties s; dst's histograms follow at its next Sync.
func (s *tallySet) drainIntoMirror(dst *Set) {
	m := dst.mirror
	for i, os := range s.ops {
		if os == nil {
			continue
		}
		if dst.Ops[i] == nil {
			dst.Ops[i] = newOpStats()
		}
		if os.Count == 0 && os.Dropped == 0 {
			continue
		}
		dst.Ops[i].OpCounts.add(&os.OpCounts)
		if m.ops[i] == nil {
			m.ops[i] = &tallyOp{lat: *newTally(), svc: *newTally()}
		}
		m.ops[i].lat.merge(&os.lat)
		m.ops[i].svc.merge(&os.svc)
	}
	m.lag.merge(&s.lag)
	dst.stale = true
	s.reset()
}

// Sync makes a window set's histograms (each op's Latency and Service,
// Lag) hold what its tallies hold, after drains and merges into it;
// read them only after it. A histogram that is empty and stays empty
// costs nothing. pause, when not nil, runs after each op's pair, so a
// caller sharing one P with a pacer can let it run. Sync does nothing
// on other sets.
func (s *Set) Sync(pause func()) {
	if !s.stale || s.mirror == nil {
		return
	}
	for i, os := range s.Ops {
		if os == nil {
			continue
		}
		var lat, svc *tally
		if t := s.mirror.ops[i]; t != nil {
			lat, svc = &t.lat, &t.svc
		}
		rebuild(os.Latency, lat)
		rebuild(os.Service, svc)
		if pause != nil {
			pause()
		}
	}
	rebuild(s.Lag, &s.mirror.lag)
	s.stale = false
}

// rebuild makes h hold t's counts (none when t is nil), clearing h only
// when it holds something.
func rebuild(h *hdr.Histogram, t *tally) {
	if h.TotalCount() != 0 {
		h.Reset()
	}
	if t != nil {
		t.addTo(h)
	}
}
