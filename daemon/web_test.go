package daemon

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/metrics"
)

// browser starts headless Chromium (missing: skip, or fail under
// SOAKD_REQUIRE_TOOLS=1) and returns a context for its first tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	bin := testutil.NeedTool(t, "chromium", "chromium-browser", "google-chrome")
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")), chromedp.WindowSize(1200, 900))
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); acancel() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("chromium: %v", err)
	}
	return ctx
}

// page runs the steps with a bound on the whole group.
func page(t *testing.T, ctx context.Context, within time.Duration, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression on the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitPage polls a JavaScript predicate every 100 ms until it is truthy.
func waitPage(t *testing.T, ctx context.Context, within time.Duration, what, expr string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, within+time.Second)
	defer cancel()
	if _, err := chromedp.Run(c, chromedp.Poll[chromedp.Void](expr,
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(within))); err != nil {
		msg, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("msg").textContent`))
		t.Fatalf("%s: %v (page message: %q)", what, err, msg)
	}
}

// TestWebPageDrivesARun loads the daemon's page in Chromium and does what
// a person would: a start without the token is refused, then with it a
// run starts, its live charts grow, its rate is changed and it is
// stopped; the report and the scenario's history follow.
func TestWebPageDrivesARun(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "web.yaml"), shortScenario("web", 200, "60s")+"slo: {latency: {'*': {p99: 2s}}}\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "not a scenario")
	for _, sub := range []string{"more", ".hidden", "data"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, sub, "x.yml"), shortScenario("x", 100, "1s"))
	}
	h := startDaemon(t, dir, baseConfig(dir), nil)
	var listed struct{ Files []string }
	h.do("GET", "/api/v1/scenarios", "", nil, &listed)
	if strings.Join(listed.Files, ",") != "more/x.yml,web.yaml" {
		t.Errorf("scenario files offered: %q, want more/x.yml and web.yaml (not the config, the data dir or hidden ones)", listed.Files)
	}
	ctx := browser(t)

	page(t, ctx, 10*time.Second, "load /",
		chromedp.Navigate(h.base+"/"), chromedp.WaitVisible(chromedp.CSS("#runs")))
	waitPage(t, ctx, 5*time.Second, "scenario choices", `document.querySelectorAll("#scenario-files option").length === 2`)
	if got := eval[string](t, ctx, `document.getElementById("token-state").textContent`); !strings.Contains(got, "no token") {
		t.Errorf("token state before any token: %q", got)
	}

	// No token: the daemon refuses and the page says so.
	page(t, ctx, 5*time.Second, "start without token",
		chromedp.SetValue(chromedp.CSS("#scenario"), "web.yaml"), chromedp.Click(chromedp.CSS("#start")))
	waitPage(t, ctx, 5*time.Second, "refusal shown", `document.getElementById("msg").textContent.includes("refused")`)
	var list struct{ Runs []Entry }
	h.do("GET", "/api/v1/runs", "", nil, &list)
	if len(list.Runs) != 0 {
		t.Fatalf("a start without the token made runs: %+v", list.Runs)
	}

	// With the token (kept in sessionStorage, the field cleared).
	page(t, ctx, 5*time.Second, "enter token",
		chromedp.SetValue(chromedp.CSS("#token"), testToken), chromedp.Click(chromedp.CSS("#token-save")))
	if got := eval[string](t, ctx, `sessionStorage.getItem("soakd-token") + "|" + document.getElementById("token").value`); got != testToken+"|" {
		t.Errorf("token storage: %q", got)
	}
	page(t, ctx, 5*time.Second, "start", chromedp.Click(chromedp.CSS("#start")))
	waitPage(t, ctx, 5*time.Second, "run page opened", `location.hash.startsWith("#/run/")`)
	id := strings.TrimPrefix(eval[string](t, ctx, `decodeURIComponent(location.hash)`), "#/run/")
	h.waitState(id, StateRunning, 10*time.Second)

	// The live charts get points, and the achieved line moves.
	waitPage(t, ctx, 15*time.Second, "throughput chart points",
		`Number(document.getElementById("chart-tput").dataset.points) >= 2 && Number(document.getElementById("chart-p99").dataset.points) >= 2`)
	// The p99 chart draws the SLO, and its scale reaches it.
	waitPage(t, ctx, 5*time.Second, "SLO line on the p99 chart",
		`!!document.querySelector('#chart-p99 line[data-series="SLO p99"]') && document.getElementById("chart-p99").textContent.includes("SLO p99")`)
	line := `(document.querySelector('#chart-tput polyline[data-series="achieved"]') || {}).getAttribute?.("points") || ""`
	before := eval[string](t, ctx, line)
	waitPage(t, ctx, 10*time.Second, "achieved line moves", line+" !== "+jsString(before))
	shot(t, ctx, "run-live")
	// Opened again mid-run, the page draws the run so far from its
	// interval log before its own first sample.
	waitPage(t, ctx, 10*time.Second, "four seconds of samples", `Number(document.getElementById("chart-tput").dataset.points) >= 4`)
	page(t, ctx, 10*time.Second, "reload", chromedp.Reload())
	waitPage(t, ctx, 10*time.Second, "run page again", `document.getElementById("chart-tput")?.dataset.seeded !== undefined`)
	if n := eval[int](t, ctx, `Number(document.getElementById("chart-tput").dataset.seeded)`); n < 2 {
		t.Errorf("reopened mid-run: %d buckets of history, want at least 2", n)
	}
	if got := eval[string](t, ctx, `document.getElementById("run-state").textContent`); got != StateRunning {
		t.Errorf("run state on the page: %q", got)
	}

	// Live rate change.
	page(t, ctx, 5*time.Second, "set rate",
		chromedp.SetValue(chromedp.CSS("#rate-input"), "350"), chromedp.Click(chromedp.CSS("#set-rate")))
	waitPage(t, ctx, 5*time.Second, "rate confirmed", `document.getElementById("msg").textContent.includes("set to 350")`)
	// The dispatcher applies the change at its next op; the page shows
	// the rate the run reports.
	waitPage(t, ctx, 5*time.Second, "new rate shown", `document.getElementById("run-phase").textContent.includes("350")`)
	var v RunView
	h.do("GET", "/api/v1/runs/"+id, "", nil, &v)
	if v.Rate != 350 {
		t.Errorf("rate after the page's change: %v, want 350", v.Rate)
	}

	// Stop: the state changes, the report replaces the live view.
	page(t, ctx, 5*time.Second, "stop", chromedp.Click(chromedp.CSS("#stop")))
	waitPage(t, ctx, 15*time.Second, "stopped", `document.getElementById("run-state").textContent === "interrupted"`)
	waitPage(t, ctx, 10*time.Second, "report in its frame", `(() => {
		const d = document.querySelector("iframe#report")?.contentDocument;
		return !!d && d.body?.textContent.includes("soakd: web") && d.querySelectorAll("svg").length > 0;
	})()`)
	shot(t, ctx, "run-done")
	// Finished: the live charts give way to the report, also on a fresh
	// page (where they would only say they wait for an interval).
	page(t, ctx, 10*time.Second, "reload the finished run", chromedp.Reload())
	waitPage(t, ctx, 10*time.Second, "report again", `!!document.querySelector("iframe#report")`)
	if d := eval[string](t, ctx, `getComputedStyle(document.getElementById("live-charts")).display`); d != "none" {
		t.Errorf("a finished run's live charts show (display %s)", d)
	}
	resp, err := http.Get(h.base + "/api/v1/runs/" + id + "/report")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(body), "soakd: web") || !strings.Contains(string(body), "<svg") {
		t.Errorf("report: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}

	// The run list and the scenario's history show it.
	eval[string](t, ctx, `location.hash = "#/"`)
	waitPage(t, ctx, 5*time.Second, "listed", `!!document.querySelector('#runs tr[data-id=`+jsString(id)+`][data-state="interrupted"]')`)
	shot(t, ctx, "list")
	eval[string](t, ctx, `location.hash = "#/scenario/web"`)
	waitPage(t, ctx, 5*time.Second, "history rows", `document.querySelectorAll("#history tbody tr").length === 1 && !!document.getElementById("shifts")`)

	shot(t, ctx, "history")

	// Everything the page loaded came from the daemon.
	if ext := eval[[]string](t, ctx, `performance.getEntriesByType("resource").map(e => e.name).filter(n => !n.startsWith(location.origin + "/"))`); len(ext) > 0 {
		t.Errorf("the page fetched from elsewhere: %v", ext)
	}
}

// shot saves a screenshot of the page as NAME.png under the directory
// SOAKD_WEB_SHOTS names (nothing without it): for a person to look at.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("SOAKD_WEB_SHOTS")
	if dir == "" {
		return
	}
	// The page painted what it has: two animation frames on.
	eval[bool](t, ctx, `window.shotReady = false; requestAnimationFrame(() => requestAnimationFrame(() => { window.shotReady = true; })); true`)
	waitPage(t, ctx, 5*time.Second, "frames painted for "+name, `window.shotReady === true`)
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	}
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
	}
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestWebPageScenarioHistory shows a scenario's history: p99 per run
// with the change point the daemon found and a run's regression verdict
// marked on the chart and in the tables.
func TestWebPageScenarioHistory(t *testing.T) {
	step := func(i int) float64 {
		if i < 9 {
			return 0.005
		}
		return 0.012
	}
	d := newShiftDaemon(t, historyDir(t, 16, step))
	shiftRun := string(rune('z'-9)) + "-run"
	regressed := string(rune('z'-12)) + "-run"
	if err := d.hist.Update(regressed, func(e *Entry) {
		e.Regression = &Regression{Regressed: true, History: 8, Ops: []OpRegression{{Phase: "steady", Op: "get", Regressed: true}}}
	}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	ctx := browser(t)

	page(t, ctx, 10*time.Second, "load history", chromedp.Navigate(srv.URL+"/#/scenario/s"))
	waitPage(t, ctx, 10*time.Second, "p99 per run", `document.getElementById("chart-history")?.dataset.points === "16"`)
	marks := eval[[]string](t, ctx, `[...document.querySelectorAll("#chart-history g.mark")].map(g => g.dataset.mark)`)
	if len(marks) != 2 || !strings.HasPrefix(marks[0], "change point: steady get p99") || marks[1] != "regression in "+regressed {
		t.Errorf("chart marks %q, want the p99 change point and the regression", marks)
	}
	if got := eval[string](t, ctx, `document.querySelector("#shifts tbody tr td a")?.textContent || ""`); got != shiftRun {
		t.Errorf("change point table names run %q, want %q", got, shiftRun)
	}
	if got := eval[[]string](t, ctx, `[...document.querySelectorAll("#history tr.shift")].map(r => r.dataset.id)`); len(got) != 1 || got[0] != shiftRun {
		t.Errorf("rows marked as the first run after a shift: %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('#history tr[data-id=`+jsString(regressed)+`] td:nth-child(4)').textContent`); got != "REGRESSED steady/get" {
		t.Errorf("verdict cell of the regressed run: %q", got)
	}
	shot(t, ctx, "history-shifts")

	// What an alert links: the scenario's running run, else its newest.
	resp, err := http.Get(srv.URL + "/api/v1/runs?scenario=s")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Runs []struct{ ID, State string } }
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list.Runs) == 0 {
		t.Fatalf("runs of s: %v %+v", err, list)
	}
	page(t, ctx, 10*time.Second, "current run", chromedp.Navigate(srv.URL+"/#/scenario/s/current"))
	want := "#/run/" + list.Runs[0].ID
	waitPage(t, ctx, 10*time.Second, "the newest run's page", `location.hash === `+jsString(want))
}

