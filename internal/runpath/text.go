package runpath

import (
	"strconv"
	"strings"
)

// Text is overrides as text, as an API request sends them (a JSON
// number or string each): Parse turns them into Overrides, parsing
// each value as the command line's flag does; Apply then checks them
// all, for the API as for soakd run. Empty fields change nothing.
type Text struct {
	Target, Rate, Duration, Warmup, Tick, Records, Concurrency, Seed, Repeat string
}

// Parse returns the overrides; a value that is not of its kind is an
// *OverrideError naming it, with the CLI's hint. As on the command line,
// a concurrency or repeat of 0 changes nothing.
func (t Text) Parse() (Overrides, error) {
	o := Overrides{Target: t.Target, Duration: t.Duration, Warmup: t.Warmup, Tick: t.Tick, Records: t.Records, Seed: t.Seed}
	if t.Rate != "" {
		r, err := ParseRate(t.Rate)
		if err != nil {
			return Overrides{}, &OverrideError{"rate", " " + t.Rate + ": " + err.Error()}
		}
		o.Rate = &r
	}
	for _, c := range []struct {
		name, text, example string
		to                  *int
	}{{"concurrency", t.Concurrency, "32", &o.Concurrency}, {"repeat", t.Repeat, "5", &o.Repeat}} {
		if c.text == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(c.text))
		if err != nil {
			return Overrides{}, &OverrideError{c.name, " " + c.text + ": use a whole number like " + c.example}
		}
		*c.to = n
	}
	return o, nil
}
