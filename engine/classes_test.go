package engine

import (
	"testing"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/targets"
)

// TestOutcomeClassesFit: every outcome class needs its own counter slot;
// a class past metrics.NumClasses would be folded into another one.
func TestOutcomeClassesFit(t *testing.T) {
	if n := len(targets.Classes()); n > metrics.NumClasses || metrics.NumClasses&(metrics.NumClasses-1) != 0 {
		t.Fatalf("%d classes, NumClasses %d (must be a power of two >= the class count)", n, metrics.NumClasses)
	}
}
