// Package embedded is soakd's in-process Redis-protocol store. `soakd run`
// starts it when no target is given so the first command works on a fresh
// machine with only Go. Its figures measure soakd, not a database.
//
// It speaks RESP2 over TCP on loopback and implements the commands the
// redis adapter sends for the YCSB and redis-benchmark ops. It can stall
// on purpose (every StallEvery for StallFor) to show that soakd reports a
// stalled store in latency from intended start.
package embedded

import (
	"bufio"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config tunes the server.
type Config struct {
	Addr       string        // default 127.0.0.1:0
	StallEvery time.Duration // 0 = never stall
	StallFor   time.Duration
	// Restricted answers like a store that speaks only a subset of the
	// protocol (SSDB's): HELLO, CLIENT, INFO, SELECT, MULTI/EXEC and
	// EXPIRE are unknown commands, so soakd's degrade paths are tested.
	Restricted bool
}

// restricted lists the commands a Restricted server does not know.
var restricted = map[string]bool{"HELLO": true, "CLIENT": true, "INFO": true, "SELECT": true, "MULTI": true, "EXEC": true, "EXPIRE": true, "DBSIZE": true}

// Server is a running embedded store.
type Server struct {
	cfg    Config
	ln     net.Listener
	shards [64]shard
	seed   maphash.Seed
	start  time.Time

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
	done  chan struct{}

	commands atomic.Int64
	clients  atomic.Int64
}

type shard struct {
	mu sync.RWMutex
	m  map[string]*value
}

type kind uint8

const (
	kString kind = iota
	kHash
	kList
	kSet
	kZSet
)

type value struct {
	k    kind
	str  []byte
	hash map[string][]byte
	list deque
	set  map[string]struct{}
	zset *zset
}

// Start listens and serves until Close.
func Start(cfg Config) (*Server, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, ln: ln, seed: maphash.MakeSeed(), start: time.Now(), conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	for i := range s.shards {
		s.shards[i].m = map[string]*value{}
	}
	s.wg.Add(1)
	go s.acceptLoop()
	return s, nil
}

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is a redis:// URL for the server.
func (s *Server) URL() string { return "redis://" + s.Addr() }

// Close stops the server and closes every connection.
func (s *Server) Close() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	close(s.done)
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// Keys returns the number of keys stored.
func (s *Server) Keys() int64 {
	var n int64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		n += int64(len(sh.m))
		sh.mu.RUnlock()
	}
	return n
}

// Stalls returns how many stall windows have begun since start.
func (s *Server) Stalls() int64 {
	if s.cfg.StallEvery <= 0 || s.cfg.StallFor <= 0 {
		return 0
	}
	return int64(time.Since(s.start) / s.cfg.StallEvery)
}

func (s *Server) acceptLoop() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c)
	}
}

// stallWait blocks while the store is in a stall window. Windows are on
// an absolute schedule from server start: [k*every, k*every+for).
func (s *Server) stallWait() {
	every, dur := s.cfg.StallEvery, s.cfg.StallFor
	if every <= 0 || dur <= 0 {
		return
	}
	el := time.Since(s.start)
	k := el / every
	off := el - k*every
	if k > 0 && off < dur {
		time.Sleep(dur - off)
	}
}

func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	s.clients.Add(1)
	defer func() {
		s.clients.Add(-1)
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	r := bufio.NewReaderSize(c, 32<<10)
	w := bufio.NewWriterSize(c, 32<<10)
	var args [][]byte
	for {
		var err error
		args, err = readCommand(r, args[:0])
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				writeError(w, "ERR Protocol error: "+err.Error())
				w.Flush()
			}
			return
		}
		if len(args) == 0 {
			continue
		}
		s.stallWait()
		s.commands.Add(1)
		if quit := s.exec(w, args); quit {
			w.Flush()
			return
		}
		// Flush only when no pipelined command is waiting.
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

const maxBulk = 512 << 20

func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, errors.New("expected CRLF")
	}
	return line[:len(line)-2], nil
}

