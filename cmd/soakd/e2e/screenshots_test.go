package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
)

// screenshotsEnv, set to 1, makes TestUpdateScreenshots rewrite the
// README's screenshots (docs/img) from real runs.
const screenshotsEnv = "SOAKD_UPDATE_SCREENSHOTS"

// The README's screenshots, each at least this size.
var screenshots = []string{"report.png", "daemon.png"}

const minShotW, minShotH = 900, 600

// TestScreenshotsCommitted: the README's screenshots are in docs/img and
// are PNG images of a readable size.
func TestScreenshotsCommitted(t *testing.T) {
	t.Parallel()
	for _, name := range screenshots {
		f, err := os.Open(filepath.Join("..", "..", "..", "docs", "img", name))
		if err != nil {
			t.Fatalf("%v (%s=1 go test ./cmd/soakd/e2e -run TestUpdateScreenshots writes it)", err, screenshotsEnv)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < minShotW || b.Dy() < minShotH {
			t.Errorf("%s is %dx%d, want at least %dx%d", name, b.Dx(), b.Dy(), minShotW, minShotH)
		}
	}
}

// TestUpdateScreenshots (with SOAKD_UPDATE_SCREENSHOTS=1) writes
// docs/img/report.png, the report of a 20 s quickstart run on the
// embedded target, and docs/img/daemon.png, the daemon's page during a
// run it started, both in headless Chromium 1000 px wide.
func TestUpdateScreenshots(t *testing.T) {
	if os.Getenv(screenshotsEnv) != "1" {
		t.Skipf("set %s=1 to rewrite docs/img from real runs", screenshotsEnv)
	}
	chromium := testutil.NeedTool(t, "chromium", "chromium-browser", "google-chrome")
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildSoakd(t)
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "scenarios"), filepath.Join(work, "scenarios")); err != nil {
		t.Fatal(err)
	}
	shot := func(url, out string, height int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
			"--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "--virtual-time-budget=8000",
			fmt.Sprintf("--window-size=1000,%d", height), "--screenshot="+out, url)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, b)
		}
	}
	img := filepath.Join(root, "docs", "img")
	if err := os.MkdirAll(img, 0o755); err != nil {
		t.Fatal(err)
	}

	// The report of a real run.
	run := exec.Command(bin, "run", "scenarios/quickstart.yaml", "--duration", "20s", "--out", "runs/qs", "--listen", "")
	run.Dir = work
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil && run.ProcessState.ExitCode() != 1 {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	t.Logf("the run's summary:\n%s", stdout.String())
	rep := exec.Command(bin, "report", "--html", "runs/qs/report.html", "runs/qs")
	rep.Dir = work
	if b, err := rep.CombinedOutput(); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	shot("file://"+filepath.Join(work, "runs", "qs", "report.html"), filepath.Join(img, "report.png"), 2000)

	// The daemon's page during a run.
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cfg := fmt.Sprintf("listen: %s\ntoken_env: SOAKD_TOKEN\ndata_dir: %s\nscenario_dirs: [%s]\n", addr, filepath.Join(work, "data"), filepath.Join(root, "scenarios"))
	cfgPath := filepath.Join(work, "soakd.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := exec.Command(bin, "serve", "--config", cfgPath)
	serve.Dir = work
	serve.Env = append(os.Environ(), "SOAKD_TOKEN=screenshots")
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = serve.Process.Signal(os.Interrupt)
		_ = serve.Wait()
	}()
	base := "http://" + addr
	waitFor(t, 30*time.Second, func() bool {
		r, err := http.Get(base + "/healthz")
		if err == nil {
			r.Body.Close()
		}
		return err == nil && r.StatusCode == 200
	})
	post := func() string {
		req, _ := http.NewRequest("POST", base+"/api/v1/runs", strings.NewReader(`{"scenario": "quickstart.yaml", "duration": "20s"}`))
		req.Header.Set("Authorization", "Bearer screenshots")
		r, err := http.DefaultClient.Do(req)
		if err != nil || r.StatusCode/100 != 2 {
			t.Fatalf("POST /api/v1/runs: %v %v", err, r)
		}
		defer r.Body.Close()
		var e struct {
			ID string `json:"id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&e); err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	// One run finished (history), a second one going (live chart).
	post()
	waitState(t, base, "completed", 3*time.Minute)

	id := post()
	// Its page once the live chart has 8 s of the steady phase.
	waitFor(t, 2*time.Minute, func() bool {
		r, err := http.Get(base + "/api/v1/runs/" + id + "/live?history=1")
		if err != nil {
			return false
		}
		defer r.Body.Close()
		var l struct {
			History []struct {
				Phase string `json:"phase"`
			} `json:"history"`
		}
		n := 0
		if json.NewDecoder(r.Body).Decode(&l) == nil {
			for _, h := range l.History {
				if h.Phase == "steady" {
					n++
				}
			}
		}
		return n >= 8
	})
	shot(base+"/#/run/"+id, filepath.Join(img, "daemon.png"), 1100)
	TestScreenshotsCommitted(t)
}

// waitState polls the daemon's run list until a run is in state.
func waitState(t *testing.T, base, state string, d time.Duration) {
	t.Helper()
	re := regexp.MustCompile(`"state":\s*"` + state + `"`)
	var last string
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		r, err := http.Get(base + "/api/v1/runs")
		if err == nil {
			var b bytes.Buffer
			_, _ = b.ReadFrom(r.Body)
			r.Body.Close()
			last = b.String()
			if re.MatchString(last) {
				return
			}
		}
		time.Sleep(200 * time.Millisecond) // polling the daemon's state
	}
	t.Fatalf("no run %s after %v: %s", state, d, last)
}
