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

// exec runs one command and writes its reply; it returns true on QUIT.
func (s *Server) exec(w *bufio.Writer, args [][]byte) bool {
	cmd := strings.ToUpper(string(args[0]))
	argc := len(args)
	arity := func(min int) bool {
		if argc < min {
			writeError(w, fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(cmd)))
			return false
		}
		return true
	}
	if s.cfg.Restricted && restricted[cmd] {
		writeError(w, fmt.Sprintf("ERR unknown command '%s'", strings.ToLower(cmd)))
		return false
	}
	switch cmd {
	case "PING":
		if argc > 1 {
			writeBulk(w, args[1])
		} else {
			writeSimple(w, "PONG")
		}
	case "ECHO":
		if arity(2) {
			writeBulk(w, args[1])
		}
	case "QUIT":
		writeSimple(w, "OK")
		return true
	case "SELECT", "CLIENT", "READONLY", "AUTH":
		writeSimple(w, "OK")
	case "HELLO":
		// RESP3 is not spoken; clients fall back to RESP2 on this error.
		writeError(w, "ERR unknown command 'HELLO'")
	case "DBSIZE":
		writeInt(w, s.Keys())
	case "FLUSHALL", "FLUSHDB":
		for i := range s.shards {
			sh := &s.shards[i]
			sh.mu.Lock()
			sh.m = map[string]*value{}
			sh.mu.Unlock()
		}
		writeSimple(w, "OK")
	case "INFO":
		writeBulk(w, []byte(s.info()))
	case "GET":
		if !arity(2) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.RLock()
		v := sh.m[string(args[1])]
		switch {
		case v == nil:
			writeNil(w)
		case v.k != kString:
			writeError(w, wrongType)
		default:
			writeBulk(w, v.str)
		}
		sh.mu.RUnlock()
	case "SET":
		if !arity(3) {
			break
		}
		s.set(args[1], args[2])
		writeSimple(w, "OK")
	case "MSET":
		if argc < 3 || argc%2 == 0 {
			writeError(w, "ERR wrong number of arguments for 'mset' command")
			break
		}
		for i := 1; i < argc; i += 2 {
			s.set(args[i], args[i+1])
		}
		writeSimple(w, "OK")
	case "MGET":
		if !arity(2) {
			break
		}
		writeArrayLen(w, argc-1)
		for _, k := range args[1:] {
			sh := s.shardFor(k)
			sh.mu.RLock()
			if v := sh.m[string(k)]; v != nil && v.k == kString {
				writeBulk(w, v.str)
			} else {
				writeNil(w)
			}
			sh.mu.RUnlock()
		}
	case "DEL", "UNLINK":
		if !arity(2) {
			break
		}
		var n int64
		for _, k := range args[1:] {
			sh := s.shardFor(k)
			sh.mu.Lock()
			if _, ok := sh.m[string(k)]; ok {
				delete(sh.m, string(k))
				n++
			}
			sh.mu.Unlock()
		}
		writeInt(w, n)
	case "EXISTS":
		if !arity(2) {
			break
		}
		var n int64
		for _, k := range args[1:] {
			sh := s.shardFor(k)
			sh.mu.RLock()
			if _, ok := sh.m[string(k)]; ok {
				n++
			}
			sh.mu.RUnlock()
		}
		writeInt(w, n)
	case "INCR":
		if !arity(2) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.Lock()
		v := sh.m[string(args[1])]
		var n int64
		switch {
		case v == nil:
			n = 1
			sh.m[string(args[1])] = &value{k: kString, str: []byte("1")}
		case v.k != kString:
			sh.mu.Unlock()
			writeError(w, wrongType)
			return false
		default:
			cur, err := strconv.ParseInt(string(v.str), 10, 64)
			if err != nil {
				sh.mu.Unlock()
				writeError(w, "ERR value is not an integer or out of range")
				return false
			}
			n = cur + 1
			v.str = strconv.AppendInt(v.str[:0], n, 10)
		}
		sh.mu.Unlock()
		writeInt(w, n)
	case "HSET", "HMSET":
		if argc < 4 || argc%2 != 0 {
			writeError(w, fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(cmd)))
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.Lock()
		v := sh.m[string(args[1])]
		if v == nil {
			v = &value{k: kHash, hash: make(map[string][]byte, (argc-2)/2)}
			sh.m[string(args[1])] = v
		} else if v.k != kHash {
			sh.mu.Unlock()
			writeError(w, wrongType)
			return false
		}
		var added int64
		for i := 2; i < argc; i += 2 {
			f := string(args[i])
			if _, ok := v.hash[f]; !ok {
				added++
			}
			v.hash[f] = append([]byte(nil), args[i+1]...)
		}
		sh.mu.Unlock()
		if cmd == "HMSET" {
			writeSimple(w, "OK")
		} else {
			writeInt(w, added)
		}
	case "HGET":
		if !arity(3) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.RLock()
		v := sh.m[string(args[1])]
		switch {
		case v == nil:
			writeNil(w)
		case v.k != kHash:
			writeError(w, wrongType)
		default:
			if fv, ok := v.hash[string(args[2])]; ok {
				writeBulk(w, fv)
			} else {
				writeNil(w)
			}
		}
		sh.mu.RUnlock()
	case "HGETALL":
		if !arity(2) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.RLock()
		v := sh.m[string(args[1])]
		switch {
		case v == nil:
			writeArrayLen(w, 0)
		case v.k != kHash:
			writeError(w, wrongType)
		default:
			writeArrayLen(w, 2*len(v.hash))
			for f, fv := range v.hash {
				writeBulk(w, []byte(f))
				writeBulk(w, fv)
			}
		}
		sh.mu.RUnlock()
	case "LPUSH", "RPUSH":
		if !arity(3) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.Lock()
		v := sh.m[string(args[1])]
		if v == nil {
			v = &value{k: kList}
			sh.m[string(args[1])] = v
		} else if v.k != kList {
			sh.mu.Unlock()
			writeError(w, wrongType)
			return false
		}
		for _, e := range args[2:] {
			e = append([]byte(nil), e...)
			if cmd == "LPUSH" {
				v.list.pushFront(e)
			} else {
				v.list.pushBack(e)
			}
		}
		n := int64(v.list.len())
		sh.mu.Unlock()
		writeInt(w, n)
	case "LPOP", "RPOP":
		if !arity(2) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.Lock()
		v := sh.m[string(args[1])]
		switch {
		case v == nil:
			writeNil(w)
		case v.k != kList:
			writeError(w, wrongType)
		default:
			var e []byte
			if cmd == "LPOP" {
				e = v.list.popFront()
			} else {
				e = v.list.popBack()
			}
			if v.list.len() == 0 {
				delete(sh.m, string(args[1]))
			}
			writeBulk(w, e)
		}
		sh.mu.Unlock()
	case "LLEN":
		if !arity(2) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.RLock()
		v := sh.m[string(args[1])]
		if v != nil && v.k == kList {
			writeInt(w, int64(v.list.len()))
		} else {
			writeInt(w, 0)
		}
		sh.mu.RUnlock()
	case "LRANGE":
		if !arity(4) {
			break
		}
		start, err1 := strconv.Atoi(string(args[2]))
		stop, err2 := strconv.Atoi(string(args[3]))
		if err1 != nil || err2 != nil {
			writeError(w, "ERR value is not an integer or out of range")
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.RLock()
		v := sh.m[string(args[1])]
		if v == nil || v.k != kList {
			if v != nil {
				writeError(w, wrongType)
			} else {
				writeArrayLen(w, 0)
			}
			sh.mu.RUnlock()
			break
		}
		n := v.list.len()
		if start < 0 {
			start += n
		}
		if stop < 0 {
			stop += n
		}
		if start < 0 {
			start = 0
		}
		if stop >= n {
			stop = n - 1
		}
		if start > stop {
			writeArrayLen(w, 0)
		} else {
			writeArrayLen(w, stop-start+1)
			for i := start; i <= stop; i++ {
				writeBulk(w, v.list.at(i))
			}
		}
		sh.mu.RUnlock()
	case "SADD":
		if !arity(3) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.Lock()
		v := sh.m[string(args[1])]
		if v == nil {
			v = &value{k: kSet, set: map[string]struct{}{}}
			sh.m[string(args[1])] = v
		} else if v.k != kSet {
			sh.mu.Unlock()
			writeError(w, wrongType)
			return false
		}
		var added int64
		for _, e := range args[2:] {
			if _, ok := v.set[string(e)]; !ok {
				v.set[string(e)] = struct{}{}
				added++
			}
		}
		sh.mu.Unlock()
		writeInt(w, added)
	case "SPOP":
		if !arity(2) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.Lock()
		v := sh.m[string(args[1])]
		switch {
		case v == nil:
			writeNil(w)
		case v.k != kSet:
			writeError(w, wrongType)
		default:
			for e := range v.set {
				delete(v.set, e)
				writeBulk(w, []byte(e))
				break
			}
			if len(v.set) == 0 {
				delete(sh.m, string(args[1]))
			}
		}
		sh.mu.Unlock()
	case "SCARD":
		if !arity(2) {
			break
		}
		sh := s.shardFor(args[1])
		sh.mu.RLock()
		v := sh.m[string(args[1])]
		if v != nil && v.k == kSet {
			writeInt(w, int64(len(v.set)))
		} else {
			writeInt(w, 0)
		}
		sh.mu.RUnlock()
	case "ZADD", "ZREM", "ZRANGEBYSCORE", "ZSCORE", "ZCARD", "ZPOPMIN":
		s.execZ(w, cmd, args)
	default:
		writeError(w, fmt.Sprintf("ERR unknown command '%s'", strings.ToLower(cmd)))
	}
	return false
}

