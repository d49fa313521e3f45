package runpath

import (
	"fmt"
	"strconv"

	"github.com/soakd/soakd/internal/term"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// Overrides change a scenario for one run: --target/--rate/--duration/
// --seed on the command line, a schedule's or API request's target in
// the daemon. Zero fields change nothing.
type Overrides struct {
	Target   string   // URL; the kind follows from its scheme; merged into the scenario's (MergeTargetURL)
	Rate     *float64 // every non-load phase's rate
	Duration string   // every steady phase's duration
	Warmup   string   // every steady phase's warmup
	// Tick is every open-loop phase's tick (scenarios/tick.go); "0s"
	// sends each op at its own instant again.
	Tick    string
	Records string // keyspace.records, and load phases' records
	// Concurrency is every phase's workers (0: unchanged).
	Concurrency int
	Seed        string
	// Repeat is the scenario's repeat: (0: unchanged).
	Repeat int
	// Note is told of an adjustment an override made (a warmup not
	// shorter than the new duration); nil: none.
	Note func(string)
}

// OverrideError is an override value that is wrong in itself; Name is
// the override ("target", "rate", ...), without a flag's dashes.
type OverrideError struct {
	Name string
	Msg  string
}

func (e *OverrideError) Error() string { return e.Name + e.Msg }

// Apply applies o to sc and validates the result. An override value
// that is wrong in itself is an *OverrideError; otherwise the scenario's
// problems after the overrides are returned (none: ready to run). The
// daemon checks schedule and soak targets with it at config load, and
// every run with it again.
func Apply(sc *scenarios.Scenario, o Overrides) ([]scenarios.FieldError, error) {
	if o.Target != "" {
		stores := storesOf(sc)
		kind := scenarios.KindOfURL(stores, o.Target)
		if kind == "" {
			return nil, &OverrideError{"target", " " + scenarios.RedactURL(o.Target) + ": unknown URL scheme (use " + scenarios.SchemeHint(stores) + ")"}
		}
		if st, ok := stores.Store(sc.Target.Kind); !ok || st.Kind != kind {
			sc.Target.Kind = kind // an alias (scylla, cassandra) naming the same adapter stays
		}
		sc.Target.URL = MergeTargetURL(stores, sc.Target.URL, o.Target)
	}
	if o.Rate != nil {
		if err := scenarios.CheckRate(*o.Rate, true); err != nil {
			return nil, &OverrideError{"rate", fmt.Sprintf(" %v: %v", *o.Rate, err)}
		}
		for i := range sc.Phases {
			if ph := &sc.Phases[i]; ph.TakesRateOverride() {
				ph.Rate = *o.Rate
			}
		}
	}
	if o.Duration != "" {
		d, err := scenarios.ParseDuration(o.Duration)
		switch {
		case err != nil:
			return nil, &OverrideError{"duration", fmt.Sprintf(" %s: %s", o.Duration, DurationHint(o.Duration))}
		case d <= 0:
			return nil, &OverrideError{"duration", fmt.Sprintf(" %s: not a positive duration (use a duration like 30s)", o.Duration)}
		}
		for i := range sc.Phases {
			if ph := &sc.Phases[i]; ph.TakesDurationOverride() {
				ph.Duration = d
				if o.Warmup == "" && ph.Warmup >= d {
					// A shorter try of a shipped scenario: keep a fifth
					// of it as warmup instead of refusing it.
					w := d / 5
					if o.Note != nil {
						o.Note(fmt.Sprintf("phase %s: warmup %s is not shorter than --duration %s; using warmup %s (set --warmup to choose)", ph.Name, term.Duration(ph.Warmup.D()), term.Duration(d.D()), term.Duration(w.D())))
					}
					ph.Warmup = w
				}
			}
		}
	}
	if o.Warmup != "" {
		d, err := scenarios.ParseDuration(o.Warmup)
		switch {
		case err != nil:
			return nil, &OverrideError{"warmup", fmt.Sprintf(" %s: %s", o.Warmup, DurationHint(o.Warmup))}
		case d < 0:
			return nil, &OverrideError{"warmup", fmt.Sprintf(" %s: negative (use a duration like 0s or 5s)", o.Warmup)}
		}
		for i := range sc.Phases {
			if ph := &sc.Phases[i]; ph.TakesDurationOverride() {
				ph.Warmup = d
			}
		}
	}
	if o.Tick != "" {
		d, err := scenarios.ParseDuration(o.Tick)
		switch {
		case err != nil:
			return nil, &OverrideError{"tick", fmt.Sprintf(" %s: %s", o.Tick, DurationHint(o.Tick))}
		case d != 0 && (d < scenarios.MinTick || d > scenarios.MaxTick):
			return nil, &OverrideError{"tick", fmt.Sprintf(" %s: use %s to %s (0s: each op at its own instant)", o.Tick, scenarios.MinTick, scenarios.MaxTick)}
		}
		for i := range sc.Phases {
			if ph := &sc.Phases[i]; ph.TakesTick() {
				ph.Tick = d
			}
		}
	}
	if o.Records != "" {
		n, err := strconv.ParseInt(o.Records, 10, 64)
		if err != nil || n <= 0 {
			return nil, &OverrideError{"records", fmt.Sprintf(" %s: use a positive whole number like 10000", o.Records)}
		}
		for i := range sc.Phases {
			sc.Phases[i].OverrideRecords(n, sc.Keyspace.Records)
		}
		sc.Keyspace.Records = n
	}
	if o.Concurrency != 0 {
		if o.Concurrency < 0 || o.Concurrency > scenarios.MaxConcurrency {
			return nil, &OverrideError{"concurrency", fmt.Sprintf(" %d: use a whole number in 1..%d", o.Concurrency, scenarios.MaxConcurrency)}
		}
		for i := range sc.Phases {
			sc.Phases[i].Concurrency = o.Concurrency
		}
	}
	if o.Seed != "" {
		seed, err := strconv.ParseInt(o.Seed, 10, 64)
		if err != nil {
			return nil, &OverrideError{"seed", fmt.Sprintf(" %s: use a whole number like 42", o.Seed)}
		}
		sc.Seed = seed
	}
	if o.Repeat != 0 {
		if o.Repeat < 1 || o.Repeat > scenarios.MaxRepeat {
			return nil, &OverrideError{"repeat", fmt.Sprintf(" %d: use a whole number in 1..%d", o.Repeat, scenarios.MaxRepeat)}
		}
		sc.Repeat = o.Repeat
	}
	return sc.Validate(), nil
}

// storesOf is the store registry sc was read with, else the adapters
// registered in this binary (a scenario read with plain Parse or built
// in code): what a --target URL's scheme selects.
func storesOf(sc *scenarios.Scenario) scenarios.Stores {
	if st := sc.Stores(); st != nil {
		return st
	}
	return targets.Stores()
}
