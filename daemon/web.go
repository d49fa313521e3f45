package daemon

import (
	"embed"
	"io/fs"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/soakd/soakd/report"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// webFiles is the daemon's page: plain HTML, CSS and JS, no build step
// and nothing fetched from elsewhere.
//
//go:embed web
var webFiles embed.FS

// Content-Security-Policy of the page (its own files only) and of a run's
// report (inline SVG and styles, no scripts, nothing fetched).
const (
	pageCSP   = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
	reportCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"
)

// webRoutes adds the page and the read-only calls it needs beyond
// the JSON API:
//
//	GET /                          the page (runs, a run, a scenario's history)
//	GET /ui/{file}                 its script and style sheet
//	GET /api/v1/scenarios          the scenario files a start may name (names only)
//	GET /api/v1/runs/{id}/live     a running run's phase, target and achieved rate, p99 over the last interval
//	GET /api/v1/runs/{id}/report   a finished run's HTML report
//	GET /api/v1/kinds              the phase kinds and what the page asks of each (kinds.go)
//
// Reads need no token, as the rest of the API; the page sends the token
// the user types in for starts, stops and rate changes.
func (d *Daemon) webRoutes(mux *http.ServeMux) {
	static, err := fs.Sub(webFiles, "web")
	if err != nil {
		panic(err) // the embedded tree always has web/
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		pageHeaders(w, pageCSP)
		http.ServeFileFS(w, r, static, "index.html")
	})
	mux.HandleFunc("GET /ui/{file}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		if st, err := fs.Stat(static, name); err != nil || st.IsDir() || name == "index.html" {
			writeErr(w, http.StatusNotFound, "no such file: /ui/"+name)
			return
		}
		pageHeaders(w, pageCSP)
		http.ServeFileFS(w, r, static, name)
	})
	mux.HandleFunc("GET /api/v1/scenarios", d.listScenarios)
	mux.HandleFunc("GET /api/v1/runs/{id}/live", d.liveRun)
	mux.HandleFunc("GET /api/v1/runs/{id}/report", d.runReport)
	mux.HandleFunc("GET /api/v1/kinds", listKinds)
}

func pageHeaders(w http.ResponseWriter, csp string) {
	w.Header().Set("Content-Security-Policy", csp)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
}

// LiveView is GET /api/v1/runs/{id}/live: one sample of a run's running
// phase, for the page's live charts (it keeps the series itself).
// Achieved and P99 are those of the engine's last interval; P99 is
// the largest over the phase's ops (PerOp has each), in seconds.
type LiveView struct {
	ID       string             `json:"id"`
	State    string             `json:"state"`
	At       time.Time          `json:"at"`
	Phase    string             `json:"phase,omitempty"`
	Rate     float64            `json:"rate,omitempty"`     // the phase's target rate (after live changes)
	Achieved *float64           `json:"achieved,omitempty"` // ops/s over the last interval
	P99      *float64           `json:"p99,omitempty"`
	PerOp    map[string]float64 `json:"p99_per_op,omitempty"`
	// SLOP99 is the scenario's p99 latency limit (the strictest over the
	// phase's ops when they differ), drawn on the page's p99 chart;
	// SLOPerOp has each op's.
	SLOP99   *float64           `json:"slo_p99,omitempty"`
	SLOPerOp map[string]float64 `json:"slo_p99_per_op,omitempty"`
	// History (with ?history=1) is the run so far, from its interval
	// log, so a page opened mid-run draws from the start: per time
	// bucket (At is its end) the ops completed per second and the
	// slowest op's p99; the bucket still filling is left out.
	History []LivePoint `json:"history,omitempty"`
}

// LivePoint is one time bucket of a running run's interval log.
type LivePoint struct {
	At       time.Time `json:"at"`
	Phase    string    `json:"phase"`
	Achieved float64   `json:"achieved"`
	P99      float64   `json:"p99"`
}

func (d *Daemon) liveRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	e, ok := d.entry(w, id)
	if !ok {
		return
	}
	v := LiveView{ID: id, State: e.State, At: d.o.Now().UTC()}
	d.mu.Lock()
	ar := d.active[id]
	running := ar != nil && ar.running
	d.mu.Unlock()
	if ar != nil {
		v.Phase, v.Rate = ar.ctl.Current()
	}
	if running && ar.exp != nil {
		fillLive(&v, ar.exp)
	}
	if running && r.URL.Query().Get("history") == "1" {
		if dir, ok := d.runDirInside(id); ok {
			v.History = liveHistory(dir)
		}
	}
	writeJSON(w, http.StatusOK, v)
}

// fillLive reads the exporter's current-phase gauges: the achieved rate
// (soakd_achieved_rate_ops), the per-op p99 of the last interval
// (soakd_op_latency_quantile_seconds, quantile 0.99) and the p99 SLO of
// the ops that have one (soakd_slo_latency_seconds). It gathers through
// a registry of its own, so it sees exactly what /metrics would.
func fillLive(v *LiveView, c prometheus.Collector) {
	defer func() {
		// The strictest limit among the ops the phase runs (all the
		// scenario's before the first interval).
		for op, lim := range v.SLOPerOp {
			if _, runs := v.PerOp[op]; (runs || v.PerOp == nil) && (v.SLOP99 == nil || lim < *v.SLOP99) {
				l := lim
				v.SLOP99 = &l
			}
		}
	}()
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		return
	}
	fams, err := reg.Gather()
	if err != nil && len(fams) == 0 {
		return
	}
	for _, f := range fams {
		switch f.GetName() {
		case "soakd_achieved_rate_ops":
			for _, m := range f.GetMetric() {
				a := m.GetGauge().GetValue()
				v.Achieved = &a
			}
		case "soakd_slo_latency_seconds":
			for _, m := range f.GetMetric() {
				if label(m, "quantile") != "0.99" {
					continue
				}
				q := m.GetGauge().GetValue()
				if v.SLOPerOp == nil {
					v.SLOPerOp = map[string]float64{}
				}
				v.SLOPerOp[label(m, "op")] = q
			}
		case "soakd_op_latency_quantile_seconds":
			for _, m := range f.GetMetric() {
				if label(m, "quantile") != "0.99" {
					continue
				}
				q := m.GetGauge().GetValue()
				if math.IsNaN(q) || math.IsInf(q, 0) {
					continue
				}
				if v.PerOp == nil {
					v.PerOp = map[string]float64{}
				}
				v.PerOp[label(m, "op")] = q
				if v.P99 == nil || q > *v.P99 {
					v.P99 = &q
				}
			}
		}
	}
}

