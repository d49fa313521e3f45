package daemon

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// Handler is the HTTP API:
//
//	GET  /api/v1/runs             run index, newest first (?scenario=NAME filters), running runs with their live phase and rate
//	GET  /api/v1/runs/{id}        one run: index entry, live phase/rate, summary when written
//	GET  /api/v1/shifts           change points across a scenario's run history (?scenario=NAME)
//	POST /api/v1/runs             {"scenario": PATH, "target": URL?, "rate": N?, ...} start a run (StartRequest)
//	POST /api/v1/runs/{id}/stop   cancel a run (the engine writes interrupted results)
//	POST /api/v1/runs/{id}/rate   {"rate": N} change the running phase's rate live
//	GET  /metrics, /healthz, /readyz
//
// POST calls need "Authorization: Bearer TOKEN" (the scheme in any
// case). A known path asked with a method it does not serve gets 405
// with an Allow header. Errors are JSON {"error": "..."}.
func (d *Daemon) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/runs", d.listRuns)
	mux.HandleFunc("GET /api/v1/runs/{id}", d.getRun)
	mux.HandleFunc("GET /api/v1/shifts", d.getShifts)
	mux.HandleFunc("POST /api/v1/runs", d.auth(d.postRun))
	mux.HandleFunc("POST /api/v1/runs/{id}/stop", d.auth(d.stopRun))
	mux.HandleFunc("POST /api/v1/runs/{id}/rate", d.auth(d.rateRun))
	mux.Handle("GET /metrics", metrics.NewScrapeHandler(d.m.reg, 0, 0, nil)) // cached per interval, capped
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		d.mu.Lock()
		ready := d.ready
		d.mu.Unlock()
		if !ready {
			writeErr(w, http.StatusServiceUnavailable, "not ready")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	d.webRoutes(mux) // the page at / (web.go)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if allow := allowed(mux, r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeErr(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, strings.Join(allow, ", ")))
			return
		}
		writeErr(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	return mux
}

// apiMethods are the methods the API's routes use.
var apiMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost}

// allowed lists the methods some route other than the catch-all serves
// r's path with: empty when the path is no endpoint at all.
func allowed(mux *http.ServeMux, r *http.Request) []string {
	var out []string
	for _, m := range apiMethods {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
			out = append(out, m)
		}
	}
	return out
}

