// Package storetest is what the stores' engine tests share: a scenario
// parsed or failed, its target opened and run through engine.Run, an
// NDJSON op log written for a replay, an op's outcome read back, and
// the read/write timeout rule for custom ops. Each store's tests keep
// only what is their own: the server, the scenario and the figures.
package storetest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Parse parses a scenario given inline (its stores' client sections
// checked by the registered adapters), failing the test on an error.
func Parse(t testing.TB, name, yaml string) *scenarios.Scenario {
	t.Helper()
	sc, err := targets.ParseScenario(name, []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Load reads a scenario file, failing the test on an error.
func Load(t testing.TB, path string) *scenarios.Scenario {
	t.Helper()
	sc, err := targets.LoadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Session is one open target with a bounded context: the store's server
// may hang, a test must not.
type Session struct {
	t      testing.TB
	Ctx    context.Context
	Target targets.Target
}

// Open opens sc's target for the test; it is closed when the test ends.
func Open(t testing.TB, sc *scenarios.Scenario) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return &Session{t: t, Ctx: ctx, Target: tg}
}

// Run runs sc on the session's target, its run directory in a temporary
// one, and returns engine.Run's answer.
func (s *Session) Run(sc *scenarios.Scenario) (*rundir.Summary, error) {
	return engine.Run(s.Ctx, engine.Options{Scenario: sc, Target: s.Target, TargetKind: sc.Target.Kind, OutDir: s.t.TempDir()})
}

// MustRun is Run failing the test on an error.
func (s *Session) MustRun(sc *scenarios.Scenario) *rundir.Summary {
	s.t.Helper()
	sum, err := s.Run(sc)
	if err != nil {
		s.t.Fatal(err)
	}
	return sum
}

// Run opens sc's target, runs sc and returns its summary.
func Run(t testing.TB, sc *scenarios.Scenario) *rundir.Summary {
	t.Helper()
	return Open(t, sc).MustRun(sc)
}

// OpLog builds an NDJSON op log (the replay format): one line an op,
// 1 ms apart from ts 100.
type OpLog struct {
	Lines []string
	ts    float64
}

// Add appends an op: format holds the line's fields after "ts".
func (l *OpLog) Add(format string, args ...any) {
	if l.ts == 0 {
		l.ts = 100
	}
	l.ts += 0.001
	l.Lines = append(l.Lines, fmt.Sprintf(`{"ts": %.3f, `, l.ts)+fmt.Sprintf(format, args...)+"}")
}

// Write writes the log's lines, and then extra ones, to path.
func (l *OpLog) Write(t testing.TB, path string, extra ...string) {
	t.Helper()
	lines := append(append([]string(nil), l.Lines...), extra...)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Errors is how many of r's ops failed, whatever the class.
func Errors(r rundir.OpResult) int64 {
	var n int64
	for _, e := range r.Errors {
		n += e
	}
	return n
}

// Outcome says what every one of r's ops came to: "ok" (no error, no
// miss), "error", "miss", or "mixed" (or none ran).
func Outcome(r rundir.OpResult) string {
	switch errs := Errors(r); {
	case r.Count > 0 && errs == 0 && r.Misses == 0:
		return "ok"
	case r.Count > 0 && errs == r.Count:
		return "error"
	case r.Count > 0 && r.Misses == r.Count:
		return "miss"
	}
	return "mixed"
}

// Timeouts is the read/write rule a store's custom ops follow: deadline
// gives the deadline the store sets for op when its read timeout is
// ReadTimeout and its write timeout WriteTimeout; each op in reads must
// get the read one, each in writes the write one.
func Timeouts(t testing.TB, sc *scenarios.Scenario, deadline func(scenarios.Op) (time.Time, bool), reads, writes []string) {
	t.Helper()
	names, err := sc.OpTable()
	if err != nil {
		t.Fatal(err)
	}
	which := func(name string) time.Duration {
		op, ok := names.Lookup(name)
		if !ok {
			t.Fatalf("no op %s", name)
		}
		dl, ok := deadline(op)
		if !ok {
			t.Fatalf("%s: no deadline", name)
		}
		if time.Until(dl) > (ReadTimeout+WriteTimeout)/2 {
			return WriteTimeout
		}
		return ReadTimeout
	}
	for _, name := range reads {
		if d := which(name); d != ReadTimeout {
			t.Errorf("%s: the %v (write) timeout, want the read one", name, d)
		}
	}
	for _, name := range writes {
		if d := which(name); d != WriteTimeout {
			t.Errorf("%s: the %v (read) timeout, want the write one", name, d)
		}
	}
}

// The timeouts Timeouts tells apart.
const (
	ReadTimeout  = time.Hour
	WriteTimeout = 3 * time.Hour
)
