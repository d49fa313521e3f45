package scenarios

import (
	"strings"
	"testing"
	"time"
)

// TestRepeatRefused: a repeat: out of bounds, a phase it cannot split
// and an unknown interleave order are refused with the field's line.
func TestRepeatRefused(t *testing.T) {
	steady := "phases:\n  - kind: steady\n    requests: 10\n    duration: 10s\n    mix: {read: 100}\n"
	for _, c := range []struct {
		name, src, field, sub string
		line                  int
	}{
		{"zero", "repeat: -1\n" + steady, "repeat", "between 1 and 100", 1},
		{"too many", "repeat: 101\n" + steady, "repeat", "between 1 and 100", 1},
		{"requests", "repeat: 20\n" + steady, "phases[0].requests", "cannot be split into 20", 4},
		{"duration", "repeat: 10\n" + strings.Replace(steady, "10s", "50ms", 1), "phases[0].duration", "under 10ms a repeat", 5},
		{"interleave", "interleave: abab\n" + steady, "interleave", `unknown order "abab"`, 1},
		{"growth with variants", "repeat: 2\ntarget: {kind: redis, managed: {persistences: [none, \"aof:everysec\"]}}\nphases:\n  - kind: growth\n    mix: {read: 100}\n    growth: {batch: 10, measure_for: 1s}\n",
			"phases[0].kind", "growth phase cannot run with repeat 2", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := parseWithin(t, 5*time.Second, []byte(c.src))
			if err == nil {
				t.Fatalf("accepted:\n%s", c.src)
			}
			ps, _ := err.(Problems)
			if !hasProblem(ps, c.line, c.field, c.sub) {
				t.Fatalf("want %d: %s: ...%s..., got:\n%v", c.line, c.field, c.sub, err)
			}
		})
	}
}

// TestRepeatSlice: the rounds split requests exactly, duration and
// warmup evenly.
func TestRepeatSlice(t *testing.T) {
	p := Phase{Kind: PhaseSteady, Requests: 10, Duration: Duration(9 * time.Second), Warmup: Duration(3 * time.Second)}
	var sum int64
	for r := range 3 {
		s := p.RepeatSlice(r, 3)
		sum += s.Requests
		if s.Duration.D() != 3*time.Second || s.Warmup.D() != time.Second {
			t.Errorf("round %d: duration %s warmup %s", r, s.Duration.D(), s.Warmup.D())
		}
	}
	if sum != 10 {
		t.Errorf("rounds ran %d requests, want 10", sum)
	}
	if sc, err := Parse("s.yaml", []byte("repeat: 5\n"+"phases:\n  - {kind: steady, requests: 10, mix: {read: 100}}\n")); err != nil || sc.Repeats() != 5 {
		t.Errorf("repeat 5 refused: %v", err)
	}
}
