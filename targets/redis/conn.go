package redis

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// connPool holds connections of soakd's own to one server: the fast
// RESP path (fast.go) and ping_inline (inline.go) run on them. It is
// pooled like go-redis's: at most size connections, kept idle between
// ops, dialled on demand. After size dials in a row have failed it
// answers from the last dial error and lets one dial through per second
// (as go-redis does), so a dead server costs an error, not a dial per op.
type connPool struct {
	dial         func(ctx context.Context) (net.Conn, error)
	setup        [][]string // commands sent on a new connection (AUTH, SELECT)
	readTimeout  time.Duration
	writeTimeout time.Duration
	size         int
	slots        chan struct{} // one per open or opening connection
	idle         chan *conn
	closed       atomic.Bool

	dialFails atomic.Int32 // dials failed in a row
	mu        sync.Mutex
	lastErr   error     // the last dial error
	lastDial  time.Time // when the last dial was let through
}

// conn is one connection: a buffered reader for replies, the command
// bytes of the current round trip, and the bulk payloads of the last
// op's replies (vals, split at ends), all reused.
type conn struct {
	nc   net.Conn
	w    io.Writer // nc, or its rawIO (rawio_linux.go)
	br   *bufio.Reader
	out  []byte
	outK keep // bounds out by what recent round trips sent
	vals []byte
	ends []int
	kind int   // the last reply's kind (kindStatus...)
	n    int64 // its array length, bulk length or integer
	// zeroOne: the last reply is an array of one element, the integer 0
	// (FT.SEARCH's reply with no hits, [0]).
	zeroOne bool
}

// errPoolClosed is returned by a closed pool; it wraps net.ErrClosed so
// that it is classed as a connection error.
var errPoolClosed = fmt.Errorf("redis connection pool: %w", net.ErrClosed)

func newConnPool(size int, dial func(ctx context.Context) (net.Conn, error), setup [][]string, rt, wt time.Duration) *connPool {
	if size <= 0 {
		size = 10 * runtime.GOMAXPROCS(0) // go-redis's default
	}
	if rt <= 0 {
		rt = 3 * time.Second // go-redis's default
	}
	if wt <= 0 {
		wt = rt
	}
	return &connPool{dial: dial, setup: setup, readTimeout: rt, writeTimeout: wt, size: size,
		slots: make(chan struct{}, size), idle: make(chan *conn, size)}
}

// dialer returns a dial function for addr (or a function that finds the
// address first, for sentinel) with the client's timeout and TLS.
func dialer(network string, addr func(ctx context.Context) (string, error), timeout time.Duration, tc *tls.Config) func(ctx context.Context) (net.Conn, error) {
	if network == "" {
		network = "tcp"
	}
	return func(ctx context.Context) (net.Conn, error) {
		a, err := addr(ctx)
		if err != nil {
			return nil, err
		}
		d := &net.Dialer{Timeout: timeout}
		if tc != nil {
			return (&tls.Dialer{NetDialer: d, Config: tc}).DialContext(ctx, network, a)
		}
		return d.DialContext(ctx, network, a)
	}
}

