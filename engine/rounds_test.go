package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// variantTarget is one persistence variant's fake server: it answers at
// once and counts the ops it was sent.
type variantTarget struct {
	name   string
	mu     sync.Mutex
	ops    int64
	closed bool
}

func (t *variantTarget) Do(ctx context.Context, r *targets.Request) error {
	t.mu.Lock()
	t.ops++
	t.mu.Unlock()
	return nil
}

func (t *variantTarget) Close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return nil
}

// runRepeated runs sc with persistence variants a and b (a on the run's
// target, b from Reopen) and returns the phases in the order they ran.
func runRepeated(t *testing.T, sc *scenarios.Scenario) ([]string, *rundir.Summary, map[string]*variantTarget) {
	t.Helper()
	sc.Target.Managed = &scenarios.Managed{Persistences: []string{"a", "b"}}
	tgs := map[string]*variantTarget{"a": {name: "a"}}
	sum, err := Run(context.Background(), Options{Scenario: sc, Target: tgs["a"], TargetKind: "redis", OutDir: t.TempDir(),
		Reopen: func(p string) (targets.Target, error) {
			if tgs[p] != nil {
				return nil, fmt.Errorf("variant %s opened twice", p)
			}
			tgs[p] = &variantTarget{name: p}
			return tgs[p], nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range sum.Phases {
		names = append(names, p.Name)
	}
	return names, sum, tgs
}

const repeatScenario = `
keyspace: {records: 100}
repeat: 3
phases:
  - {name: load, kind: load, concurrency: 2}
  - {name: s, kind: steady, requests: 301, concurrency: 2, mix: {read: 100}}
`

// TestRepeatAlternateRounds: interleave: alternate runs every round of
// a steady phase as A then B (ABABAB), a load phase once per variant;
// each round runs its share of the requests on its own variant's
// server, and the rounds add up to the phase's requests.
func TestRepeatAlternateRounds(t *testing.T) {
	t.Parallel()
	sc := scenario(t, repeatScenario+"interleave: alternate\n")
	names, sum, tgs := runRepeated(t, sc)
	want := []string{"load[a]", "load[b]", "s[a]#1", "s[b]#1", "s[a]#2", "s[b]#2", "s[a]#3", "s[b]#3"}
	if !slices.Equal(names, want) {
		t.Fatalf("order %v, want %v", names, want)
	}
	var total int64
	for _, p := range sum.Phases[2:] {
		wantN := int64(100)
		if p.Repeat == 1 {
			wantN = 101 // 301 = 101 + 100 + 100
		}
		if p.Completed != wantN || p.Repeat < 1 || p.Variant == "" {
			t.Errorf("%s: completed %d (want %d), repeat %d, variant %q", p.Name, p.Completed, wantN, p.Repeat, p.Variant)
		}
		if p.Variant == "a" {
			total += p.Completed
		}
	}
	if total != 301 {
		t.Errorf("variant a ran %d requests over its rounds, want 301", total)
	}
	for _, v := range []string{"a", "b"} {
		if tgs[v].ops != 100+301 {
			t.Errorf("server %s was sent %d ops, want 401 (its load and its rounds only)", v, tgs[v].ops)
		}
	}
	if !tgs["b"].closed || tgs["a"].closed {
		t.Errorf("closed: a %v (the caller's), b %v (the run's own)", tgs["a"].closed, tgs["b"].closed)
	}
}

// TestRepeatRandomOrderSeeded: interleave: random (the default) gives
// every round each variant once, in an order that is the same for the
// same seed, and not the same in every round for this one.
func TestRepeatRandomOrderSeeded(t *testing.T) {
	t.Parallel()
	src := strings.Replace(repeatScenario, "repeat: 3", "repeat: 6\nseed: 7", 1)
	first, _, _ := runRepeated(t, scenario(t, src))
	again, _, _ := runRepeated(t, scenario(t, src))
	if !slices.Equal(first, again) {
		t.Fatalf("same seed, different orders:\n%v\n%v", first, again)
	}
	var rounds []string
	for r := 1; r <= 6; r++ {
		var in []string
		for _, n := range first {
			if strings.HasSuffix(n, fmt.Sprintf("#%d", r)) {
				in = append(in, n)
			}
		}
		if len(in) != 2 || in[0][2] == in[1][2] {
			t.Fatalf("round %d ran %v, want each variant once", r, in)
		}
		rounds = append(rounds, in[0][:4])
	}
	if !slices.Contains(rounds, "s[a]") || !slices.Contains(rounds, "s[b]") {
		t.Errorf("every round started with the same variant: %v", rounds)
	}
	// The order is drawn from the seed alone.
	o := NewRoundOrder("", 7)
	if !slices.Equal(o.Order(5, 1, 2, 0), NewRoundOrder(scenarios.InterleaveRandom, 7).Order(5, 1, 2, 0)) {
		t.Error("random order not reproducible")
	}
}

// TestRepeatSweep: a throughput sweep with repeat: 2 runs every round's
// points (in a seeded order) for each variant, each point a half of its
// requests, and lists them as the scenario does.
func TestRepeatSweep(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 100}
repeat: 2
seed: 3
phases:
  - name: sw
    kind: sweep
    requests: 200
    concurrency: 2
    mix: {read: 100}
    sweep:
      over: concurrency
      points: [{concurrency: 1}, {concurrency: 2}, {concurrency: 3}]
`)
	names, sum, _ := runRepeated(t, sc)
	if len(names) != 4 {
		t.Fatalf("phases %v, want 2 rounds x 2 variants", names)
	}
	for _, p := range sum.Phases {
		if p.Sweep == nil || len(p.Sweep.Points) != 3 {
			t.Fatalf("%s: sweep %+v", p.Name, p.Sweep)
		}
		for i, pt := range p.Sweep.Points {
			if pt.Concurrency != i+1 || pt.Completed != 100 {
				t.Errorf("%s point %d: concurrency %d, %d completed (want %d, 100)", p.Name, i, pt.Concurrency, pt.Completed, i+1)
			}
		}
	}
}
