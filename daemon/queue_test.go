package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newQueueDaemon is a daemon (not serving HTTP) with one schedule that
// never fires on its own; its runs start with startRun and fire.
func newQueueDaemon(t *testing.T, dir, extra string) (*Daemon, *Config) {
	t.Helper()
	path := writeFile(t, filepath.Join(dir, "soakd.yaml"), "listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: "+
		filepath.Join(dir, "data")+"\n"+extra)
	env := getenv(map[string]string{"SOAKD_TEST_TOKEN": testToken})
	cfg, err := LoadConfig(path, env)
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(cfg, Options{ConfigPath: path, Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	d.baseCtx, d.cancel = context.WithCancel(context.Background())
	t.Cleanup(func() { d.cancel(); d.runsWG.Wait() })
	return d, cfg
}

// waitFor polls cond (under no lock) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (d *Daemon) stateOf(id string) string {
	e, _ := d.hist.Get(id)
	return e.State
}

func (d *Daemon) runBySource(source string) (Entry, bool) {
	for _, e := range d.hist.List() {
		if e.Source == source {
			return e, true
		}
	}
	return Entry{}, false
}

// API runs that fill their share of the queue neither refuse nor delay
// a configured soak's next iteration or a schedule's firing: those are
// not counted against max_queued, and when a run ends they take the
// scenario and the slot before the waiting API runs.
func TestAPIFloodDoesNotStarveConfiguredRuns(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "long.yaml"), shortScenario("long", 20, "60s"))
	writeFile(t, filepath.Join(dir, "other.yaml"), shortScenario("other", 20, "60s"))
	d, cfg := newQueueDaemon(t, dir, "max_concurrent: 1\nmax_queued: 2\nschedules:\n  - {name: nightly, cron: \"0 0 1 1 *\", scenario: other.yaml}\n")
	d.conf.sched["nightly"] = &schedState{}
	long := cfg.ScenarioPath("long.yaml")
	api := func() (Entry, error) {
		e, _, err := d.startRun(d.baseCtx, runRequest{file: long, source: "api", slot: true})
		return e, err
	}
	a, err := api()
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "run a running", func() bool { return d.stateOf(a.ID) == StateRunning })
	b, err1 := api()
	c, err2 := api()
	if err1 != nil || err2 != nil {
		t.Fatalf("b, c: %v %v", err1, err2)
	}
	if _, err := api(); !errors.Is(err, errQueueFull) || !strings.Contains(apiMessage(err), "API's share") {
		t.Fatalf("a third queued API run: %v, want the queue-full refusal", err)
	}
	// The soak's next iteration and the schedule's firing are accepted
	// with the API's share full.
	soak, _, err := d.startRun(d.baseCtx, runRequest{file: long, source: "soak:forever"})
	if err != nil {
		t.Fatalf("soak iteration refused with the API's queue full: %v", err)
	}
	d.fire(cfg.Schedules[0])
	sched, ok := d.runBySource("schedule:nightly")
	if !ok || sched.State != StateQueued {
		t.Fatalf("schedule run: %+v %v", sched, ok)
	}
	// a ends: the soak takes the scenario, the schedule the slot, before b and c.
	d.mu.Lock()
	d.active[a.ID].cancel(nil)
	d.mu.Unlock()
	waitFor(t, "soak and schedule running", func() bool {
		return d.stateOf(soak.ID) == StateRunning && d.stateOf(sched.ID) == StateRunning
	})
	if sb, sc := d.stateOf(b.ID), d.stateOf(c.ID); sb != StateQueued || sc != StateQueued {
		t.Errorf("API runs b, c: %s, %s, want both still queued behind the configured runs", sb, sc)
	}
}

// max_queued is bounded, with the file:line of the value.
func TestMaxQueuedBounded(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"1e8", "100000000", "1001", "0"} {
		path := writeFile(t, filepath.Join(dir, "soakd.yaml"), "listen: 127.0.0.1:0\ntoken_env: T\ndata_dir: "+filepath.Join(dir, "data")+"\nmax_queued: "+v+"\n")
		_, err := LoadConfig(path, getenv(nil))
		if err == nil || !strings.Contains(err.Error(), "soakd.yaml:4: max_queued") {
			t.Errorf("max_queued: %s: %v, want refused at soakd.yaml:4", v, err)
		}
	}
	path := writeFile(t, filepath.Join(dir, "soakd.yaml"), "listen: 127.0.0.1:0\ntoken_env: T\ndata_dir: "+filepath.Join(dir, "data")+"\nmax_queued: 1000\n")
	if _, err := LoadConfig(path, getenv(nil)); err != nil {
		t.Errorf("max_queued: 1000: %v", err)
	}
}

// Queued runs of one scenario start in the order they were asked for
// (before, every waiter raced for the freed scenario, and the history's
// runs started out of order).
func TestQueuedRunsStartInOrder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "long.yaml"), shortScenario("long", 20, "60s"))
	d, cfg := newQueueDaemon(t, dir, "max_concurrent: 2\nmax_queued: 10\n")
	long := cfg.ScenarioPath("long.yaml")
	var ids []string
	for i := 0; i < 6; i++ {
		e, _, err := d.startRun(d.baseCtx, runRequest{file: long, source: "api", slot: true})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
		if i == 0 {
			waitFor(t, "the first run running", func() bool { return d.stateOf(e.ID) == StateRunning })
		}
	}
	// Every later run has entered the queue before the first ends.
	waitFor(t, "five waiters", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.q.waiting) == 5
	})
	for i := 0; i < len(ids)-1; i++ {
		d.mu.Lock()
		d.active[ids[i]].cancel(nil)
		d.mu.Unlock()
		next := ids[i+1]
		waitFor(t, "run "+next+" running", func() bool { return d.stateOf(next) == StateRunning })
		for _, later := range ids[i+2:] {
			if st := d.stateOf(later); st != StateQueued {
				t.Fatalf("run %d of %d: %s started before run %d (%s)", i+2, len(ids), later, i+2, st)
			}
		}
	}
}

// A queued run stopped before it started made no directory, and its
// entry points at none.
func TestStoppedQueuedRunHasNoDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "long.yaml"), shortScenario("long", 20, "60s"))
	d, cfg := newQueueDaemon(t, dir, "max_concurrent: 1\n")
	long := cfg.ScenarioPath("long.yaml")
	a, _, err := d.startRun(d.baseCtx, runRequest{file: long, source: "api", slot: true})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a running", func() bool { return d.stateOf(a.ID) == StateRunning })
	b, done, err := d.startRun(d.baseCtx, runRequest{file: long, source: "api", slot: true})
	if err != nil {
		t.Fatal(err)
	}
	if b.Dir == "" {
		t.Fatal("a queued entry names its future directory")
	}
	d.mu.Lock()
	d.active[b.ID].cancel(nil)
	d.mu.Unlock()
	<-done
	e, _ := d.hist.Get(b.ID)
	if e.State != StateInterrupted || e.Dir != "" {
		t.Errorf("stopped queued run: state %s, dir %q; want interrupted and no dir", e.State, e.Dir)
	}
	if _, err := os.Stat(d.hist.RunDir(b.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("its directory: %v", err)
	}
}
