package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// touchedTarget counts every call a run makes on it.
type touchedTarget struct{ calls atomic.Int64 }

func (t *touchedTarget) Do(context.Context, *targets.Request) error { t.calls.Add(1); return nil }
func (t *touchedTarget) Close() error                               { t.calls.Add(1); return nil }
func (t *touchedTarget) Prepare(context.Context, *scenarios.Scenario) error {
	t.calls.Add(1)
	return nil
}

// TestPreparePlansWithoutTarget: a plan is built from the scenario
// alone: the replay's latency groups join the op table after the
// scenario's custom ops, the SLO is parsed against them, and a run with
// a load first starts from an empty dataset.
func TestPreparePlansWithoutTarget(t *testing.T) {
	src := writeCapture(t, "ops.ndjson", []string{
		`{"ts": 1.0, "op": "SET", "args": ["a", "1"]}`,
		`{"ts": 1.1, "op": "GET", "args": ["a"]}`,
	})
	sc := scenario(t, replayTarget+`ops:
  touch: {redis: [SET, "{key}", "1"]}
slo:
  latency: {GET: {p99: 10ms}}
phases:
  - {name: load, kind: load, records: 10, mix: {insert: 100}}
  - {name: r, kind: replay, source: `+src+`, format: ndjson, concurrency: 1}
`)
	p, err := Prepare(context.Background(), sc, Options{TargetKind: sc.Target.Kind})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, name := range []string{"touch", "SET", "GET"} {
		if _, ok := p.ops.Lookup(name); !ok {
			t.Errorf("op table lacks %s", name)
		}
	}
	if p.custom == nil || p.replays["r"] == nil || p.limits == nil {
		t.Errorf("plan: custom %v, replay %v, limits %v; want all three", p.custom, p.replays["r"], p.limits)
	}
	if p.initInserted != 0 {
		t.Errorf("starts from %d records, want 0 (a load comes first)", p.initInserted)
	}
	if got := p.replays["r"].limit; got != 2 {
		t.Errorf("replay sends %d ops, want the capture's 2", got)
	}
	other := scenario(t, "keyspace: {records: 10}\nphases:\n  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {read: 100}}\n")
	if _, err := Run(context.Background(), Options{Scenario: other, Plan: p, OutDir: t.TempDir(), time: bubbleTime{}}); err == nil || !strings.Contains(err.Error(), "another scenario") {
		t.Errorf("a plan of another scenario: %v, want it refused", err)
	}
}

// TestPrepareErrorsComeBeforeTheTarget: a run whose plan cannot be made
// (its capture removed after the scenario was read) fails before it
// touches its target or creates its run directory.
func TestPrepareErrorsComeBeforeTheTarget(t *testing.T) {
	src := writeCapture(t, "ops.ndjson", []string{`{"ts": 1.0, "op": "SET", "args": ["a", "1"]}`})
	sc := scenario(t, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+src+", format: ndjson, concurrency: 1}\n")
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(context.Background(), sc, Options{}); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "phase r: replay") {
		t.Fatalf("Prepare: %v, want phase r's capture missing", err)
	}
	tg := &touchedTarget{}
	out := filepath.Join(t.TempDir(), "run")
	_, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: out, time: bubbleTime{}})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Run: %v, want the capture's error", err)
	}
	if n := tg.calls.Load(); n != 0 {
		t.Errorf("the target got %d calls, want none", n)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run directory: %v, want none made", err)
	}
}

// A run given a plan made before it (Options.Plan) runs on that plan.
func TestRunOnAGivenPlan(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
phases:
  - {name: s, kind: steady, rate: 100, duration: 1s, concurrency: 2, mix: {read: 100}}
`)
	p, err := Prepare(context.Background(), sc, Options{TargetKind: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sum := runInBubble(t, sc, &recordingTarget{}, Options{Plan: p})
	if got := sum.Phases[0].Ops["read"].Count; got != 100 {
		t.Errorf("%d reads, want the 100 of 1 s at 100/s", got)
	}
}
