package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// TestParseSuggests: an unknown key (at the top, in a nested mapping, in
// a phase, in a kind's own keys) or an unknown kind names the closest
// known one; a value like 5k where a number goes says what to write.
func TestParseSuggests(t *testing.T) {
	src := `name: t
keyspace:
  recods: 1000
phases:
  - name: a
    kind: stedy
    duraton: 10s
    mix: {get: 100}
  - name: b
    kind: steady
    rate: 5k
    duration: 10s
    mix: {get: 100}
  - name: c
    kind: ramp
    rate: 100
    to: 2.5k
    setps: 4
    duration: 10s
    mix: {get: 100}
  - name: d
    kind: steady
    rate: fast
    duration: 10s
    mix: {get: 100}
slo:
  max_droped_ratio: 0.1
`
	_, err := Parse("t.yaml", []byte(src))
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("want problems, got %v", err)
	}
	for _, c := range []struct {
		line  int
		field string
		sub   string
	}{
		{3, "", `unknown key "recods" in keyspace (did you mean "records"?)`},
		{6, "phases[0].kind", `unknown phase kind "stedy" (did you mean "steady"?)`},
		{7, "", `unknown key "duraton" in phase (did you mean "duration"?)`},
		{11, "", "phases[1].rate: 5k is not a number; write 5000"},
		{17, "", "phases[2].to: 2.5k is not a number; write 2500"},
		{18, "", `(did you mean "steps"?)`},
		{23, "", "phases[3].rate: fast is not a number"},
		{27, "", `(did you mean "max_dropped_ratio"?)`},
	} {
		if !hasProblem(ps, c.line, c.field, c.sub) {
			t.Errorf("no problem on line %d (field %q) with %q in:\n%v", c.line, c.field, c.sub, ps)
		}
	}
	for _, p := range ps {
		if strings.Contains(p.Msg, "!!str") || strings.Contains(p.Msg, "float64") {
			t.Errorf("Go's words in %q", p.Error())
		}
	}
}

func TestReadNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"5k", 5000, true}, {"1.5M", 1.5e6, true}, {"20,000", 20000, true}, {"100/s", 100, true},
		{"2g", 2e9, true}, {"fast", 0, false}, {"k", 0, false}, {"", 0, false},
	} {
		got, ok := readNumber(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("readNumber(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if got := notANumber("1.5k", false); got != "1.5k is not a number; write 1500" {
		t.Errorf("notANumber(1.5k, whole) = %q", got)
	}
	if got := notANumber("1.5", false); got != "1.5 is not a number" {
		// yaml.v3 reads 1.5 as a number; a whole-number field would
		// say so in its own words, never suggest "write 1.5".
		t.Errorf("notANumber(1.5, whole) = %q", got)
	}
}

// TestDecodeStrictSuggests: another file read strictly (the daemon's
// config) gets the same hints, for its own keys.
func TestDecodeStrictSuggests(t *testing.T) {
	type limits struct {
		MaxQueued int `yaml:"max_queued"`
	}
	type config struct {
		MaxConcurrent int    `yaml:"max_concurrent"`
		Listen        string `yaml:"listen"`
		Limits        limits `yaml:"limits"`
	}
	var c config
	_, ps, _ := DecodeStrict("c.yaml", []byte("max_concurent: 3\nlisten: x\nlimits: {max_queud: 1}\nmax_concurrent: 5k\n"), &c, "config")
	for _, want := range []struct {
		line int
		sub  string
	}{
		{1, `unknown key "max_concurent" in config (did you mean "max_concurrent"?)`},
		{3, `unknown key "max_queud" in limits (did you mean "max_queued"?)`},
		{4, "max_concurrent: 5k is not a number; write 5000"},
	} {
		if !hasProblem(ps, want.line, "", want.sub) {
			t.Errorf("no problem on line %d with %q in:\n%v", want.line, want.sub, ps)
		}
	}
}
