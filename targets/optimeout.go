package targets

import (
	"context"
	"time"
)

// Timeouts are an adapter's per-op deadlines (target.client.read_timeout
// and write_timeout): an op that writes runs under Write, any other
// under Read; zero leaves the op's context as it is.
type Timeouts struct {
	Read, Write time.Duration
}

// Context bounds ctx by the read or the write timeout. The cancel func is
// never nil.
func (t Timeouts) Context(ctx context.Context, write bool) (context.Context, context.CancelFunc) {
	d := t.Read
	if write {
		d = t.Write
	}
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}
