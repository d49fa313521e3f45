package redis

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"time"
)

// inlinePool sends inline-protocol commands: redis-benchmark's
// PING_INLINE writes the bare line "PING\r\n", which the server parses
// with its inline parser, not as a RESP array. go-redis only writes RESP
// arrays, so ping_inline runs on connections of soakd's own, pooled like
// go-redis's: at most size connections, kept idle between ops.
type inlinePool struct {
	dial         func(ctx context.Context) (net.Conn, error)
	setup        [][]string // commands sent on a new connection (AUTH, SELECT)
	readTimeout  time.Duration
	writeTimeout time.Duration
	slots        chan struct{} // one per open or opening connection
	idle         chan *inlineConn

	// After a failed dial, get answers with its error for redialAfter
	// instead of dialing again (go-redis's pool does the same), so a
	// dead server shows as errors at once, not as workers waiting out a
	// dial timeout each.
	dialMu  sync.Mutex
	dialErr error
	dialAt  time.Time
}

const redialAfter = time.Second

type inlineConn struct {
	c net.Conn
	r *bufio.Reader
	// The raw pipeline's (rawpipe.go): its write buffer, kept between
	// batches, and the last error reply's message.
	w       []byte
	lastErr string
}

func newInlinePool(size int, dial func(ctx context.Context) (net.Conn, error), setup [][]string, rt, wt time.Duration) *inlinePool {
	if size <= 0 {
		size = 10 * runtime.GOMAXPROCS(0) // go-redis's default
	}
	if rt <= 0 {
		rt = 3 * time.Second // go-redis's default
	}
	if wt <= 0 {
		wt = rt
	}
	return &inlinePool{dial: dial, setup: setup, readTimeout: rt, writeTimeout: wt,
		slots: make(chan struct{}, size), idle: make(chan *inlineConn, size)}
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

// Do sends one inline command line and reads its one-line reply
// (+status or -error).
func (p *inlinePool) Do(ctx context.Context, line string) error {
	ic, err := p.get(ctx)
	if err != nil {
		return err
	}
	return p.roundTrip(ic, line)
}

// get takes an idle connection, or opens one while fewer than size are
// open, or waits for one.
func (p *inlinePool) get(ctx context.Context) (*inlineConn, error) {
	select {
	case ic := <-p.idle:
		return ic, nil
	default:
	}
	select {
	case ic := <-p.idle:
		return ic, nil
	case p.slots <- struct{}{}:
		p.dialMu.Lock()
		err, at := p.dialErr, p.dialAt
		p.dialMu.Unlock()
		if err != nil && time.Since(at) < redialAfter {
			<-p.slots
			return nil, err
		}
		ic, err := p.open(ctx)
		p.dialMu.Lock()
		p.dialErr, p.dialAt = err, time.Now()
		p.dialMu.Unlock()
		if err != nil {
			<-p.slots
			return nil, err
		}
		return ic, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// put returns ic to the pool after a use that ended with err, or closes
// it (and frees its slot) after a network or protocol error.
func (p *inlinePool) put(ic *inlineConn, err error) {
	var re replyError
	if err == nil || errors.As(err, &re) {
		p.idle <- ic
		return
	}
	ic.c.Close()
	<-p.slots
}

func (p *inlinePool) open(ctx context.Context) (*inlineConn, error) {
	c, err := p.dial(ctx)
	if err != nil {
		return nil, err
	}
	ic := &inlineConn{c: c, r: bufio.NewReader(c)}
	for _, cmd := range p.setup {
		if err := ic.send(p, respArray(cmd)); err != nil {
			c.Close()
			return nil, fmt.Errorf("%s: %w", strings.ToLower(cmd[0]), err)
		}
	}
	return ic, nil
}

// roundTrip runs line on ic and returns ic to the pool, or closes it
// (and frees its slot) after a network or protocol error.
func (p *inlinePool) roundTrip(ic *inlineConn, line string) error {
	err := ic.send(p, line+"\r\n")
	p.put(ic, err)
	return err
}

// replyError is an error reply from the server (the connection is fine).
type replyError string

func (e replyError) Error() string { return string(e) }

func (ic *inlineConn) send(p *inlinePool, b string) error {
	_ = ic.c.SetWriteDeadline(time.Now().Add(p.writeTimeout))
	if _, err := ic.c.Write([]byte(b)); err != nil {
		return err
	}
	_ = ic.c.SetReadDeadline(time.Now().Add(p.readTimeout))
	l, err := ic.r.ReadString('\n')
	if err != nil {
		return err
	}
	l = strings.TrimRight(l, "\r\n")
	switch {
	case strings.HasPrefix(l, "+"):
		return nil
	case strings.HasPrefix(l, "-"):
		return replyError(l[1:])
	}
	return fmt.Errorf("inline command: unexpected reply %q", l)
}

func respArray(args []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// Close closes the idle connections. The engine closes a target after
// its workers have stopped, so no connection is busy then.
func (p *inlinePool) Close() {
	for {
		select {
		case ic := <-p.idle:
			ic.c.Close()
		default:
			return
		}
	}
}