// get returns an idle connection, or a new one while fewer than size
// are open, or waits for one to come back: for at most the op's timeout
// (the read timeout, or ctx's deadline when that is earlier), as
// go-redis's PoolTimeout bounds its wait. A wait that runs out is an
// error classed as a timeout (poolWaitError), so a pool too small for
// the load shows as timeouts, not as ops stuck until the run ends.
func (p *connPool) get(ctx context.Context) (*conn, error) {
	if p.closed.Load() {
		return nil, errPoolClosed
	}
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	select {
	case c := <-p.idle:
		return c, nil
	case p.slots <- struct{}{}:
		return p.openSlot(ctx)
	default:
	}
	// Every slot is taken: wait, with a timer only on this slow path.
	wait := time.NewTimer(p.readTimeout)
	defer wait.Stop()
	select {
	case c := <-p.idle:
		return c, nil
	case p.slots <- struct{}{}:
		return p.openSlot(ctx)
	case <-wait.C:
		return nil, &poolWaitError{size: p.size, wait: p.readTimeout}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// openSlot dials a connection into the slot the caller took, freeing the
// slot again when that fails.
func (p *connPool) openSlot(ctx context.Context) (*conn, error) {
	c, err := p.open(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	return c, nil
}

// poolWaitError is a get that found all size connections busy for the
// whole of the op's timeout. It wraps os.ErrDeadlineExceeded, so it is
// classed as a timeout.
type poolWaitError struct {
	size int
	wait time.Duration
}

func (e *poolWaitError) Error() string {
	return fmt.Sprintf("redis connection pool: all %d connections busy for %s (the op's timeout)", e.size, e.wait)
}

func (e *poolWaitError) Unwrap() error { return os.ErrDeadlineExceeded }

// put returns c to the pool, or closes it (freeing its slot) when broken
// is set: after an I/O or protocol error its replies are out of step.
func (p *connPool) put(c *conn, broken bool) {
	if broken || p.closed.Load() {
		c.nc.Close()
		<-p.slots
		return
	}
	p.idle <- c
}

func (p *connPool) open(ctx context.Context) (*conn, error) {
	if int(p.dialFails.Load()) >= p.size {
		p.mu.Lock()
		if time.Since(p.lastDial) < time.Second {
			err := p.lastErr
			p.mu.Unlock()
			return nil, err
		}
		p.lastDial = time.Now()
		p.mu.Unlock()
	}
	nc, err := p.dial(ctx)
	if err != nil {
		p.mu.Lock()
		p.lastErr = err
		if p.dialFails.Add(1) == int32(p.size) {
			p.lastDial = time.Now()
		}
		p.mu.Unlock()
		return nil, err
	}
	p.dialFails.Store(0)
	c := newConn(nc)
	for _, cmd := range p.setup {
		c.out = appendArgs(c.out[:0], cmd)
		err := p.send(ctx, c)
		if err == nil {
			var srvErr error
			if srvErr, err = c.next(); err == nil {
				err = srvErr
			}
		}
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("%s: %w", strings.ToLower(cmd[0]), err)
		}
	}
	return c, nil
}

// newConn wraps nc; its reads and writes are raw syscalls where newRawIO
// allows (a plain TCP or unix connection on Linux).
func newConn(nc net.Conn) *conn {
	var rw io.ReadWriter = nc
	if r := newRawIO(nc); r != nil {
		rw = r
	}
	return &conn{nc: nc, w: rw, br: bufio.NewReaderSize(rw, 16<<10)}
}

// Close closes the idle connections; connections in use are closed when
// they come back. The engine closes a target after its workers have
// stopped, so none is busy then.
func (p *connPool) Close() {
	p.closed.Store(true)
	for {
		select {
		case c := <-p.idle:
			c.nc.Close()
		default:
			return
		}
	}
}

// deadline is when a round trip must be done by: now + timeout, or the
// context's deadline when that is earlier (as go-redis does).
func deadline(ctx context.Context, now time.Time, timeout time.Duration) time.Time {
	d := now.Add(timeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		return cd
	}
	return d
}

// send writes c.out with the pool's write timeout and sets the read
// deadline for its replies (read them with next). c.out may be nil
// after it (keep): each round trip builds it from c.out[:0].
func (p *connPool) send(ctx context.Context, c *conn) error {
	now := time.Now()
	_ = c.nc.SetWriteDeadline(deadline(ctx, now, p.writeTimeout))
	_, err := c.w.Write(c.out)
	c.out = c.outK.fit(c.out)
	if err != nil {
		return err
	}
	_ = c.nc.SetReadDeadline(deadline(ctx, now, p.readTimeout))
	return nil
}

// next reads the next reply: srvErr is the server's error reply, ioErr an
// I/O or protocol error after which the connection is broken. The
// reply's kind and size are in c.kind and c.n, its bulk payloads in
// c.vals (split at c.ends) until the next call.
func (c *conn) next() (srvErr, ioErr error) {
	c.vals, c.ends = c.vals[:0], c.ends[:0]
	err := c.readReply(0)
	if err == nil {
		return nil, nil
	}
	if re, ok := err.(replyError); ok {
		return re, nil
	}
	return nil, err
}

// reply kinds readReply reports through conn.kind.
const (
	kindStatus = iota
	kindInt
	kindBulk
	kindNil // a nil bulk string or nil array
	kindArray
)

// replyError is an error reply from the server (the connection is fine);
// its text is the reply without the leading '-', as go-redis gives it.
type replyError string

func (e replyError) Error() string { return string(e) }

// errProtocol is a reply soakd cannot parse: the connection is dropped.
var errProtocol = errors.New("redis: protocol error")

// readReply reads one reply into c: its top-level kind and size in
// c.kind/c.n, every bulk payload appended to c.vals. A server error is
// returned as a replyError after the whole reply was read.
func (c *conn) readReply(depth int) error {
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return errProtocol
		}
		return err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return errProtocol
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		c.setKind(depth, kindStatus, 0)
		return nil
	case '-':
		c.setKind(depth, kindStatus, 0)
		return replyError(body)
	case ':':
		v, ok := parseInt(body)
		if !ok {
			return errProtocol
		}
		c.setKind(depth, kindInt, v)
		return nil
	case '$':
		size, ok := parseInt(body)
		if !ok || size < -1 {
			return errProtocol
		}
		if size == -1 {
			c.setKind(depth, kindNil, 0)
			return nil
		}
		c.setKind(depth, kindBulk, size)
		start := len(c.vals)
		c.vals = slices.Grow(c.vals, int(size)+2)[:start+int(size)+2]
		if _, err := io.ReadFull(c.br, c.vals[start:]); err != nil {
			return err
		}
		if c.vals[len(c.vals)-2] != '\r' || c.vals[len(c.vals)-1] != '\n' {
			return errProtocol
		}
		c.vals = c.vals[:len(c.vals)-2]
		c.ends = append(c.ends, len(c.vals))
		return nil
	case '*':
		size, ok := parseInt(body)
		if !ok || size < -1 || depth > 8 {
			return errProtocol
		}
		if size == -1 {
			c.setKind(depth, kindNil, 0)
			return nil
		}
		c.setKind(depth, kindArray, size)
		var first error
		for i := int64(0); i < size; i++ {
			if err := c.readReply(depth + 1); err != nil {
				if _, ok := err.(replyError); !ok {
					return err
				}
				if first == nil {
					first = err
				}
			}
		}
		return first
	}
	return errProtocol
}

