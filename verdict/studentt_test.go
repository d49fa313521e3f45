package verdict

import (
	"math"
	"testing"
)

// Against the printed table of Student's t (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
func TestStudentTQuantile(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		df   int
		want float64
	}{
		{0.975, 1, 12.706}, {0.995, 1, 63.657}, {0.975, 2, 4.303}, {0.995, 2, 9.925},
		{0.975, 4, 2.776}, {0.995, 4, 4.604}, {0.975, 9, 2.262}, {0.995, 9, 3.250},
		{0.975, 30, 2.042}, {0.995, 30, 2.750}, {0.95, 100, 1.660}, {0.025, 4, -2.776}, {0.5, 7, 0},
	} {
		if got := studentTQuantile(tc.p, tc.df); math.Abs(got-tc.want) > 0.001 {
			t.Errorf("t(%g, df %d) = %.4f, want %.3f", tc.p, tc.df, got, tc.want)
		}
	}
}
