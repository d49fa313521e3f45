package testutil

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// HangingRESP is a store that accepts and then hangs: it answers a redis
// client's handshake (HELLO refused, so the client falls back to RESP2;
// PING; anything else an empty array) but never a GET. It returns its
// address and the count of GETs it swallowed; its listener and
// connections close when the test ends.
func HangingRESP(t testing.TB) (addr string, gets *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gets = new(atomic.Int64)
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go serveHanging(c, gets)
		}
	}()
	return ln.Addr().String(), gets
}

// serveHanging reads RESP arrays (*N, then $len and the value per part)
// from c and answers all but GET.
func serveHanging(c net.Conn, gets *atomic.Int64) {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		if !strings.HasPrefix(line, "*") {
			continue
		}
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		var cmd string
		for i := 0; i < n; i++ {
			br.ReadString('\n')
			v, _ := br.ReadString('\n')
			if i == 0 {
				cmd = strings.ToUpper(strings.TrimSpace(v))
			}
		}
		switch cmd {
		case "":
		case "GET":
			gets.Add(1) // the op: never answered
		case "HELLO":
			c.Write([]byte("-ERR unknown command 'HELLO'\r\n"))
		case "PING":
			c.Write([]byte("+PONG\r\n"))
		default:
			c.Write([]byte("*0\r\n"))
		}
	}
}
