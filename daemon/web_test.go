package daemon

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/soakd/soakd/internal/testutil"
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
	writeFile(t, filepath.Join(dir, "web.yaml"), shortScenario("web", 200, "60s"))
	h := startDaemon(t, dir, baseConfig(dir), nil)
	ctx := browser(t)

	page(t, ctx, 10*time.Second, "load /",
		chromedp.Navigate(h.base+"/"), chromedp.WaitVisible(chromedp.CSS("#runs")))
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
	line := `(document.querySelector('#chart-tput polyline[data-series="achieved"]') || {}).getAttribute?.("points") || ""`
	before := eval[string](t, ctx, line)
	waitPage(t, ctx, 10*time.Second, "achieved line moves", line+" !== "+jsString(before))
	if got := eval[string](t, ctx, `document.getElementById("run-state").textContent`); got != StateRunning {
		t.Errorf("run state on the page: %q", got)
	}

	// Live rate change.
	page(t, ctx, 5*time.Second, "set rate",
		chromedp.SetValue(chromedp.CSS("#rate-input"), "350"), chromedp.Click(chromedp.CSS("#set-rate")))
	waitPage(t, ctx, 5*time.Second, "rate confirmed", `document.getElementById("msg").textContent.includes("set to 350")`)
	var v RunView
	h.do("GET", "/api/v1/runs/"+id, "", nil, &v)
	if v.Rate != 350 {
		t.Errorf("rate after the page's change: %v, want 350", v.Rate)
	}
	waitPage(t, ctx, 5*time.Second, "new rate shown", `document.getElementById("run-phase").textContent.includes("350")`)

	// Stop: the state changes, the report replaces the live view.
	page(t, ctx, 5*time.Second, "stop", chromedp.Click(chromedp.CSS("#stop")))
	waitPage(t, ctx, 15*time.Second, "stopped", `document.getElementById("run-state").textContent === "interrupted"`)
	waitPage(t, ctx, 5*time.Second, "report frame", `!!document.querySelector("iframe#report")`)
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
	eval[string](t, ctx, `location.hash = "#/scenario/web"`)
	waitPage(t, ctx, 5*time.Second, "history rows", `document.querySelectorAll("#history tbody tr").length === 1 && !!document.getElementById("shifts")`)

	// Everything the page loaded came from the daemon.
	if ext := eval[[]string](t, ctx, `performance.getEntriesByType("resource").map(e => e.name).filter(n => !n.startsWith(location.origin + "/"))`); len(ext) > 0 {
		t.Errorf("the page fetched from elsewhere: %v", ext)
	}
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