// setKind records the top-level reply's kind and size (array length,
// bulk length or integer).
func (c *conn) setKind(depth, kind int, n int64) {
	switch {
	case depth == 0:
		c.kind, c.n = kind, n
		c.zeroOne = false
	case depth == 1 && c.kind == kindArray && c.n == 1:
		c.zeroOne = kind == kindInt && n == 0
	}
}

// parseInt parses a RESP decimal without allocating.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var v int64
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		v = v*10 + int64(ch-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// appendArgs appends cmd as a RESP array of bulk strings.
func appendArgs(b []byte, cmd []string) []byte {
	b = appendHeader(b, len(cmd))
	for _, a := range cmd {
		b = appendBulkString(b, a)
	}
	return b
}

func appendHeader(b []byte, n int) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

func appendBulk(b, v []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(v)), 10)
	b = append(b, '\r', '\n')
	b = append(b, v...)
	return append(b, '\r', '\n')
}

func appendBulkString(b []byte, v string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(v)), 10)
	b = append(b, '\r', '\n')
	b = append(b, v...)
	return append(b, '\r', '\n')
}

// appendBulkInt appends n's decimal digits as a bulk string.
func appendBulkInt(b []byte, n int64) []byte {
	var d [20]byte
	return appendBulk(b, strconv.AppendInt(d[:0], n, 10))
}

// appendBulkPrefixed appends prefix followed by n's digits as one bulk
// string ("element:42").
func appendBulkPrefixed(b []byte, prefix string, n int64) []byte {
	var d [40]byte
	return appendBulk(b, strconv.AppendInt(append(d[:0], prefix...), n, 10))
}
