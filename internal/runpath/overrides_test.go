package runpath

import (
	"errors"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
)

const base = `name: t
keyspace: {records: 100}
phases:
  - {name: load, kind: load}
  - {name: steady, kind: steady, rate: 100, duration: 1s, mix: {get: 100}}
`

func TestApply(t *testing.T) {
	rate := 250.0
	bad := -1.0
	for _, tc := range []struct {
		name    string
		o       Overrides
		errName string // an *OverrideError for this override
		problem string // else a scenario problem containing this
		check   func(*scenarios.Scenario) bool
	}{
		{name: "none", check: func(sc *scenarios.Scenario) bool { return sc.Target.Kind == "embedded" }},
		{name: "target", o: Overrides{Target: "redis://db:6379"}, check: func(sc *scenarios.Scenario) bool {
			return sc.Target.Kind == "redis" && sc.Target.URL == "redis://db:6379"
		}},
		{name: "target scheme", o: Overrides{Target: "ftp://u:pw@x"}, errName: "target"},
		{name: "target password", o: Overrides{Target: "redis://u:pw@db:6379"}, problem: "password"},
		{name: "rate", o: Overrides{Rate: &rate}, check: func(sc *scenarios.Scenario) bool {
			return sc.Phases[0].Rate == 0 && sc.Phases[1].Rate == 250
		}},
		{name: "bad rate", o: Overrides{Rate: &bad}, errName: "rate"},
		{name: "duration", o: Overrides{Duration: "3s"}, check: func(sc *scenarios.Scenario) bool { return sc.Phases[1].Duration.D().Seconds() == 3 }},
		{name: "bad duration", o: Overrides{Duration: "soon"}, errName: "duration"},
		{name: "tick", o: Overrides{Tick: "20ms"}, check: func(sc *scenarios.Scenario) bool {
			// The load phase runs closed loop: only the steady phase ticks.
			return sc.Phases[0].Tick == 0 && sc.Phases[1].Tick.D().Milliseconds() == 20
		}},
		{name: "tick off", o: Overrides{Tick: "0s"}, check: func(sc *scenarios.Scenario) bool { return sc.Phases[1].Tick == 0 }},
		{name: "bad tick", o: Overrides{Tick: "fast"}, errName: "tick"},
		{name: "tick too short", o: Overrides{Tick: "100us"}, errName: "tick"},
		{name: "tick too long", o: Overrides{Tick: "5s"}, errName: "tick"},
		{name: "seed", o: Overrides{Seed: "42"}, check: func(sc *scenarios.Scenario) bool { return sc.Seed == 42 }},
		{name: "bad seed", o: Overrides{Seed: "x"}, errName: "seed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenarios.Parse("t.yaml", []byte(base))
			if err != nil {
				t.Fatal(err)
			}
			fes, err := Apply(sc, tc.o)
			var oe *OverrideError
			switch {
			case tc.errName != "":
				if !errors.As(err, &oe) || oe.Name != tc.errName {
					t.Fatalf("err %v, want an override error on %s", err, tc.errName)
				}
				if strings.Contains(err.Error(), ":pw@") {
					t.Errorf("password in %v", err)
				}
			case tc.problem != "":
				if err != nil || len(fes) == 0 || !strings.Contains(fes[0].Error(), tc.problem) {
					t.Fatalf("problems %v err %v, want %q", fes, err, tc.problem)
				}
			default:
				if err != nil || len(fes) > 0 || !tc.check(sc) {
					t.Fatalf("err %v problems %v scenario %+v", err, fes, sc)
				}
			}
		})
	}
}