// The page's routes: the page itself, its files, and the report of a
// finished run, read only from a run directory inside the data dir.
func TestWebRoutes(t *testing.T) {
	data := historyDir(t, 3, func(int) float64 { return 0.005 })
	d := newShiftDaemon(t, data)
	get := func(method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		d.Handler().ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	if r := get("GET", "/"); r.Code != 200 || !strings.Contains(r.Body.String(), `<script src="/ui/soakd.js">`) ||
		!strings.Contains(r.Header().Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("GET /: %d %q", r.Code, r.Header())
	}
	if r := get("GET", "/ui/soakd.js"); r.Code != 200 || !strings.Contains(r.Header().Get("Content-Type"), "javascript") {
		t.Errorf("GET /ui/soakd.js: %d %s", r.Code, r.Header().Get("Content-Type"))
	}
	for _, p := range []string{"/ui/", "/ui/nope.js", "/nope"} {
		if r := get("GET", p); r.Code != 404 || !strings.Contains(r.Body.String(), `"error"`) {
			t.Errorf("GET %s: %d %s", p, r.Code, r.Body)
		}
	}
	if r := get("POST", "/"); r.Code != 405 || !strings.Contains(r.Header().Get("Allow"), "GET") {
		t.Errorf("POST /: %d, Allow %q", r.Code, r.Header().Get("Allow"))
	}

	r := get("GET", "/api/v1/runs/z-run/report")
	if r.Code != 200 || !strings.Contains(r.Body.String(), "<svg") || !strings.Contains(r.Header().Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("report: %d %q", r.Code, r.Header())
	}
	if r := get("GET", "/api/v1/runs/nope/report"); r.Code != 404 {
		t.Errorf("report of an unknown run: %d", r.Code)
	}
	if r := get("GET", "/api/v1/runs/..%2f..%2fetc/report"); r.Code != 400 && r.Code != 404 {
		t.Errorf("report of a path: %d", r.Code)
	}
	// A run directory swapped for a symlink out of the data dir is not
	// read, and nothing of what it points at is echoed.
	outside := t.TempDir()
	secret := "do-not-echo-this"
	if err := os.Rename(filepath.Join(data, "runs", "y-run"), filepath.Join(outside, "y-run")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(outside, "y-run", "summary.txt"), secret)
	if err := os.Symlink(filepath.Join(outside, "y-run"), filepath.Join(data, "runs", "y-run")); err != nil {
		t.Fatal(err)
	}
	if r := get("GET", "/api/v1/runs/y-run/report"); r.Code != 404 || strings.Contains(r.Body.String(), secret) || strings.Contains(r.Body.String(), "<svg") {
		t.Errorf("report through a symlink out of the data dir: %d %s", r.Code, r.Body)
	}
	// A running run has no report yet; its live sample says so.
	if err := d.hist.Update("x-run", func(e *Entry) { e.State = StateRunning }); err != nil {
		t.Fatal(err)
	}
	if r := get("GET", "/api/v1/runs/x-run/report"); r.Code != 409 {
		t.Errorf("report of a running run: %d", r.Code)
	}
	var lv LiveView
	if r := get("GET", "/api/v1/runs/x-run/live"); r.Code != 200 || json.Unmarshal(r.Body.Bytes(), &lv) != nil || lv.State != StateRunning || lv.Achieved != nil {
		t.Errorf("live of a run without an engine: %d %s", r.Code, r.Body)
	}
}

// The live view carries the p99 SLO: the strictest of the running ops'.
func TestLiveViewSLO(t *testing.T) {
	e := metrics.NewExporter("s", "0", []string{"ok"}, nil)
	e.SetSLO("get", "0.99", 0.02)
	e.SetSLO("set", "0.99", 0.01)
	e.SetSLO("get", "0.999", 0.001)
	var v LiveView
	fillLive(&v, e)
	if v.SLOP99 == nil || *v.SLOP99 != 0.01 || len(v.SLOPerOp) != 2 || v.SLOPerOp["get"] != 0.02 {
		t.Errorf("before any interval: slo_p99 %v, per op %v", v.SLOP99, v.SLOPerOp)
	}
}
