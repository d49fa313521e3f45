package engine

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/soakd/soakd/targets"
)

func TestSpansForRunPhasesStages(t *testing.T) {
	sc := scenario(t, `
name: traced
target: {kind: embedded}
keyspace: {records: 100}
phases:
  - {name: warm, kind: steady, rate: 200, duration: 1s, concurrency: 2, mix: {get: 100}}
  - {name: ramp, kind: ramp, concurrency: 2, mix: {get: 100}, steps: [{rate: 100, duration: 1s}, {rate: 300, duration: 1s}]}
slo:
  latency: {"*": {p99: 1s}}
`)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if _, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: "embedded", OutDir: t.TempDir(), Tracer: tp.Tracer("test")}); err != nil {
		t.Fatal(err)
	}
	spans := rec.Ended()
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	if len(byName["soakd.run"]) != 1 || len(byName["soakd.phase"]) != 2 || len(byName["soakd.stage"]) != 2 {
		t.Fatalf("spans: run %d phase %d stage %d", len(byName["soakd.run"]), len(byName["soakd.phase"]), len(byName["soakd.stage"]))
	}
	attrs := func(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
		m := map[attribute.Key]attribute.Value{}
		for _, kv := range s.Attributes() {
			m[kv.Key] = kv.Value
		}
		return m
	}
	run := byName["soakd.run"][0]
	ra := attrs(run)
	if ra["soakd.scenario"].AsString() != "traced" || ra["soakd.target.kind"].AsString() != "embedded" || !ra["soakd.slo.passed"].AsBool() {
		t.Errorf("run attributes %v", ra)
	}
	for _, p := range byName["soakd.phase"] {
		if p.Parent().SpanID() != run.SpanContext().SpanID() {
			t.Errorf("phase %s not a child of run", p.Name())
		}
		pa := attrs(p)
		if pa["soakd.phase"].AsString() == "warm" {
			if pa["soakd.target_rate"].AsFloat64() != 200 || pa["soakd.completed"].AsInt64() != 200 || !pa["soakd.slo.passed"].AsBool() {
				t.Errorf("warm phase attributes %v", pa)
			}
		}
	}
	var ramp sdktrace.ReadOnlySpan
	for _, p := range byName["soakd.phase"] {
		if attrs(p)["soakd.phase"].AsString() == "ramp" {
			ramp = p
		}
	}
	for i, s := range byName["soakd.stage"] {
		sa := attrs(s)
		if s.Parent().SpanID() != ramp.SpanContext().SpanID() {
			t.Errorf("stage %d not a child of the ramp phase", i)
		}
		want := []float64{100, 300}[sa["soakd.stage.index"].AsInt64()-1]
		if sa["soakd.target_rate"].AsFloat64() != want || sa["soakd.completed"].AsInt64() != int64(want) {
			t.Errorf("stage attributes %v, want rate/completed %g", sa, want)
		}
	}
}

// TestSpansForGrowthStagesAndCapacityProbes: growth stages and capacity
// probes are soakd.stage spans under their phase, with their figures.
func TestSpansForGrowthStagesAndCapacityProbes(t *testing.T) {
	sc := scenario(t, `
name: traced-growth
keyspace: {records: 100000}
record: {fields: 1, field_bytes: 32}
phases:
  - {name: grow, kind: growth, concurrency: 2, mix: {get: 90, set: 10}, growth: {batch: 500, measure_rate: 300, measure_for: 300ms, stop_records: 1000}}
  - {name: cap, kind: capacity, concurrency: 2, mix: {get: 100}, capacity: {start: 200, factor: 2, max: 400, step_duration: 300ms, precision: 0.5}}
`)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tg, err := targets.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sum, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: "embedded", OutDir: t.TempDir(), Tracer: tp.Tracer("test")})
	if err != nil {
		t.Fatal(err)
	}
	phases := map[string]sdktrace.ReadOnlySpan{}
	var stages []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		switch s.Name() {
		case "soakd.phase":
			for _, kv := range s.Attributes() {
				if kv.Key == "soakd.phase" {
					phases[kv.Value.AsString()] = s
				}
			}
		case "soakd.stage":
			stages = append(stages, s)
		}
	}
	want := len(sum.Phases[0].Stages) + len(sum.Phases[1].Stages)
	if len(sum.Phases[0].Stages) != 2 || len(stages) != want {
		t.Fatalf("%d stage spans, want %d (growth %d, capacity %d)", len(stages), want, len(sum.Phases[0].Stages), len(sum.Phases[1].Stages))
	}
	for _, s := range stages {
		a := map[attribute.Key]attribute.Value{}
		for _, kv := range s.Attributes() {
			a[kv.Key] = kv.Value
		}
		name := a["soakd.stage"].AsString()
		switch {
		case strings.HasPrefix(name, "stage-"):
			i := a["soakd.stage.index"].AsInt64()
			if s.Parent().SpanID() != phases["grow"].SpanContext().SpanID() || a["soakd.records"].AsInt64() != 500*i || a["soakd.completed"].AsInt64() == 0 {
				t.Errorf("growth stage span %s: %v", name, a)
			}
		case strings.HasPrefix(name, "probe-"):
			if s.Parent().SpanID() != phases["cap"].SpanContext().SpanID() || !a["soakd.probe.passed"].AsBool() && a["soakd.probe.passed"].Type() != attribute.BOOL {
				t.Errorf("capacity probe span %s: %v", name, a)
			}
		default:
			t.Errorf("stage span %q", name)
		}
	}
}
