package embedded

import (
	"bufio"
	"strconv"
)

// String and keyspace commands.

func (s *Server) cmdGet(w *bufio.Writer, args [][]byte) {
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
}

func (s *Server) cmdSet(w *bufio.Writer, args [][]byte) {
	s.set(args[1], args[2])
	writeSimple(w, "OK")
}

func (s *Server) cmdMSet(w *bufio.Writer, args [][]byte) {
	if len(args)%2 == 0 {
		writeArityError(w, args)
		return
	}
	for i := 1; i < len(args); i += 2 {
		s.set(args[i], args[i+1])
	}
	writeSimple(w, "OK")
}

func (s *Server) cmdMGet(w *bufio.Writer, args [][]byte) {
	writeArrayLen(w, len(args)-1)
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
}

// cmdDel answers DEL and UNLINK.
func (s *Server) cmdDel(w *bufio.Writer, args [][]byte) {
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
}

func (s *Server) cmdExists(w *bufio.Writer, args [][]byte) {
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
}

func (s *Server) cmdIncr(w *bufio.Writer, args [][]byte) {
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
		return
	default:
		cur, err := strconv.ParseInt(string(v.str), 10, 64)
		if err != nil {
			sh.mu.Unlock()
			writeError(w, "ERR value is not an integer or out of range")
			return
		}
		n = cur + 1
		v.str = strconv.AppendInt(v.str[:0], n, 10)
	}
	sh.mu.Unlock()
	writeInt(w, n)
}

func (s *Server) set(k, v []byte) {
	sh := s.shardFor(k)
	sh.mu.Lock()
	sh.m[string(k)] = &value{k: kString, str: append([]byte(nil), v...)}
	sh.mu.Unlock()
}
