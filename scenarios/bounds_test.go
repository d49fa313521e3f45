package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// parseWithin parses src (with stores like soakd's own) and fails the test when parsing takes longer
// than limit: a hang or a quadratic blow-up, not a latency figure (the
// limits are generous so a busy 2-core machine still passes).
func parseWithin(t *testing.T, limit time.Duration, src []byte) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := ParseWith("s.yaml", src, likeBuiltins)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("Parse did not return within %s", limit)
		return nil
	}
}

func TestBoundsRefused(t *testing.T) {
	steady := func(extra string) string {
		return "phases:\n  - kind: steady\n    duration: 1s\n    mix: {read: 100}\n" + extra
	}
	for _, c := range []struct {
		name, src, field, sub string
		line                  int
	}{
		{"rate 1e12", steady("    rate: 1e12\n"), "phases[0].rate", "10000000", 5},
		{"rate 1e308", steady("    rate: 1e308\n"), "phases[0].rate", "10000000", 5},
		{"concurrency 0", steady("    concurrency: 0\n"), "phases[0].concurrency", "at least 1", 5},
		{"concurrency 100000", steady("    concurrency: 100000\n"), "phases[0].concurrency", "10000", 5},
		{"negative mix", "phases:\n  - kind: steady\n    duration: 1s\n    mix: {read: 150, update: -50}\n", "phases[0].mix.update", "non-negative", 4},
		{"records 1e15", "keyspace:\n  records: 1000000000000000\n" + steady(""), "keyspace.records", "10000000000", 2},
		{"load records", "keyspace: {records: 100}\nphases:\n  - kind: load\n    records: -3\n", "phases[0].records", "at least 1", 4},
		{"ramp absorbed", "phases:\n  - kind: ramp\n    mix: {read: 100}\n    from: 1e17\n    to: 1e17\n    step: 1\n    step_duration: 1s\n", "phases[0].from", "10000000", 4},
		{"ramp too many steps", "phases:\n  - kind: ramp\n    mix: {read: 100}\n    from: 1\n    to: 1000000\n    step: 1\n    step_duration: 1s\n", "phases[0].step", "steps", 6},
		{"ramp tiny step", "phases:\n  - kind: ramp\n    mix: {read: 100}\n    from: 1\n    to: 2\n    step: 1e-300\n    step_duration: 1s\n", "phases[0].step", "steps", 6},
		{"ramp step rate", "phases:\n  - kind: ramp\n    mix: {read: 100}\n    steps: [{rate: 1e9, duration: 1s}]\n", "phases[0].steps[0].rate", "10000000", 4},
		{"capacity max", "phases:\n  - kind: capacity\n    mix: {read: 100}\n    capacity: {start: 10, max: 1e12}\n", "phases[0].capacity.max", "10000000", 4},
		{"capacity start", "phases:\n  - kind: capacity\n    mix: {read: 100}\n    capacity: {start: 1e12}\n", "phases[0].capacity.start", "10000000", 4},
		{"growth measure_rate", "phases:\n  - kind: growth\n    mix: {read: 100}\n    growth: {batch: 10, measure_for: 1s, measure_rate: 1e12}\n", "phases[0].growth.measure_rate", "10000000", 4},
		{"growth batch", "phases:\n  - kind: growth\n    mix: {read: 100}\n    growth: {batch: 1000000000000000, measure_for: 1s}\n", "phases[0].growth.batch", "10000000000", 4},
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

func TestConcurrencyOmittedIsDefault(t *testing.T) {
	sc, err := Parse("s.yaml", []byte("phases:\n  - {kind: steady, duration: 1s, mix: {read: 100}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Phases[0].Concurrency != DefaultConcurrency {
		t.Fatalf("concurrency %d, want the default %d", sc.Phases[0].Concurrency, DefaultConcurrency)
	}
}

func TestRampFromToStepExpandsArithmetically(t *testing.T) {
	sc, err := Parse("s.yaml", []byte("phases:\n  - {kind: ramp, mix: {read: 100}, from: 0.1, to: 0.3, step: 0.1, step_duration: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sc.Phases[0].Ramp.Steps {
		got = append(got, fmt.Sprintf("%.3g", s.Rate))
	}
	if strings.Join(got, " ") != "0.1 0.2 0.3" {
		t.Fatalf("steps %v, want 0.1 0.2 0.3", got)
	}
	sc, err = Parse("s.yaml", []byte(fmt.Sprintf("phases:\n  - {kind: ramp, mix: {read: 100}, from: 1, to: %d, step: 1, step_duration: 1s}\n", MaxRampSteps)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sc.Phases[0].Ramp.Steps); n != MaxRampSteps {
		t.Fatalf("%d steps, want %d", n, MaxRampSteps)
	}
}

// TestParseIsLinear: yaml.v3 checks a mapping's keys for duplicates
// pairwise, so 2.7 MB of keys in one mapping took 120 s. Wide mappings
// are refused before that check runs.
func TestParseIsLinear(t *testing.T) {
	// 3 MB of keys is refused by its token count before any decoding;
	// 20,000 keys (under the token cap) by the mapping's width.
	for _, c := range []struct {
		keys func(i int, b *strings.Builder) bool
		want string
	}{
		{func(_ int, b *strings.Builder) bool { return b.Len() < 3<<20 }, "YAML tokens"},
		{func(i int, _ *strings.Builder) bool { return i < 20_000 }, "keys"},
	} {
		var b strings.Builder
		b.WriteString("phases:\n  - {kind: steady, duration: 1s, mix: {read: 100}}\nkeyspace:\n")
		for i := 0; c.keys(i, &b); i++ {
			fmt.Fprintf(&b, "  k%d: 1\n", i)
		}
		// Linear: well under a second here (a few seconds under -race on a
		// busy machine); quadratic: minutes. 30 s tells them apart.
		err := parseWithin(t, 30*time.Second, []byte(b.String()))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("want a %q problem, got %v", c.want, err)
		}
		if n := strings.Count(err.Error(), "\n"); n > 10 {
			t.Fatalf("%d problem lines for one wide mapping", n)
		}
	}
}

func TestLoadFileSizeCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.yaml")
	data := []byte("name: x\n" + strings.Repeat("# padding padding padding\n", MaxFileBytes/26+10))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadFile(p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("want a size error naming %s, got %v", p, err)
	}
}
