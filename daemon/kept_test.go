package daemon

import (
	"bufio"
	"fmt"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/targets"
)

// runExporter is a run's exporter as the engine leaves it: phase
// steady ran, its rate was changed live once, it found a p99 change
// point at changeAt, and growth phase grow confirmed a cliff; the
// server counted three BGSAVEs and has one running.
func runExporter(scenario string, changeAt time.Time) *metrics.Exporter {
	e := metrics.NewExporter(scenario, "", targets.Classes(), map[string]string{"version": "test"})
	e.Update("steady", 100, 100, metrics.NewSet(nil))
	e.RateChanged("steady")
	e.AddChangePoint("steady", "get", "p99", true)
	e.AddChangePointTime("steady", "get", "p99", true, changeAt)
	e.SetCliff("grow", "stage-3", "oom", changeAt.Add(-time.Minute))
	e.ServerStats(map[string]float64{"rdb_saves_total": 3, "rdb_bgsave_in_progress": 1}, nil, time.Millisecond)
	return e
}

// scrapeMetrics reads the daemon's /metrics a second after the last
// read (past its cache and rate cap) as series -> value, failing on a
// gather error.
func scrapeMetrics(t *testing.T, d *Daemon) map[string]string {
	t.Helper()
	time.Sleep(time.Second)
	// /metrics serves what gathered; a duplicate series is an error
	// here, and its second copy is left out there.
	if _, err := d.m.reg.Gather(); err != nil {
		t.Errorf("gathering /metrics: %v", err)
	}
	rec := httptest.NewRecorder()
	d.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d\n%s", rec.Code, rec.Body)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(rec.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			out[line[:i]] = line[i+1:]
		}
	}
	return out
}

// annotationSeries are the series runExporter's run leaves for the
// dashboards' annotations, by name and labels.
func annotationSeries(scenario string) []string {
	l := `scenario="` + scenario + `",shard=""`
	return []string{
		`soakd_rate_changes_total{phase="steady",` + l + `}`,
		`soakd_change_points{direction="up",metric="p99",op="get",phase="steady",` + l + `}`,
		`soakd_change_point_time_seconds{direction="up",metric="p99",n="1",op="get",phase="steady",` + l + `}`,
		`soakd_cliff_time_seconds{phase="grow",reason="oom",` + l + `,stage="stage-3"}`,
		`soakd_server_rdb_saves_total{` + l + `}`,
	}
}

func keptDaemon(t *testing.T) *Daemon {
	t.Helper()
	dir := t.TempDir()
	cfg, err := ParseConfig("soakd.yaml", []byte(baseConfig(dir)), getenv(map[string]string{"SOAKD_TEST_TOKEN": testToken}))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = filepath.Join(dir, "data")
	d, err := New(cfg, Options{Getenv: getenv(map[string]string{"SOAKD_TEST_TOKEN": testToken}), Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFinishedRunsKeepAnnotationSeries: the series the dashboards'
// annotations read (change points and cliffs, set as a run ends, rate
// changes and persistence counters) are still on /metrics after the run
// ends, while its live series (run info, a BGSAVE in progress) are
// gone; an hour after the end they are dropped too.
func TestFinishedRunsKeepAnnotationSeries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := keptDaemon(t)
		ar := &activeRun{id: "r1", exp: runExporter("a", time.Now().Add(-time.Second)), running: true}
		d.mu.Lock()
		d.active[ar.id] = ar
		d.mu.Unlock()
		live := scrapeMetrics(t, d)
		for _, s := range append(annotationSeries("a"), `soakd_server_rdb_bgsave_in_progress{scenario="a",shard=""}`) {
			if _, ok := live[s]; !ok {
				t.Errorf("running: /metrics lacks %s", s)
			}
		}
		end := time.Now()
		d.mu.Lock()
		d.retireLocked(ar, end)
		d.mu.Unlock()
		for _, wait := range []time.Duration{0, keptFor - 3*time.Second} {
			time.Sleep(wait)
			m := scrapeMetrics(t, d)
			for _, s := range annotationSeries("a") {
				if m[s] != live[s] {
					t.Errorf("%s after the end: %s = %q, want %q as while it ran", time.Since(end), s, m[s], live[s])
				}
			}
			for _, s := range []string{`soakd_server_rdb_bgsave_in_progress{scenario="a",shard=""}`, `soakd_dataset_records{scenario="a",shard=""}`} {
				if _, ok := m[s]; ok {
					t.Errorf("a finished run's live series %s is still exported", s)
				}
			}
		}
		m := scrapeMetrics(t, d) // keptFor after the end
		for _, s := range annotationSeries("a") {
			if _, ok := m[s]; ok {
				t.Errorf("%s is still exported %s after the run ended", s, time.Since(end))
			}
		}
	})
}

// TestKeptSeriesYieldToNewerRuns: a scenario's next run sends the same
// series (no run label): while it runs and after it ends, its values
// are exported and the earlier run's not, with no duplicate series
// (which would fail the whole scrape). Past keptRuns finished runs, the
// oldest is dropped.
func TestKeptSeriesYieldToNewerRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := keptDaemon(t)
		t0 := time.Now()
		first := &activeRun{id: "r1", exp: runExporter("b", t0.Add(-time.Minute)), running: true}
		second := &activeRun{id: "r2", exp: runExporter("b", t0), running: true}
		cp := annotationSeries("b")[2]
		d.mu.Lock()
		d.active[first.id] = first
		d.retireLocked(first, time.Now())
		d.active[second.id] = second
		d.mu.Unlock()
		check := func(when string) {
			m := scrapeMetrics(t, d)
			got, ok := m[cp]
			if !ok {
				t.Fatalf("%s: %s missing", when, cp)
			}
			if got != formatValue(t0) {
				t.Errorf("%s: %s = %s, want the newer run's %s", when, cp, got, formatValue(t0))
			}
		}
		check("the second run running")
		d.mu.Lock()
		d.retireLocked(second, time.Now())
		d.mu.Unlock()
		check("both ended")

		// keptRuns more finished runs push b's out.
		for i := 0; i < keptRuns; i++ {
			ar := &activeRun{id: fmt.Sprint("c", i), exp: runExporter(fmt.Sprint("c", i), t0), running: true}
			d.mu.Lock()
			d.active[ar.id] = ar
			d.retireLocked(ar, time.Now())
			d.mu.Unlock()
		}
		m := scrapeMetrics(t, d)
		if _, ok := m[cp]; ok {
			t.Errorf("%s still exported after %d newer runs ended", cp, keptRuns)
		}
		for _, sc := range []string{"c0", fmt.Sprint("c", keptRuns-1)} {
			if _, ok := m[annotationSeries(sc)[2]]; !ok {
				t.Errorf("run %s's change point is not exported", sc)
			}
		}
		// A run that never got to run (stopped while queued) left none.
		q := &activeRun{id: "q", exp: runExporter("q", t0)}
		d.mu.Lock()
		d.active[q.id] = q
		d.retireLocked(q, time.Now())
		d.mu.Unlock()
		if _, ok := scrapeMetrics(t, d)[annotationSeries("q")[2]]; ok {
			t.Errorf("a run that never ran left annotation series")
		}
	})
}

// formatValue is a Unix time as the text exposition writes it.
func formatValue(at time.Time) string {
	return strconv.FormatFloat(float64(at.UnixNano())/1e9, 'g', -1, 64)
}
