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
	if _, err := ParsePhaseKind("Steady"); err == nil || err.Error() != `unknown phase kind "Steady" (did you mean "steady"?) (use load, steady, ramp, capacity, growth, sweep or replay)` {
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
