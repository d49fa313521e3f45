package suggest

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"duration", "rate", "warmup", "concurrency", "mix"}
	for _, c := range []struct{ in, want string }{
		{"duraton", "duration"},   // one letter left out
		{"durration", "duration"}, // one doubled
		{"Rate", "rate"},          // case is not a match
		{"rtae", "rate"},          // a swap is one edit
		{"rtea", ""},              // two edits in four letters: too far
		{"concurency", "concurrency"},
		{"frobs", ""}, // nothing near
		{"rate", ""},  // known: no hint
		{"mx", "mix"},
		{"ra", ""}, // two edits from rate, but only two letters long
	} {
		if got := Closest(c.in, names); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	kinds := []string{"load", "steady", "ramp", "capacity", "growth", "sweep", "replay"}
	for _, c := range []struct{ in, want string }{
		{"stedy", "steady"},
		{"soak", ""}, // two from load, but a soak is not a load
		{"swep", "sweep"},
		{"capcaity", "capacity"},
	} {
		if got := Closest(c.in, kinds); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		a, b string
		d    int
	}{{"kitten", "sitting", 3}, {"setps", "steps", 1}, {"", "abc", 3}, {"abc", "", 3}, {"ab", "ba", 1}} {
		if d := Distance(c.a, c.b); d != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
}