// execZ runs the sorted-set commands the redis adapter's scan index and
// the redis-benchmark suite's ZADD/ZPOPMIN use.
func (s *Server) execZ(w *bufio.Writer, cmd string, args [][]byte) {
	argc := len(args)
	min := map[string]int{"ZADD": 4, "ZREM": 3, "ZRANGEBYSCORE": 4, "ZSCORE": 3, "ZCARD": 2, "ZPOPMIN": 2}[cmd]
	if argc < min || (cmd == "ZADD" && argc%2 != 0) {
		writeError(w, fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(cmd)))
		return
	}
	write := cmd == "ZADD" || cmd == "ZREM" || cmd == "ZPOPMIN"
	sh := s.shardFor(args[1])
	if write {
		sh.mu.Lock()
		defer sh.mu.Unlock()
	} else {
		sh.mu.RLock()
		defer sh.mu.RUnlock()
	}
	v := sh.m[string(args[1])]
	if v != nil && v.k != kZSet {
		writeError(w, wrongType)
		return
	}
	switch cmd {
	case "ZADD":
		scores := make([]float64, 0, (argc-2)/2)
		for i := 2; i < argc; i += 2 {
			f, err := strconv.ParseFloat(string(args[i]), 64)
			if err != nil {
				writeError(w, "ERR value is not a valid float")
				return
			}
			scores = append(scores, f)
		}
		if v == nil {
			v = &value{k: kZSet, zset: newZset()}
			sh.m[string(args[1])] = v
		}
		var added int64
		for i, f := range scores {
			if v.zset.add(string(args[3+2*i]), f) {
				added++
			}
		}
		writeInt(w, added)
	case "ZREM":
		var n int64
		if v != nil {
			for _, m := range args[2:] {
				if v.zset.remove(string(m)) {
					n++
				}
			}
			if v.zset.n == 0 {
				delete(sh.m, string(args[1]))
			}
		}
		writeInt(w, n)
	case "ZPOPMIN":
		count := 1
		if argc > 3 {
			writeError(w, "ERR syntax error")
			return
		}
		if argc == 3 {
			n, err := strconv.Atoi(string(args[2]))
			if err != nil || n < 0 {
				writeError(w, "ERR value is out of range, must be positive")
				return
			}
			count = n
		}
		var out []zentry
		for v != nil && len(out) < count && v.zset.n > 0 {
			e := v.zset.chunks[0][0]
			v.zset.remove(e.member)
			out = append(out, e)
		}
		if v != nil && v.zset.n == 0 {
			delete(sh.m, string(args[1]))
		}
		writeArrayLen(w, 2*len(out))
		for _, e := range out {
			writeBulk(w, []byte(e.member))
			writeBulk(w, strconv.AppendFloat(nil, e.score, 'g', -1, 64))
		}
	case "ZSCORE":
		if v == nil {
			writeNil(w)
			return
		}
		f, ok := v.zset.scores[string(args[2])]
		if !ok {
			writeNil(w)
			return
		}
		writeBulk(w, strconv.AppendFloat(nil, f, 'g', -1, 64))
	case "ZCARD":
		if v == nil {
			writeInt(w, 0)
			return
		}
		writeInt(w, int64(v.zset.n))
	case "ZRANGEBYSCORE":
		lo, loEx, err1 := parseScoreBound(string(args[2]))
		hi, hiEx, err2 := parseScoreBound(string(args[3]))
		if err1 != nil || err2 != nil {
			writeError(w, "ERR min or max is not a float")
			return
		}
		offset, limit := 0, -1
		withScores := false
		for i := 4; i < argc; i++ {
			switch strings.ToUpper(string(args[i])) {
			case "WITHSCORES":
				withScores = true
			case "LIMIT":
				if i+2 >= argc {
					writeError(w, "ERR syntax error")
					return
				}
				o, e1 := strconv.Atoi(string(args[i+1]))
				l, e2 := strconv.Atoi(string(args[i+2]))
				if e1 != nil || e2 != nil {
					writeError(w, "ERR value is not an integer or out of range")
					return
				}
				offset, limit = o, l
				i += 2
			default:
				writeError(w, "ERR syntax error")
				return
			}
		}
		var out []zentry
		if v != nil {
			v.zset.rangeByScore(lo, hi, loEx, hiEx, offset, limit, func(e zentry) { out = append(out, e) })
		}
		if withScores {
			writeArrayLen(w, 2*len(out))
		} else {
			writeArrayLen(w, len(out))
		}
		for _, e := range out {
			writeBulk(w, []byte(e.member))
			if withScores {
				writeBulk(w, strconv.AppendFloat(nil, e.score, 'g', -1, 64))
			}
		}
	}
}

func (s *Server) set(k, v []byte) {
	sh := s.shardFor(k)
	sh.mu.Lock()
	sh.m[string(k)] = &value{k: kString, str: append([]byte(nil), v...)}
	sh.mu.Unlock()
}

func (s *Server) info() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Server\r\nredis_version:7.0.0-soakd-embedded\r\nredis_mode:standalone\r\nuptime_in_seconds:%d\r\n", int(time.Since(s.start).Seconds()))
	fmt.Fprintf(&b, "# Clients\r\nconnected_clients:%d\r\n", s.clients.Load())
	fmt.Fprintf(&b, "# Stats\r\ntotal_commands_processed:%d\r\nsoakd_embedded_stalls:%d\r\n", s.commands.Load(), s.Stalls())
	fmt.Fprintf(&b, "# Keyspace\r\ndb0:keys=%d,expires=0,avg_ttl=0\r\n", s.Keys())
	return b.String()
}
