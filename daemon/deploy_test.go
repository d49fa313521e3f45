package daemon

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/internal/testutil"
)

func repoFile(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// The unit's ExecStart names /usr/local/bin/soakd, which verify insists
// exists: check a temp copy whose ExecStart is this test binary.
func TestSystemdUnitVerifies(t *testing.T) {
	sa := testutil.NeedTool(t, "systemd-analyze")
	unit, err := os.ReadFile(repoFile(t, "deploy/systemd/soakd.service"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Type=notify", "DynamicUser=yes", "StateDirectory=soakd", "ProtectSystem=strict",
		"NoNewPrivileges=yes", "EnvironmentFile=-/etc/soakd/env", "ExecReload=/bin/kill -HUP $MAINPID", "WatchdogSec="} {
		if !strings.Contains(string(unit), want+"\n") && !strings.Contains(string(unit), want) {
			t.Errorf("unit lacks %s", want)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^ExecStart=/usr/local/bin/soakd `)
	if !re.Match(unit) {
		t.Fatal("ExecStart does not run /usr/local/bin/soakd")
	}
	tmp := filepath.Join(t.TempDir(), "soakd.service")
	if err := os.WriteFile(tmp, re.ReplaceAll(unit, []byte("ExecStart="+self+" ")), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, sa, "verify", tmp).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

func TestComposeFileValid(t *testing.T) {
	dc := testutil.NeedTool(t, "docker-compose")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, dc, "-f", repoFile(t, "docker-compose.yml"), "config", "-q").CombinedOutput()
	if err != nil {
		t.Errorf("docker-compose config: %v\n%s", err, out)
	}
}

// The documented example config is valid once its scenario paths exist.
func TestExampleConfigValid(t *testing.T) {
	data, err := os.ReadFile(repoFile(t, "deploy/soakd.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	qs, err := os.ReadFile(repoFile(t, "scenarios/quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755)
	writeFile(t, filepath.Join(dir, "scenarios", "quickstart.yaml"), string(qs))
	src := strings.ReplaceAll(string(data), "/etc/soakd/scenarios/", filepath.Join(dir, "scenarios")+"/")
	c, err := ParseConfig(filepath.Join(dir, "soakd.yaml"), []byte(src), getenv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Schedules) != 2 || len(c.Soaks) != 1 || c.Listen != DefaultListen {
		t.Errorf("example decoded to %+v", c)
	}
	docker, err := os.ReadFile(repoFile(t, "deploy/docker/soakd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src = strings.ReplaceAll(string(docker), "/etc/soakd/scenarios/", filepath.Join(dir, "scenarios")+"/")
	if _, err := ParseConfig(filepath.Join(dir, "docker.yaml"), []byte(src), getenv(nil)); err != nil {
		t.Error(err)
	}
}

// sd_notify over a real unixgram socket: READY=1 once serving, WATCHDOG=1
// at half WATCHDOG_USEC, STOPPING=1 on shutdown.
func TestNotifySocket(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got := make(chan string, 64)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				close(got)
				return
			}
			got <- string(buf[:n])
		}
	}()
	h := startDaemon(t, dir, baseConfig(dir), map[string]string{"NOTIFY_SOCKET": sock, "WATCHDOG_USEC": "200000"})
	next := func(want string) time.Time {
		t.Helper()
		timeout := time.After(3 * time.Second)
		for {
			select {
			case m := <-got:
				if strings.HasPrefix(m, want) {
					return time.Now()
				}
			case <-timeout:
				t.Fatalf("no %q on NOTIFY_SOCKET", want)
			}
		}
	}
	next("READY=1")
	if code := h.do("GET", "/readyz", "", nil, nil); code != 200 {
		t.Errorf("/readyz %d after READY=1", code)
	}
	// Pings keep coming (their spacing is the notifier's interval,
	// checked without the wall clock in TestNotifierInterval; a busy
	// host delays a ping by any amount).
	next("WATCHDOG=1")
	next("WATCHDOG=1")
	h.stop()
	next("STOPPING=1")
}

// The watchdog pings at half of WATCHDOG_USEC, as sd_watchdog_enabled
// advises, and only for the pid it is meant for.
func TestNotifierInterval(t *testing.T) {
	n := NewNotifier(getenv(map[string]string{"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "7"}), 7)
	if got := n.WatchdogInterval(); got != 100*time.Millisecond {
		t.Errorf("WATCHDOG_USEC=200000: pings every %v, want 100ms", got)
	}
	n = NewNotifier(getenv(map[string]string{"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "200000"}), 7)
	if got := n.WatchdogInterval(); got != 100*time.Millisecond {
		t.Errorf("WATCHDOG_USEC=200000 without WATCHDOG_PID: pings every %v, want 100ms", got)
	}
}

func TestNotifierOff(t *testing.T) {
	n := NewNotifier(getenv(nil), 1)
	if n.Enabled() || n.WatchdogInterval() != 0 || n.Notify("READY=1") != nil {
		t.Error("notifier without NOTIFY_SOCKET should do nothing")
	}
	n = NewNotifier(getenv(map[string]string{"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "42"}), 7)
	if n.WatchdogInterval() != 0 {
		t.Error("watchdog meant for pid 42 used by pid 7")
	}
}
