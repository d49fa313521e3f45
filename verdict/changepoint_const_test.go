package verdict

import (
	"math"
	"testing"
)

// TestDetectConstantSeries: a series whose points are all the same (or
// differ only by float rounding) has no change point, whatever its
// magnitude; a real step still shows at any magnitude.
func TestDetectConstantSeries(t *testing.T) {
	rep := func(n int, v float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = v
		}
		return xs
	}
	ulps := func(n int, v float64) []float64 {
		xs := rep(n, v)
		for i := range xs {
			switch i % 3 {
			case 1:
				xs[i] = math.Nextafter(v, math.Inf(1))
			case 2:
				xs[i] = math.Nextafter(v, math.Inf(-1))
			}
		}
		return xs
	}
	for _, c := range []struct {
		name string
		xs   []float64
		want []int
	}{
		{"constant 200", rep(200, 49870.25654317215), nil},
		{"constant 1000 (bucketed)", rep(1000, 49870.25654317215), nil},
		{"constant 721 (uneven buckets)", rep(721, 0.1+0.2), nil},
		{"constant huge", rep(300, 1.7e300), nil},
		{"constant tiny", rep(300, 3e-300), nil},
		{"constant negative", rep(300, -123456.789), nil},
		{"constant zero", rep(300, 0), nil},
		{"near-constant (ulps)", ulps(300, 49870.25654317215), nil},
		{"near-constant huge (ulps)", ulps(300, 9.8e15), nil},
		{"constant halves", append(rep(100, 49870.25654317215), rep(100, 51234.5)...), []int{100}},
		{"huge step", series(11, 200, steps([]int{120}, []float64{1e15, 1e15 + 3e6}), constant(1e6)), []int{120}},
		{"tiny step", series(12, 200, steps([]int{80}, []float64{1e-6, 1.3e-6}), constant(1e-7)), []int{80}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Detect(c.xs, ChangeOptions{})
			if len(got) != len(c.want) {
				t.Fatalf("found %d change points, want %v: %+v", len(got), c.want, got)
			}
			for i, cp := range got {
				if d := cp.Index - c.want[i]; d < -3 || d > 3 {
					t.Errorf("change point at %d, want %d", cp.Index, c.want[i])
				}
			}
		})
	}
}
