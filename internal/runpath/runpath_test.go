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
