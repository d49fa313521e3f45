package verdict

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// series builds n points: level(i) plus noise(i)·sd(i), noise from a
// seeded normal stream.
func series(seed uint64, n int, level, sd func(i int) float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = level(i) + rng.NormFloat64()*sd(i)
	}
	return xs
}

func steps(at []int, levels []float64) func(int) float64 {
	return func(i int) float64 {
		k := 0
		for k < len(at) && i >= at[k] {
			k++
		}
		return levels[k]
	}
}

func constant(v float64) func(int) float64 { return func(int) float64 { return v } }

func TestDetectSyntheticSeries(t *testing.T) {
	cases := []struct {
		name  string
		xs    []float64
		want  []int // change point indexes
		slack int   // how far each may be from where it happened
		up    []bool
	}{
		{name: "step up", xs: series(1, 200, steps([]int{120}, []float64{10, 13}), constant(1)), want: []int{120}, slack: 3, up: []bool{true}},
		{name: "step down", xs: series(2, 200, steps([]int{80}, []float64{10, 7.5}), constant(1)), want: []int{80}, slack: 3, up: []bool{false}},
		{name: "up then down then up", xs: series(3, 400, steps([]int{100, 200, 300}, []float64{10, 14, 9, 12}), constant(1)),
			want: []int{100, 200, 300}, slack: 3, up: []bool{true, false, true}},
		{name: "small step in a long series", xs: series(4, 720, steps([]int{500}, []float64{10, 11}), constant(1)), want: []int{500}, slack: 10, up: []bool{true}},
		{name: "variance change", xs: series(5, 300, constant(10), steps([]int{150}, []float64{0.5, 3})), want: []int{150}, slack: 10},
		{name: "slow linear drift", xs: series(6, 300, func(i int) float64 { return 10 + 2*float64(i)/300 }, constant(1))},
		{name: "slow drift of a 12 h run at 1 min", xs: series(7, 720, func(i int) float64 { return 10 + 3*float64(i)/720 }, constant(1))},
		{name: "pure noise", xs: series(8, 300, constant(10), constant(1))},
		{name: "constant", xs: series(9, 100, constant(5), constant(0))},
		{name: "too short", xs: []float64{1, 1, 1, 9, 9, 9}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Detect(c.xs, ChangeOptions{})
			if len(got) != len(c.want) {
				t.Fatalf("found %d change points %+v, want %d at %v", len(got), got, len(c.want), c.want)
			}
			for i, cp := range got {
				if d := cp.Index - c.want[i]; d < -c.slack || d > c.slack {
					t.Errorf("change %d at %d, want %d ±%d", i, cp.Index, c.want[i], c.slack)
				}
				if cp.PValue <= 0 || cp.PValue > 0.005 {
					t.Errorf("change %d: p = %v, want in (0, 0.005]", i, cp.PValue)
				}
				if c.up != nil && (cp.After > cp.Before) != c.up[i] {
					t.Errorf("change %d: before %v after %v, want up=%v", i, cp.Before, cp.After, c.up[i])
				}
				if cp.Magnitude != cp.After-cp.Before {
					t.Errorf("change %d: magnitude %v, want %v", i, cp.Magnitude, cp.After-cp.Before)
				}
				// Only the variance change is a spread change; its
				// spread (MAD, 0.674σ) grows about sixfold.
				if cp.Spread != (c.name == "variance change") {
					t.Errorf("change %d: spread %v -> %v, level %v -> %v, Spread=%v", i, cp.BeforeSpread, cp.AfterSpread, cp.Before, cp.After, cp.Spread)
				}
				if cp.Spread && (cp.AfterSpread < 3*cp.BeforeSpread || math.Abs(cp.BeforeSpread-0.674*0.5) > 0.1) {
					t.Errorf("change %d: spread %v -> %v, want about 0.34 -> 2.0", i, cp.BeforeSpread, cp.AfterSpread)
				}
			}
		})
	}
}

// TestDetectLevels: before and after are the medians between
// neighbouring change points.
func TestDetectLevels(t *testing.T) {
	xs := series(11, 300, steps([]int{100, 200}, []float64{10, 20, 5}), constant(0.1))
	got := Detect(xs, ChangeOptions{})
	if len(got) != 2 {
		t.Fatalf("got %+v", got)
	}
	for i, want := range [][2]float64{{10, 20}, {20, 5}} {
		if math.Abs(got[i].Before-want[0]) > 0.1 || math.Abs(got[i].After-want[1]) > 0.1 {
			t.Errorf("change %d: %v → %v, want %v", i, got[i].Before, got[i].After, want)
		}
	}
	if math.Abs(got[0].RelChange-1) > 0.03 {
		t.Errorf("rel change %v, want ≈1", got[0].RelChange)
	}
}

