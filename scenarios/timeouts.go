package scenarios

import (
	"fmt"
	"time"
)

// Upper bounds of the client timeouts. An op waits at most its timeout
// (a store that accepts and never answers holds a worker that long), and
// the timeouts bound how long opening a target can take; a stopped run
// waits for its ops in flight only up to engine.DrainDeadline. A store's
// own timeouts (a CQL URL's timeout=) are capped by it too.
const MaxClientTimeout = 5 * time.Minute // dial_timeout, read_timeout, write_timeout

// timeoutProblems checks target.client's timeouts against
// MaxClientTimeout: each problem as (path, message).
func (c ClientCommon) timeoutProblems() [][2]string {
	var out [][2]string
	for _, t := range []struct {
		name string
		d    Duration
	}{{"dial_timeout", c.DialTimeout}, {"read_timeout", c.ReadTimeout}, {"write_timeout", c.WriteTimeout}} {
		switch d := t.d.D(); {
		case d < 0:
			out = append(out, [2]string{"target.client." + t.name, "must not be negative"})
		case d > MaxClientTimeout:
			out = append(out, [2]string{"target.client." + t.name, fmt.Sprintf("%s is longer than the %s cap (0 = the adapter's default)", d, MaxClientTimeout)})
		}
	}
	return out
}
