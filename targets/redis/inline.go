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
}

type inlineConn struct {
	c net.Conn
	r *bufio.Reader
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
	select {
	case ic := <-p.idle:
		return p.roundTrip(ic, line)
	default:
	}
	select {
	case ic := <-p.idle:
		return p.roundTrip(ic, line)
	case p.slots <- struct{}{}:
		ic, err := p.open(ctx)
		if err != nil {
			<-p.slots
			return err
		}
		return p.roundTrip(ic, line)
	case <-ctx.Done():
		return ctx.Err()
	}
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
	var re replyError
	if err == nil || errors.As(err, &re) {
		p.idle <- ic
		return err
	}
	ic.c.Close()
	<-p.slots
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