// liveHistory reads a running run's latency.hlog.partial (its whole
// lines) into time buckets: completed ops per second over all ops and
// the largest op p99. Nil when there is no log yet.
func liveHistory(dir string) []LivePoint {
	s, _, err := rundir.ReadPartial(dir)
	if err != nil {
		return nil
	}
	tl, err := report.ReadTimeline(dir, s)
	if err != nil || tl == nil {
		return nil
	}
	var out []LivePoint
	for _, ph := range s.Phases {
		width := tl.Width[ph.Name].Seconds()
		if width <= 0 {
			continue
		}
		byAt := map[time.Time]*LivePoint{}
		for _, pts := range tl.Phases[ph.Name] {
			for _, tp := range pts {
				lp := byAt[tp.At]
				if lp == nil {
					lp = &LivePoint{At: tp.At.Add(tl.Width[ph.Name]).UTC(), Phase: ph.Name}
					byAt[tp.At] = lp
				}
				lp.Achieved += float64(tp.Count) / width
				lp.P99 = max(lp.P99, tp.P99)
			}
		}
		start := len(out)
		for _, lp := range byAt {
			out = append(out, *lp)
		}
		slices.SortFunc(out[start:], func(a, b LivePoint) int { return a.At.Compare(b.At) })
	}
	if len(out) > 0 {
		out = out[:len(out)-1] // the bucket still filling
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// runReport serves a finished run's HTML report (report.ReportHTML over
// its summary.json, or a killed run's partial log, and latency.hlog).
// Only a run directory that resolves inside the data dir is read, and a
// read error is logged, not echoed: the answer is the report or a short
// JSON error.
func (d *Daemon) runReport(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	e, ok := d.entry(w, id)
	if !ok {
		return
	}
	if !e.Finished() {
		writeErr(w, http.StatusConflict, "run "+id+" has not finished (state "+e.State+"): its report is written at the end")
		return
	}
	dir, ok := d.runDirInside(id)
	if !ok {
		writeErr(w, http.StatusNotFound, "no run directory for "+id)
		return
	}
	s, err := rundir.ReadSummary(dir)
	if err != nil && (e.State == StateKilled || e.State == StateWriteFailed) {
		s, _, err = rundir.ReadPartial(dir)
	}
	if err != nil {
		d.log.Warn("report: run summary unreadable", "run", id, "err", err)
		writeErr(w, http.StatusNotFound, "run "+id+" has no readable summary")
		return
	}
	tl, err := report.ReadTimeline(dir, s)
	if err != nil {
		d.log.Info("report: no latency over time", "run", id, "err", err)
		tl = nil
	}
	pageHeaders(w, reportCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(report.ReportHTML([]*rundir.Summary{s}, []*report.Timeline{tl}))
}

// runDirInside returns run id's directory when it resolves (symlinks
// followed) to a directory inside the data dir's runs/.
func (d *Daemon) runDirInside(id string) (string, bool) {
	dir := d.hist.RunDir(id)
	base, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(base, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || strings.Contains(rel, string(filepath.Separator)) {
		return "", false
	}
	return real, true
}

// maxListedScenarios bounds GET /api/v1/scenarios.
const maxListedScenarios = 500

// listScenarios serves GET /api/v1/scenarios: the .yaml and .yml files
// under the scenario directories, for the page's start form. Names only,
// never contents; the daemon's own config file and the data dir are left
// out, and so are files too large to be a scenario. A name is relative
// to the config file's directory when inside it (as POST takes it).
func (d *Daemon) listScenarios(w http.ResponseWriter, _ *http.Request) {
	d.mu.Lock()
	cfg := d.cfg
	d.mu.Unlock()
	real := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			p = a
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return p
	}
	self, data, base := real(cfg.File), real(cfg.DataDir), real(filepath.Dir(cfg.File))
	seen := map[string]bool{}
	files := []string{}
	for _, dir := range cfg.Dirs() {
		_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			switch {
			case len(files) >= maxListedScenarios:
				return fs.SkipAll
			case err != nil && e != nil && e.IsDir():
				return fs.SkipDir
			case err != nil:
				return nil
			}
			if e.IsDir() {
				if p == data || (p != dir && strings.HasPrefix(e.Name(), ".")) {
					return fs.SkipDir
				}
				return nil
			}
			ext := filepath.Ext(p)
			if ext != ".yaml" && ext != ".yml" || p == self || seen[p] || !e.Type().IsRegular() {
				return nil
			}
			if info, err := e.Info(); err != nil || info.Size() > scenarios.MaxFileBytes {
				return nil
			}
			seen[p] = true
			name := p
			if rel, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(rel, "..") {
				name = rel
			}
			files = append(files, name)
			return nil
		})
	}
	slices.Sort(files)
	writeJSON(w, http.StatusOK, map[string]any{"files": files})
}