// auth checks the bearer token in constant time (over SHA-256 digests,
// so the token's length does not leak either). The token is never logged
// or echoed.
func (d *Daemon) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		d.mu.Lock()
		want := sha256.Sum256(d.token)
		d.mu.Unlock()
		have := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !ok || subtle.ConstantTimeCompare(want[:], have[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="soakd"`)
			writeErr(w, http.StatusUnauthorized, "missing or wrong bearer token")
			return
		}
		h(w, r)
	}
}

// bearer returns the credentials of an Authorization header of the
// Bearer scheme; the scheme's name is case-insensitive (RFC 9110 11.1).
func bearer(h string) (string, bool) {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return cred, true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeErr(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

func (d *Daemon) listRuns(w http.ResponseWriter, r *http.Request) {
	runs := d.hist.List()
	if sc := r.URL.Query().Get("scenario"); sc != "" {
		out := runs[:0]
		for _, e := range runs {
			if e.Scenario == sc {
				out = append(out, e)
			}
		}
		runs = out
	}
	items := make([]RunItem, len(runs))
	d.mu.Lock()
	for i, e := range runs {
		items[i].Entry = e
		if ar := d.active[e.ID]; ar != nil && e.State == StateRunning {
			items[i].Phase, items[i].Rate = ar.ctl.Current()
		}
	}
	d.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"runs": items})
}

// RunItem is one run of GET /api/v1/runs: its index entry and, while it
// runs, its live phase and that phase's current target rate (0, left
// out: closed loop, or between phases).
type RunItem struct {
	Entry
	Phase string  `json:"phase,omitempty"`
	Rate  float64 `json:"rate,omitempty"`
}

// RunView is GET /api/v1/runs/{id}.
type RunView struct {
	Entry
	Phase   string          `json:"phase,omitempty"` // running phase[/stage]
	Rate    float64         `json:"rate,omitempty"`  // its effective rate
	Summary *rundir.Summary `json:"summary,omitempty"`
}

func (d *Daemon) getRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	e, ok := d.entry(w, id)
	if !ok {
		return
	}
	v := RunView{Entry: e}
	d.mu.Lock()
	ar := d.active[id]
	d.mu.Unlock()
	if ar != nil {
		v.Phase, v.Rate = ar.ctl.Current()
	}
	if e.Finished() {
		if s, err := rundir.ReadSummary(d.hist.RunDir(id)); err == nil {
			v.Summary = s
		} else if e.State == StateKilled || e.State == StateWriteFailed {
			if s, _, err := rundir.ReadPartial(d.hist.RunDir(id)); err == nil {
				v.Summary = s
			}
		}
	}
	writeJSON(w, http.StatusOK, v)
}

func (d *Daemon) entry(w http.ResponseWriter, id string) (Entry, bool) {
	if !ValidID(id) {
		writeErr(w, http.StatusBadRequest, "malformed run id")
		return Entry{}, false
	}
	e, ok := d.hist.Get(id)
	if !ok {
		writeErr(w, http.StatusNotFound, "no run "+id)
		return Entry{}, false
	}
	return e, true
}

func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("request body: %v", err)
	}
	return nil
}

// StartRequest is POST /api/v1/runs: the scenario (a path, or a file
// name looked up in the scenario directories: Config.FindScenario) and
// the overrides soakd run takes, each parsed and checked as its flag is
// (runpath.Text, runpath.Apply).
type StartRequest struct {
	Scenario    string       `json:"scenario"`
	Target      string       `json:"target,omitempty"`
	Rate        OverrideText `json:"rate,omitempty"`        // ops/s, 0 = closed loop
	Duration    OverrideText `json:"duration,omitempty"`    // "30s"
	Warmup      OverrideText `json:"warmup,omitempty"`      // "5s"
	Tick        OverrideText `json:"tick,omitempty"`        // "20ms"
	Records     OverrideText `json:"records,omitempty"`     // 10000
	Concurrency OverrideText `json:"concurrency,omitempty"` // workers
	Seed        OverrideText `json:"seed,omitempty"`
	Repeat      OverrideText `json:"repeat,omitempty"` // rounds
}

// overrides are the request's overrides, parsed.
func (r StartRequest) overrides() (runpath.Overrides, error) {
	return runpath.Text{Target: r.Target, Rate: string(r.Rate), Duration: string(r.Duration), Warmup: string(r.Warmup), Tick: string(r.Tick),
		Records: string(r.Records), Concurrency: string(r.Concurrency), Seed: string(r.Seed), Repeat: string(r.Repeat)}.Parse()
}

// OverrideText is an override's value as sent: a JSON number or string,
// kept as text (5000 and "5000" alike) for runpath.Text to parse.
type OverrideText string

// UnmarshalJSON takes a string's text or any other literal as written;
// null is no override.
func (t *OverrideText) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = OverrideText(s)
		return nil
	}
	if string(b) == "null" {
		*t = ""
		return nil
	}
	*t = OverrideText(b)
	return nil
}

func (d *Daemon) postRun(w http.ResponseWriter, r *http.Request) {
	var req StartRequest
	if err := decodeBody(r, &req); err != nil {
		writeErr(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Scenario == "" {
		writeErr(w, http.StatusBadRequest, `"scenario" (path to a scenario file) is required`)
		return
	}
	ov, err := req.overrides()
	if err != nil {
		writeErr(w, http.StatusBadRequest, overrideMessage(err))
		return
	}
	d.mu.Lock()
	path := d.cfg.FindScenario(req.Scenario)
	d.mu.Unlock()
	e, _, err := d.startRun(d.baseCtx, runRequest{file: path, overrides: &ov, source: "api", slot: true})
	var oe *runpath.OverrideError
	if errors.As(err, &oe) {
		writeErr(w, http.StatusBadRequest, overrideMessage(err))
		return
	}
	if err != nil {
		code := http.StatusBadRequest
		switch {
		case errors.Is(err, errStopping):
			code = http.StatusServiceUnavailable
		case errors.Is(err, errQueueFull):
			code = http.StatusTooManyRequests
			w.Header().Set("Retry-After", "30")
		}
		writeErr(w, code, apiMessage(err))
		return
	}
	w.Header().Set("Location", "/api/v1/runs/"+e.ID)
	writeJSON(w, http.StatusAccepted, e)
}

func (d *Daemon) stopRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	e, ok := d.entry(w, id)
	if !ok {
		return
	}
	d.mu.Lock()
	ar := d.active[id]
	d.mu.Unlock()
	if ar == nil {
		writeErr(w, http.StatusConflict, fmt.Sprintf("run %s is not running (state %s)", id, e.State))
		return
	}
	ar.cancel(nil)
	writeJSON(w, http.StatusAccepted, map[string]string{"id": id, "status": "stopping"})
}

// RateRequest is POST /api/v1/runs/{id}/rate.
type RateRequest struct {
	Rate float64 `json:"rate"`
}

func (d *Daemon) rateRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	e, ok := d.entry(w, id)
	if !ok {
		return
	}
	var req RateRequest
	if err := decodeBody(r, &req); err != nil {
		writeErr(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := scenarios.CheckRate(req.Rate, false); err != nil {
		writeErr(w, http.StatusBadRequest, `"rate": `+err.Error())
		return
	}
	d.mu.Lock()
	ar := d.active[id]
	d.mu.Unlock()
	if ar == nil {
		writeErr(w, http.StatusConflict, fmt.Sprintf("run %s is not running (state %s)", id, e.State))
		return
	}
	if err := ar.ctl.SetRate(req.Rate); err != nil {
		writeErr(w, http.StatusConflict, err.Error())
		return
	}
	phase, _ := ar.ctl.Current()
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "phase": phase, "rate": req.Rate})
}

// overrideMessage is an override refused, named by its request field:
// `"rate": 5k: use a number like 5000 ...`. The value is the client's
// own (a target URL redacted), so it is not withheld.
func overrideMessage(err error) string {
	var oe *runpath.OverrideError
	if errors.As(err, &oe) {
		return fmt.Sprintf("%q:%s", oe.Name, oe.Msg)
	}
	return apiMessage(err)
}