// TestDetectFalsePositiveRate: pure noise (normal, and log-normal like
// latency percentiles) and a slow drift (3σ over the series) are not
// flagged in 50 seeded trials each.
func TestDetectFalsePositiveRate(t *testing.T) {
	const trials = 50
	for _, kind := range []string{"normal", "lognormal", "drift"} {
		flagged, found := 0, 0
		for s := range uint64(trials) {
			xs := series(1000+s, 300, constant(0), constant(1))
			for i := range xs {
				switch kind {
				case "lognormal":
					xs[i] = 0.002 * math.Exp(0.5*xs[i])
				case "drift":
					xs[i] += 10 + 3*float64(i)/300
				}
			}
			cps := Detect(xs, ChangeOptions{})
			found += len(cps)
			if len(cps) > 0 {
				flagged++
				t.Logf("%s seed %d: %+v", kind, 1000+s, cps)
			}
		}
		t.Logf("%s: %d of %d series flagged (%d change points): false-positive rate %.3f", kind, flagged, trials, found, float64(flagged)/trials)
		if flagged > 0 {
			t.Errorf("%s: %d of %d series flagged", kind, flagged, trials)
		}
	}
}

// TestDetectDeterministic: the same input gives the same output, p-values
// included, run after run.
func TestDetectDeterministic(t *testing.T) {
	xs := series(21, 400, steps([]int{130, 260}, []float64{10, 11.5, 10.5}), constant(1))
	first := Detect(xs, ChangeOptions{})
	if len(first) == 0 {
		t.Fatal("no change points")
	}
	for range 3 {
		if again := Detect(xs, ChangeOptions{}); !reflect.DeepEqual(first, again) {
			t.Fatalf("%+v then %+v", first, again)
		}
	}
}

// TestDetectBoundsLongSeries: 12 hours at 1 s (43,200 points) is
// averaged down to MaxPoints; the change is reported in the caller's
// index, within one bucket of where it happened.
func TestDetectBoundsLongSeries(t *testing.T) {
	xs := series(31, 43200, steps([]int{4 * 3600}, []float64{10, 12}), constant(2))
	start := time.Now()
	got := Detect(xs, ChangeOptions{})
	el := time.Since(start)
	if len(got) != 1 {
		t.Fatalf("got %+v", got)
	}
	if d := got[0].Index - 4*3600; d < -60 || d > 60 {
		t.Errorf("change at %d, want %d ±60", got[0].Index, 4*3600)
	}
	t.Logf("43,200 points in %s", el)
}

func BenchmarkDetect720(b *testing.B) {
	xs := series(41, 720, steps([]int{240, 480}, []float64{10, 12, 11}), constant(1))
	b.ReportAllocs()
	for b.Loop() {
		Detect(xs, ChangeOptions{})
	}
}

// TestDetectRunFloors: each metric's floor (RunChangeOptions) drops
// significant steps below it and keeps steps above it, in 30 seeded
// series of 120 points each (the step in the middle): a latency median with 3% noise stepping
// 10% (host-made) or 30%, a rate of 400 ops/s with 1% noise dipping 3%
// or 10%, an error ratio with 0.1-point noise rising 0.5 or 2 points.
func TestDetectRunFloors(t *testing.T) {
	const trials = 30
	for _, c := range []struct {
		metric      string
		level, sd   float64
		small, big  float64 // step sizes below and above the floor
		nonNegative bool
	}{
		{"p50", 0.001, 0.00003, 0.0001, 0.0003, false},
		{"rate", 400, 4, -12, -40, false},
		{"error_ratio", 0.002, 0.001, 0.005, 0.02, true},
	} {
		o := RunChangeOptions(c.metric)
		var smallRaw, smallFloor, bigFloor int
		for s := range uint64(trials) {
			mk := func(step float64) []float64 {
				xs := series(2000+s, 120, steps([]int{60}, []float64{c.level, c.level + step}), constant(c.sd))
				if c.nonNegative {
					for i := range xs {
						xs[i] = max(0, xs[i])
					}
				}
				return xs
			}
			if len(Detect(mk(c.small), ChangeOptions{})) > 0 {
				smallRaw++
			}
			if len(Detect(mk(c.small), o)) > 0 {
				smallFloor++
			}
			for _, cp := range Detect(mk(c.big), o) {
				if cp.Index >= 55 && cp.Index <= 65 {
					bigFloor++
					break
				}
			}
		}
		t.Logf("%s: step %g: %d of %d flagged without a floor, %d with it; step %g: %d of %d found at the step with it",
			c.metric, c.small, smallRaw, trials, smallFloor, c.big, bigFloor, trials)
		if smallRaw < trials/2 {
			t.Errorf("%s: the small step is significant in only %d of %d series: the floor is not what drops it", c.metric, smallRaw, trials)
		}
		if smallFloor != 0 || bigFloor != trials {
			t.Errorf("%s: small step kept in %d, big step found in %d of %d", c.metric, smallFloor, bigFloor, trials)
		}
	}
}
