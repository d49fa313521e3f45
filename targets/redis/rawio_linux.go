//go:build linux

package redis

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawIO reads and writes a TCP or unix connection with raw syscalls
// through its syscall.RawConn: the wait for readiness is still the
// netpoller's (and honours the connection's deadlines), but the read and
// write themselves skip the Go runtime's syscall entry and exit.
//
// That entry is what costs at a soak's modest rates. When every P is
// idle between ops the runtime's monitor thread (sysmon) sleeps, and the
// next ordinary syscall wakes it with a futex; it then runs a 20 us
// nanosleep before it sleeps again: two more context switches, on the
// same CPU when soakd is pinned to one. A fast-path op made four such
// syscalls (the write, a read that found nothing yet, the read of the
// reply, the pacer's timerfd read), so each op woke sysmon about twice.
// A read or write of a non-blocking socket never blocks, so nothing is
// lost by not telling the scheduler about it.
type rawIO struct {
	rc  syscall.RawConn
	nc  net.Conn
	p   []byte
	n   int
	err syscall.Errno
	// read and write are the closures handed to rc, made once.
	read, write func(fd uintptr) bool
}

// newRawIO returns nc's rawIO, or nil when nc is not a plain TCP or unix
// connection (TLS: its records are read through crypto/tls).
func newRawIO(nc net.Conn) io.ReadWriter {
	var sc syscall.Conn
	switch c := nc.(type) {
	case *net.TCPConn:
		sc = c
	case *net.UnixConn:
		sc = c
	default:
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	r := &rawIO{rc: rc, nc: nc}
	r.read = r.readFD
	r.write = r.writeFD
	return r
}

// readFD is one non-blocking read into r.p; false asks the netpoller to
// wait until the socket is readable.
func (r *rawIO) readFD(fd uintptr) bool {
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.p[0])), uintptr(len(r.p)))
		switch errno {
		case 0:
			r.n, r.err = int(n), 0
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		r.n, r.err = 0, errno
		return true
	}
}

// writeFD writes what is left of r.p (from r.n on); false asks the
// netpoller to wait until the socket is writable.
func (r *rawIO) writeFD(fd uintptr) bool {
	for r.n < len(r.p) {
		b := r.p[r.n:]
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch errno {
		case 0:
			r.n += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			r.err = errno
			return true
		}
	}
	return true
}

// Read reads into p as net.Conn's Read does: io.EOF when the peer has
// closed, the deadline's error when it passed while waiting.
func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.err = p, 0, 0
	err := r.rc.Read(r.read)
	r.p = nil
	if err != nil {
		return 0, r.opError("read", err)
	}
	if r.err != 0 {
		return 0, r.opError("read", os.NewSyscallError("read", r.err))
	}
	if r.n == 0 {
		return 0, io.EOF
	}
	return r.n, nil
}

// Write writes all of p, waiting for room as often as it takes.
func (r *rawIO) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.err = p, 0, 0
	err := r.rc.Write(r.write)
	n := r.n
	r.p = nil
	if err != nil {
		return n, r.opError("write", err)
	}
	if r.err != 0 {
		return n, r.opError("write", os.NewSyscallError("write", r.err))
	}
	return n, nil
}

// opError wraps err as the net package does (a *net.OpError), so that it
// is classed as a timeout or a connection error as before. An error the
// RawConn already wrapped is returned as it is.
func (r *rawIO) opError(op string, err error) error {
	if _, ok := err.(*net.OpError); ok {
		return err
	}
	return &net.OpError{Op: op, Net: r.nc.LocalAddr().Network(), Source: r.nc.LocalAddr(), Addr: r.nc.RemoteAddr(), Err: err}
}
