package runpath

import (
	"fmt"
	"net/url"
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
		if n < 1 {
			// 0 is "no override" inside Overrides; given, it is a
			// mistake, as in the scenario file.
			return Overrides{}, &OverrideError{c.name, " " + c.text + ": give at least 1, or leave it out to keep the scenario's"}
		}
		*c.to = n
	}
	if t.Target != "" {
		if err := noPasswordInURL(t.Target); err != nil {
			return Overrides{}, &OverrideError{"target", ": " + err.Error()}
		}
	}
	return o, nil
}

// noPasswordInURL refuses a target URL that carries a password in its
// query (?password=...): the stores' drivers read some of those, the
// daemon would keep it in the run's history, and none is needed, as
// credentials come from the environment variables target.auth names.
func noPasswordInURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return nil // the target's own check names a malformed URL
	}
	for k := range u.Query() {
		switch strings.ToLower(k) {
		case "password", "pass", "pwd", "passwd", "secret", "api_key", "apikey", "token", "authsource_password":
			return fmt.Errorf("the URL's query carries %s: put credentials in the environment variables target.auth names", k)
		}
	}
	return nil
}
