package embedded

import (
	"bufio"
	"fmt"
	"strings"
	"time"
)

// Connection and server commands.

func (s *Server) cmdPing(w *bufio.Writer, args [][]byte) {
	if len(args) > 1 {
		writeBulk(w, args[1])
	} else {
		writeSimple(w, "PONG")
	}
}

func (s *Server) cmdEcho(w *bufio.Writer, args [][]byte) { writeBulk(w, args[1]) }

// cmdOK answers QUIT, SELECT, CLIENT, READONLY and AUTH.
func (s *Server) cmdOK(w *bufio.Writer, args [][]byte) { writeSimple(w, "OK") }

// cmdHello refuses HELLO: RESP3 is not spoken; clients fall back to RESP2
// on this error.
func (s *Server) cmdHello(w *bufio.Writer, args [][]byte) {
	writeError(w, "ERR unknown command 'HELLO'")
}

func (s *Server) cmdDBSize(w *bufio.Writer, args [][]byte) { writeInt(w, s.Keys()) }

// cmdFlush answers FLUSHALL and FLUSHDB.
func (s *Server) cmdFlush(w *bufio.Writer, args [][]byte) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		sh.m = map[string]*value{}
		sh.mu.Unlock()
	}
	writeSimple(w, "OK")
}

func (s *Server) cmdInfo(w *bufio.Writer, args [][]byte) { writeBulk(w, []byte(s.info())) }

func (s *Server) info() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Server\r\nredis_version:7.0.0-soakd-embedded\r\nredis_mode:standalone\r\nuptime_in_seconds:%d\r\n", int(time.Since(s.start).Seconds()))
	fmt.Fprintf(&b, "# Clients\r\nconnected_clients:%d\r\n", s.clients.Load())
	fmt.Fprintf(&b, "# Stats\r\ntotal_commands_processed:%d\r\nsoakd_embedded_stalls:%d\r\n", s.commands.Load(), s.Stalls())
	fmt.Fprintf(&b, "# Keyspace\r\ndb0:keys=%d,expires=0,avg_ttl=0\r\n", s.Keys())
	return b.String()
}
