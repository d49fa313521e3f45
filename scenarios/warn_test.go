package scenarios

import (
	"strings"
	"testing"
)

// TestScheduledSeconds: the lower bound of one pass's run time per
// phase kind, growth stages counted from the records already in place.
func TestScheduledSeconds(t *testing.T) {
	for _, tc := range []struct {
		name, phases string
		want         float64
	}{
		{"steady", `[{kind: steady, rate: 10, duration: 30s, warmup: 5s, mix: {get: 100}}]`, 30},
		{"steady by requests", `[{kind: steady, rate: 100, requests: 2000, mix: {get: 100}}]`, 20},
		{"ramp", `[{kind: ramp, steps: [{rate: 10, duration: 5s}, {rate: 20, duration: 7s}], mix: {get: 100}}]`, 12},
		// 90 s: 9000 of 10000 records still to insert in 1000-record
		// stages after a load of 1000, 10 s each.
		{"load then growth", `[{kind: load, records: 1000}, {kind: growth, mix: {get: 100}, growth: {batch: 1000, measure_rate: 10, measure_for: 10s, stop_records: 10000}}]`, 90},
		{"growth with paced inserts and max_stages", `[{kind: growth, mix: {get: 100}, growth: {batch: 1000, load_rate: 500, measure_rate: 10, measure_for: 10s, stop_records: 100000, max_stages: 3}}]`, 36},
		{"capacity", `[{kind: capacity, mix: {get: 100}, capacity: {step_duration: 15s}}]`, 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse("x.yaml", []byte("keyspace: {records: 10000}\nphases: "+tc.phases+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			if got := sc.ScheduledSeconds(); got != tc.want {
				t.Errorf("scheduled %v s, want %v", got, tc.want)
			}
		})
	}
}

// TestWarnRDBNeverFires: an rdb:N variant longer than the phases'
// scheduled time is a warning naming file:line:field with a scaled
// value (a quarter of the scheduled time), not a problem: the file
// parses. Variants that fire, and other persistences, are not warned.
func TestWarnRDBNeverFires(t *testing.T) {
	src := `name: g
target:
  kind: redis
  managed:
    persistence: rdb:60
    persistences:
      - aof:everysec
      - rdb:300
      - rdb:90
      - none
keyspace: {records: 9000}
phases:
  - kind: growth
    mix: {get: 100}
    growth: {batch: 1000, measure_rate: 10, measure_for: 10s}
`
	sc, err := Parse("g.yaml", []byte(src))
	if err != nil {
		t.Fatalf("a warning must not refuse the file: %v", err)
	}
	ws := sc.Warnings()
	if len(ws) != 1 {
		t.Fatalf("warnings %v, want only rdb:300", ws)
	}
	w := ws[0]
	if w.File != "g.yaml" || w.Line != 8 || w.Field != "target.managed.persistences[1]" {
		t.Errorf("warning at %s:%d %s, want g.yaml:8 target.managed.persistences[1]", w.File, w.Line, w.Field)
	}
	for _, want := range []string{"warning: rdb:300", "scheduled for 90 s", "use rdb:22"} {
		if !strings.Contains(w.Msg, want) {
			t.Errorf("warning %q lacks %q", w.Msg, want)
		}
	}
	// The shipped study scenario snapshots well inside its 20 minutes.
	cat, err := LoadFile("growth-persistence.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if ws := cat.Warnings(); len(ws) != 0 {
		t.Errorf("growth-persistence.yaml warns: %v", ws)
	}
}
