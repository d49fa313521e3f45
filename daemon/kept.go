package daemon

import (
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/soakd/soakd/metrics"
)

// A finished run's annotation series (metrics.Exporter.
// CollectAnnotations: change points, cliffs, rate changes, persistence
// counters) stay on /metrics for keptFor after it ends, for the newest
// keptRuns finished runs. Change points are set only as a run ends, so
// without this a scrape had to land between the end of the analysis
// and the run's removal to see them, and the dashboards' annotations
// found nothing. An hour is many scrapes at any usual interval; the
// count bounds the series a daemon running short runs back to back
// keeps.
const (
	keptFor  = time.Hour
	keptRuns = 32
)

// keptRun is one finished run's annotation series, copied from its
// exporter when it ended (the exporter and its histograms are let go).
type keptRun struct {
	ended  time.Time
	series []prometheus.Metric
	keys   []string // series[i]'s name and labels (seriesKey)
}

// finishedRuns holds the kept runs, oldest first; Daemon.mu guards it.
type finishedRuns struct {
	runs []keptRun
}

// retireLocked takes a run that ended out of the active set, keeping
// its annotation series if it ran; d.mu is held.
func (d *Daemon) retireLocked(ar *activeRun, ended time.Time) {
	delete(d.active, ar.id)
	if ar.running {
		d.finished.add(ar.exp, ended)
	}
}

// add keeps exp's annotation series from ended on, dropping the oldest
// run past keptRuns.
func (f *finishedRuns) add(exp *metrics.Exporter, ended time.Time) {
	series := gatherSeries(exp.CollectAnnotations)
	if len(series) == 0 {
		return
	}
	kr := keptRun{ended: ended, series: series}
	for _, m := range series {
		kr.keys = append(kr.keys, seriesKey(m))
	}
	f.runs = append(f.runs, kr)
	if n := len(f.runs) - keptRuns; n > 0 {
		f.runs = append([]keptRun(nil), f.runs[n:]...)
	}
}

// current drops the runs that ended keptFor or more before now and
// returns the rest, newest first.
func (f *finishedRuns) current(now time.Time) []keptRun {
	i := 0
	for i < len(f.runs) && !now.Before(f.runs[i].ended.Add(keptFor)) {
		i++
	}
	if i > 0 {
		f.runs = append([]keptRun(nil), f.runs[i:]...)
	}
	out := make([]keptRun, len(f.runs))
	for j, r := range f.runs {
		out[len(out)-1-j] = r
	}
	return out
}

// collectKept sends the kept runs' series that no running run sends
// and no newer kept run sent: a scenario's series carry no run label,
// so its next run's change point n=1 replaces the last run's (the
// samples already scraped keep the old one in Prometheus).
func collectKept(ch chan<- prometheus.Metric, live []*metrics.Exporter, kept []keptRun) {
	if len(kept) == 0 {
		return
	}
	seen := map[string]bool{}
	for _, e := range live {
		for _, m := range gatherSeries(e.CollectAnnotations) {
			seen[seriesKey(m)] = true
		}
	}
	for _, r := range kept {
		for i, m := range r.series {
			if !seen[r.keys[i]] {
				seen[r.keys[i]] = true
				ch <- m
			}
		}
	}
}

// gatherSeries runs a collect function into a slice.
func gatherSeries(collect func(chan<- prometheus.Metric)) []prometheus.Metric {
	ch := make(chan prometheus.Metric)
	done := make(chan []prometheus.Metric)
	go func() {
		var out []prometheus.Metric
		for m := range ch {
			out = append(out, m)
		}
		done <- out
	}()
	collect(ch)
	close(ch)
	return <-done
}

// seriesKey names a series: its metric name and label pairs.
func seriesKey(m prometheus.Metric) string {
	var pb dto.Metric
	if err := m.Write(&pb); err != nil {
		return m.Desc().String()
	}
	pairs := make([]string, 0, len(pb.GetLabel()))
	for _, l := range pb.GetLabel() {
		pairs = append(pairs, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(pairs)
	return m.Desc().String() + "\xff" + strings.Join(pairs, "\xff")
}
