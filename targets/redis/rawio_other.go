//go:build !linux

package redis

import (
	"io"
	"net"
)

// newRawIO is Linux's only (rawio_linux.go): elsewhere the connection's
// own Read and Write are used.
func newRawIO(net.Conn) io.ReadWriter { return nil }
