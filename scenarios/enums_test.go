package scenarios

import (
	"strings"
	"testing"
)

func TestEnumsParse(t *testing.T) {
	for _, k := range PhaseKinds() {
		if got, err := ParsePhaseKind(string(k)); err != nil || got != k {
			t.Errorf("ParsePhaseKind(%q) = %q, %v", k, got, err)
		}
	}
	for _, d := range Distributions() {
		if got, err := ParseDistribution(string(d)); err != nil || got != d {
			t.Errorf("ParseDistribution(%q) = %q, %v", d, got, err)
		}
	}
	if _, err := ParsePhaseKind("Steady"); err == nil || err.Error() != `unknown phase kind "Steady" (use load, steady, ramp, capacity, growth, sweep or replay)` {
		t.Errorf("ParsePhaseKind(Steady): %v", err)
	}
	if _, err := ParseDistribution(""); err == nil {
		t.Error("ParseDistribution(\"\") accepted")
	}
	if PhaseKind("").Valid() || Distribution("zipf").Valid() {
		t.Error("Valid accepts a value outside the enum")
	}
}

func TestEnumsInValidate(t *testing.T) {
	_, err := Parse("bad.yaml", []byte(`
name: bad
keyspace: {records: 10, distribution: zipf}
phases:
  - {name: a, kind: soak, rate: 10, duration: 1s, mix: {read: 100}}
`))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`unknown distribution "zipf" (use uniform, zipfian, hotspot or latest)`,
		`unknown phase kind "soak" (use load, steady, ramp, capacity, growth, sweep or replay)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestTargetKindParse(t *testing.T) {
	for _, k := range TargetKinds() {
		if got, err := ParseTargetKind(string(k)); err != nil || got != k {
			t.Errorf("ParseTargetKind(%q) = %q, %v", k, got, err)
		}
	}
	if _, err := ParseTargetKind("postgres"); err == nil || err.Error() != `unknown target kind "postgres" (use embedded, redis, mongo, elastic or cql (aliases scylla, cassandra))` {
		t.Errorf("ParseTargetKind(postgres): %v", err)
	}
	if TargetKind("").Valid() || TargetKind("Redis").Valid() {
		t.Error("Valid accepts a value outside the enum")
	}
	for _, k := range []TargetKind{KindScylla, KindCassandra, KindCQL} {
		if CanonicalKind(k) != KindCQL {
			t.Errorf("CanonicalKind(%s) = %s", k, CanonicalKind(k))
		}
	}
	_, err := Parse("bad.yaml", []byte(`
name: bad
target: {kind: postgres}
phases:
  - {name: a, kind: steady, rate: 10, duration: 1s, mix: {read: 100}}
`))
	if err == nil || !strings.Contains(err.Error(), `target.kind`) || !strings.Contains(err.Error(), `unknown target kind "postgres" (use embedded, redis, mongo, elastic or cql (aliases scylla, cassandra))`) {
		t.Errorf("kind postgres: %v", err)
	}
}
