//go:build linux

package redis

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/soakd/soakd/internal/testutil"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-acc
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// A plain TCP connection gets the raw path, TLS keeps the connection's
// own Read and Write (its records go through crypto/tls).
func TestRawIOOnlyForPlainSockets(t *testing.T) {
	c, _ := tcpPair(t)
	if _, ok := newConn(c).w.(*rawIO); !ok {
		t.Errorf("a TCP connection writes with %T, want *rawIO", newConn(c).w)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if newRawIO(a) != nil {
		t.Error("net.Pipe got a rawIO")
	}
}

// Replies come through as the connection's own reads gave them, a write
// larger than the socket buffers is written whole (the raw write waits
// for room), and the peer's close is io.EOF, classed as a connection
// error.
func TestRawIORoundTripBigWriteAndEOF(t *testing.T) {
	c, s := tcpPair(t)
	_ = c.(*net.TCPConn).SetWriteBuffer(4096)
	rw := newRawIO(c)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(s, int64(len(big))))
		got <- b
		_, _ = s.Write([]byte("+OK\r\n"))
		s.Close()
	}()
	if n, err := rw.Write(big); err != nil || n != len(big) {
		t.Fatalf("write of 1 MiB: %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("the peer read %d bytes, not the 1 MiB written", len(b))
	}
	cn := newConn(c)
	if srvErr, ioErr := cn.next(); srvErr != nil || ioErr != nil || cn.kind != kindStatus {
		t.Fatalf("reply: %v %v kind %d", srvErr, ioErr, cn.kind)
	}
	_, err := rw.Read(make([]byte, 16))
	if !errors.Is(err, io.EOF) {
		t.Fatalf("read after the peer closed: %v, want io.EOF", err)
	}
	if cl := targets.ClassifyGeneric(err); cl != targets.ClassConnection {
		t.Errorf("EOF classed %q", cl)
	}
}

// A read deadline that passes while waiting ends the read with a timeout
// (the netpoller's wait honours it as for net.Conn.Read).
func TestRawIOReadDeadlineIsATimeout(t *testing.T) {
	c, _ := tcpPair(t)
	rw := newRawIO(c)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := rw.Read(make([]byte, 16))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	if cl := targets.ClassifyGeneric(err); cl != targets.ClassTimeout {
		t.Errorf("classed %q, want timeout", cl)
	}
}

// A reset connection's write or read fails with ECONNRESET or EPIPE,
// wrapped as the net package does, classed as a connection error.
func TestRawIOResetIsAConnectionError(t *testing.T) {
	c, s := tcpPair(t)
	_ = s.(*net.TCPConn).SetLinger(0)
	s.Close() // RST
	rw := newRawIO(c)
	var err error
	for i := 0; i < 100 && err == nil; i++ { // the first write may still be accepted
		_, err = rw.Write([]byte("PING\r\n"))
		if err == nil {
			_, err = rw.Read(make([]byte, 16))
		}
	}
	var oe *net.OpError
	if !errors.As(err, &oe) {
		t.Fatalf("error %v (%T), want a *net.OpError", err, err)
	}
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, io.EOF) {
		t.Errorf("error %v, want ECONNRESET, EPIPE or EOF", err)
	}
	if cl := targets.ClassifyGeneric(err); cl != targets.ClassConnection {
		t.Errorf("classed %q, want connection", cl)
	}
}

// A fast-path op on an otherwise idle process costs its own thread's
// park for the reply and nothing more: the raw write and reads do not
// wake the runtime's monitor thread (sysmon), which an ordinary syscall
// wakes whenever every P was idle (a futex wake, then its 20 us
// nanosleep: two more voluntary context switches each time). Counted,
// not timed: the process's voluntary context switches over 300 GETs at
// GOMAXPROCS=1 against a real redis-server, each GET after a 200 us
// pause of the whole process (a soak's pace: every op finds it idle).
func TestFastOpDoesNotWakeSysmon(t *testing.T) {
	s := startRedis(t)
	tg := openURL(t, s)
	if !tg.fast {
		t.Fatal("the standalone target is not on the fast path")
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	r := &targets.Request{Op: scenarios.OpGet, Key: []byte("k")}
	for i := 0; i < 10; i++ { // dial and settle
		if err := tg.Do(t.Context(), r); err != nil && !errors.Is(err, targets.ErrMiss) {
			t.Fatal(err)
		}
	}
	pause := newRawPause(t)
	const n = 300
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for i := 0; i < n; i++ {
		pause(200 * time.Microsecond)
		if err := tg.Do(t.Context(), r); err != nil && !errors.Is(err, targets.ErrMiss) {
			t.Fatal(err)
		}
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	per := float64(ru1.Nvcsw-ru0.Nvcsw) / n
	t.Logf("%.2f voluntary context switches per pause and GET", per)
	if per > 2.3 {
		t.Errorf("%.2f voluntary context switches per pause and GET, want at most 2 (the pause's park and the reply's): a syscall wakes sysmon", per)
	}
}

// newRawPause returns a sleep that parks the goroutine on a timerfd
// through the netpoller with raw syscalls only (as the engine's pacer
// sleeps), so that the pause itself wakes nothing but its own thread.
func newRawPause(t testing.TB) func(d time.Duration) {
	t.Helper()
	const clockMonotonic = 1
	fd, _, errno := syscall.RawSyscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		testutil.HostSkip(t, "timerfd refused here: %v", errno)
	}
	f := os.NewFile(fd, "test-timerfd")
	t.Cleanup(func() { f.Close() })
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var spec [4]int64 // itimerspec: interval, value
	var buf [8]byte
	return func(d time.Duration) {
		armed := false
		spec[2], spec[3] = int64(d/time.Second), int64(d%time.Second)
		err := rc.Read(func(fd uintptr) bool {
			if !armed {
				armed = true
				_, _, e := syscall.RawSyscall6(syscall.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
				return e != 0
			}
			_, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[0])), 8)
			return e != syscall.EAGAIN
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A unix socket gets the raw path too, and a round trip on it works.
func TestRawIOUnixSocket(t *testing.T) {
	ln, err := net.Listen("unix", t.TempDir()+"/s")
	if err != nil {
		testutil.HostSkip(t, "no unix sockets here: %v", err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 6)
		if _, err := io.ReadFull(c, b); err == nil && string(b) == "PING\r\n" {
			_, _ = c.Write([]byte("+PONG\r\n"))
		}
	}()
	nc, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := newConn(nc)
	if _, ok := c.w.(*rawIO); !ok {
		t.Fatalf("a unix connection writes with %T, want *rawIO", c.w)
	}
	if _, err := c.w.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	if srvErr, ioErr := c.next(); srvErr != nil || ioErr != nil || c.kind != kindStatus {
		t.Fatalf("reply: %v %v kind %d", srvErr, ioErr, c.kind)
	}
}