// TestApplySweeps: --duration and --warmup set each sweep point's (not
// a capacity sweep's, whose probes last step_duration); --rate sets a
// sweep's rate only where every point runs at the phase's rate.
func TestApplySweeps(t *testing.T) {
	sc, err := scenarios.Parse("s.yaml", []byte(`name: s
keyspace: {records: 100}
phases:
  - {name: closed, kind: sweep, duration: 1m, warmup: 10s, mix: {get: 100}, sweep: {over: concurrency, points: [{concurrency: 1}]}}
  - {name: open, kind: sweep, rate: 100, duration: 1m, mix: {get: 100}, sweep: {over: concurrency, points: [{concurrency: 1}]}}
  - {name: rates, kind: sweep, duration: 1m, mix: {get: 100}, sweep: {over: rate, points: [{rate: 10}]}}
  - {name: cap, kind: sweep, mix: {get: 100}, sweep: {over: mix, measure: capacity, points: [{get: 100}]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	rate := 250.0
	var notes []string
	fes, err := Apply(sc, Overrides{Duration: "2s", Rate: &rate, Note: func(s string) { notes = append(notes, s) }})
	if err != nil || len(fes) > 0 {
		t.Fatalf("err %v problems %v", err, fes)
	}
	ph := sc.Phases
	if ph[0].Duration.D().Seconds() != 2 || ph[0].Warmup.D().Seconds() != 0.4 || ph[0].Rate != 0 {
		t.Errorf("closed sweep: duration %s warmup %s rate %v", ph[0].Duration, ph[0].Warmup, ph[0].Rate)
	}
	if ph[1].Rate != 250 || ph[2].Rate != 0 || ph[2].Duration.D().Seconds() != 2 {
		t.Errorf("open sweep rate %v; rate sweep rate %v duration %s", ph[1].Rate, ph[2].Rate, ph[2].Duration)
	}
	if ph[3].Duration != 0 || ph[3].Rate != 0 {
		t.Errorf("capacity sweep: duration %s rate %v", ph[3].Duration, ph[3].Rate)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "phase closed") {
		t.Errorf("notes %q", notes)
	}
}

// TestTextParse: overrides as text (an API request) parse as the
// command line's flags do, and Apply checks them the same way.
func TestTextParse(t *testing.T) {
	for _, tc := range []struct {
		text    Text
		errName string
		msg     string
	}{
		{text: Text{Rate: "5k"}, errName: "rate", msg: "rate 5k: use a number like 5000"},
		{text: Text{Concurrency: "many"}, errName: "concurrency", msg: "concurrency many: use a whole number like 32"},
		{text: Text{Repeat: "2.5"}, errName: "repeat", msg: "repeat 2.5: use a whole number like 5"},
		{text: Text{Duration: "30"}, errName: "duration", msg: "duration 30: add a unit: 30s"},
		{text: Text{Warmup: "5"}, errName: "warmup", msg: "warmup 5: add a unit: 5s"},
		{text: Text{Rate: "-3"}, errName: "rate", msg: "rate -3: "},
		{text: Text{Concurrency: "100000000"}, errName: "concurrency", msg: "concurrency 100000000: use a whole number in 1.."},
		{text: Text{Records: "1e4"}, errName: "records", msg: "records 1e4: use a positive whole number"},
		{text: Text{Rate: "250", Duration: "3s", Warmup: "0s", Records: "50", Concurrency: "3", Seed: "9", Repeat: "2"}},
	} {
		sc, err := scenarios.Parse("t.yaml", []byte(base))
		if err != nil {
			t.Fatal(err)
		}
		o, err := tc.text.Parse()
		if err == nil {
			var fes []scenarios.FieldError
			fes, err = Apply(sc, o)
			if err == nil && len(fes) > 0 {
				t.Errorf("%+v: problems %v", tc.text, fes)
			}
		}
		var oe *OverrideError
		switch {
		case tc.errName == "" && err != nil:
			t.Errorf("%+v: %v", tc.text, err)
		case tc.errName == "":
			if st := sc.Phases[1]; st.Rate != 250 || st.Duration.D().Seconds() != 3 || st.Warmup != 0 || st.Concurrency != 3 || sc.Keyspace.Records != 50 || sc.Seed != 9 || sc.Repeat != 2 {
				t.Errorf("overrides not applied: %+v seed %d repeat %d", st, sc.Seed, sc.Repeat)
			}
		case !errors.As(err, &oe) || oe.Name != tc.errName || !strings.HasPrefix(err.Error(), tc.msg):
			t.Errorf("%+v: err %v, want an override error on %s starting %q", tc.text, err, tc.errName, tc.msg)
		}
	}
}
