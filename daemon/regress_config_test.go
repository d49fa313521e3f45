package daemon

import (
	"strings"
	"testing"
)

// The history noise model needs 5 comparable runs unless the history
// kept is shorter; the prediction level defaults to 99% and is checked.
func TestRegressionConfigDefaults(t *testing.T) {
	for _, tc := range []struct {
		yaml    string
		min     int
		level   float64
		problem string
	}{
		{"token_env: T\n", 5, 0.99, ""},
		{"token_env: T\nregression: {history: 3}\n", 3, 0.99, ""},
		{"token_env: T\nregression: {min_history: 2, level: 0.95}\n", 2, 0.95, ""},
		{"token_env: T\nregression: {level: 1.5}\n", 0, 0, "regression.level"},
	} {
		c, err := ParseConfig("x.yaml", []byte(tc.yaml), getenv(nil))
		if tc.problem != "" {
			if err == nil || !strings.Contains(err.Error(), tc.problem) || !strings.Contains(err.Error(), "x.yaml:") {
				t.Errorf("%q: error %v, want one naming x.yaml and %s", tc.yaml, err, tc.problem)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		if c.Regression.MinHistory != tc.min || c.Regression.Level != tc.level {
			t.Errorf("%q: min_history %d level %v, want %d %v", tc.yaml, c.Regression.MinHistory, c.Regression.Level, tc.min, tc.level)
		}
	}
}