func readCommand(r *bufio.Reader, args [][]byte) ([][]byte, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	if len(line) == 0 {
		return args, nil
	}
	if line[0] != '*' {
		// Inline command (redis-cli, telnet).
		for _, f := range strings.Fields(string(line)) {
			args = append(args, []byte(f))
		}
		return args, nil
	}
	n, err := strconv.Atoi(string(line[1:]))
	if err != nil || n < 0 || n > 1<<20 {
		return nil, errors.New("invalid multibulk length")
	}
	for i := 0; i < n; i++ {
		line, err := readLine(r)
		if err != nil {
			return nil, err
		}
		if len(line) == 0 || line[0] != '$' {
			return nil, errors.New("expected '$'")
		}
		l, err := strconv.Atoi(string(line[1:]))
		if err != nil || l < 0 || l > maxBulk {
			return nil, errors.New("invalid bulk length")
		}
		buf := make([]byte, l+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args = append(args, buf[:l])
	}
	return args, nil
}

func writeError(w *bufio.Writer, msg string) {
	w.WriteByte('-')
	w.WriteString(msg)
	w.WriteString("\r\n")
}

func writeSimple(w *bufio.Writer, s string) {
	w.WriteByte('+')
	w.WriteString(s)
	w.WriteString("\r\n")
}

func writeInt(w *bufio.Writer, n int64) {
	var buf [24]byte
	w.WriteByte(':')
	w.Write(strconv.AppendInt(buf[:0], n, 10))
	w.WriteString("\r\n")
}

func writeBulk(w *bufio.Writer, b []byte) {
	var buf [24]byte
	w.WriteByte('$')
	w.Write(strconv.AppendInt(buf[:0], int64(len(b)), 10))
	w.WriteString("\r\n")
	w.Write(b)
	w.WriteString("\r\n")
}

func writeNil(w *bufio.Writer) { w.WriteString("$-1\r\n") }

func writeArrayLen(w *bufio.Writer, n int) {
	var buf [24]byte
	w.WriteByte('*')
	w.Write(strconv.AppendInt(buf[:0], int64(n), 10))
	w.WriteString("\r\n")
}

func (s *Server) shardFor(key []byte) *shard {
	return &s.shards[maphash.Bytes(s.seed, key)%uint64(len(s.shards))]
}

const wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"

// command is one entry of the command table: arity is the minimum number
// of arguments including the command name (exec answers the Redis arity
// error below it), handler writes the reply, quit closes the connection
// after the reply.
type command struct {
	arity   int
	handler func(s *Server, w *bufio.Writer, args [][]byte)
	quit    bool
}

// commands maps the upper-case command name to its entry. Handlers live
// by data type: cmd_server.go, cmd_strings.go, cmd_lists.go,
// cmd_hashes.go, cmd_sets.go and cmd_zsets.go.
//
// RESP framing stays the small reader above rather than
// github.com/tidwall/redcon: redcon would own the accept loop and the
// connection (Close, the stall wait and the flush-when-no-pipelined-
// command-is-waiting rule are written against net.Conn and bufio here),
// change the protocol error replies, and add a dependency for about sixty
// lines of parsing that the embedded store, a test and demo target, does
// not need to be faster.
var commands = map[string]command{
	"PING":     {1, (*Server).cmdPing, false},
	"ECHO":     {2, (*Server).cmdEcho, false},
	"QUIT":     {1, (*Server).cmdOK, true},
	"SELECT":   {1, (*Server).cmdOK, false},
	"CLIENT":   {1, (*Server).cmdOK, false},
	"READONLY": {1, (*Server).cmdOK, false},
	"AUTH":     {1, (*Server).cmdOK, false},
	"HELLO":    {1, (*Server).cmdHello, false},
	"DBSIZE":   {1, (*Server).cmdDBSize, false},
	"FLUSHALL": {1, (*Server).cmdFlush, false},
	"FLUSHDB":  {1, (*Server).cmdFlush, false},
	"INFO":     {1, (*Server).cmdInfo, false},

	"GET":    {2, (*Server).cmdGet, false},
	"SET":    {3, (*Server).cmdSet, false},
	"MSET":   {3, (*Server).cmdMSet, false},
	"MGET":   {2, (*Server).cmdMGet, false},
	"DEL":    {2, (*Server).cmdDel, false},
	"UNLINK": {2, (*Server).cmdDel, false},
	"EXISTS": {2, (*Server).cmdExists, false},
	"INCR":   {2, (*Server).cmdIncr, false},

	"HSET":    {4, (*Server).cmdHSet, false},
	"HMSET":   {4, (*Server).cmdHMSet, false},
	"HGET":    {3, (*Server).cmdHGet, false},
	"HGETALL": {2, (*Server).cmdHGetAll, false},
	"HINCRBY": {4, (*Server).cmdHIncrBy, false},

	"LPUSH":  {3, (*Server).cmdLPush, false},
	"RPUSH":  {3, (*Server).cmdRPush, false},
	"LPOP":   {2, (*Server).cmdLPop, false},
	"RPOP":   {2, (*Server).cmdRPop, false},
	"LLEN":   {2, (*Server).cmdLLen, false},
	"LRANGE": {4, (*Server).cmdLRange, false},

	"SADD":  {3, (*Server).cmdSAdd, false},
	"SPOP":  {2, (*Server).cmdSPop, false},
	"SCARD": {2, (*Server).cmdSCard, false},

	"ZADD":          {4, (*Server).cmdZAdd, false},
	"ZREM":          {3, (*Server).cmdZRem, false},
	"ZRANGEBYSCORE": {4, (*Server).cmdZRangeByScore, false},
	"ZSCORE":        {3, (*Server).cmdZScore, false},
	"ZCARD":         {2, (*Server).cmdZCard, false},
	"ZPOPMIN":       {2, (*Server).cmdZPopMin, false},
}

// exec runs one command and writes its reply; it returns true on QUIT.
func (s *Server) exec(w *bufio.Writer, args [][]byte) bool {
	cmd := strings.ToUpper(string(args[0]))
	c, ok := commands[cmd]
	if !ok || (s.cfg.Restricted && restricted[cmd]) {
		writeError(w, fmt.Sprintf("ERR unknown command '%s'", strings.ToLower(cmd)))
		return false
	}
	if len(args) < c.arity {
		writeArityError(w, args)
		return false
	}
	c.handler(s, w, args)
	return c.quit
}

// writeArityError answers a command called with the wrong number of
// arguments; handlers with a stricter rule than the table's minimum (MSET,
// HSET, ZADD pairs) call it too.
func writeArityError(w *bufio.Writer, args [][]byte) {
	writeError(w, fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(strings.ToUpper(string(args[0])))))
}
