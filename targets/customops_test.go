package targets

import (
	"context"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
)

// TestTimeoutsContext: a write gets the write timeout, anything else the
// read one, and a zero timeout leaves the context without a deadline.
func TestTimeoutsContext(t *testing.T) {
	to := Timeouts{Read: time.Hour, Write: 3 * time.Hour}
	for _, c := range []struct {
		write bool
		min   time.Duration
	}{{false, 59 * time.Minute}, {true, 179 * time.Minute}} {
		ctx, cancel := to.Context(context.Background(), c.write)
		dl, ok := ctx.Deadline()
		cancel()
		if !ok || time.Until(dl) < c.min || time.Until(dl) > c.min+2*time.Minute {
			t.Errorf("write %v: deadline in %v", c.write, time.Until(dl))
		}
	}
	ctx, cancel := Timeouts{}.Context(context.Background(), true)
	defer cancel()
	if _, ok := ctx.Deadline(); ok {
		t.Error("a zero timeout set a deadline")
	}
}

// TestCustomOpsNil: without custom ops (nil table), built-in ops keep
// their read/write split and an unknown custom op counts as a write.
func TestCustomOpsNil(t *testing.T) {
	var c *CustomOps[int]
	if c.Writes(scenarios.OpRead) || !c.Writes(scenarios.OpUpdate) || !c.Writes(scenarios.OpCustomBase) {
		t.Error("nil table: wrong read/write split")
	}
	if c.Of(scenarios.OpCustomBase) != nil {
		t.Error("nil table returned a form")
	}
	cs, err := CompileCustom(&scenarios.Scenario{}, func(scenarios.Op, *scenarios.CustomOp) (*int, bool, error) { return nil, false, nil })
	if err != nil || cs != nil {
		t.Errorf("no ops: %v, %v", cs, err)
	}
}
