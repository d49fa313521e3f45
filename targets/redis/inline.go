package redis

import (
	"context"
	"fmt"
)

// inline sends one inline-protocol command: redis-benchmark's
// PING_INLINE writes the bare line "PING\r\n", which the server parses
// with its inline parser, not as a RESP array. go-redis only writes RESP
// arrays, so ping_inline runs on soakd's own connections (conn.go). The
// reply must be one line (+status or -error).
func (p *connPool) inline(ctx context.Context, line string) error {
	c, err := p.get(ctx)
	if err != nil {
		return err
	}
	c.out = append(append(c.out[:0], line...), '\r', '\n')
	if err := p.send(ctx, c); err != nil {
		p.put(c, true)
		return err
	}
	srvErr, err := c.next()
	if err == nil && srvErr == nil && c.kind != kindStatus {
		err = fmt.Errorf("inline command: unexpected reply (kind %d)", c.kind)
	}
	p.put(c, err != nil)
	if err != nil {
		return err
	}
	return srvErr
}
