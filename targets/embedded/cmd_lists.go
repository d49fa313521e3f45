package embedded

import (
	"bufio"
	"strconv"
)

// List commands.

func (s *Server) cmdLPush(w *bufio.Writer, args [][]byte) { s.push(w, args, true) }
func (s *Server) cmdRPush(w *bufio.Writer, args [][]byte) { s.push(w, args, false) }

func (s *Server) push(w *bufio.Writer, args [][]byte, front bool) {
	sh := s.shardFor(args[1])
	sh.mu.Lock()
	v := sh.m[string(args[1])]
	if v == nil {
		v = &value{k: kList}
		sh.m[string(args[1])] = v
	} else if v.k != kList {
		sh.mu.Unlock()
		writeError(w, wrongType)
		return
	}
	for _, e := range args[2:] {
		e = append([]byte(nil), e...)
		if front {
			v.list.pushFront(e)
		} else {
			v.list.pushBack(e)
		}
	}
	n := int64(v.list.len())
	sh.mu.Unlock()
	writeInt(w, n)
}

func (s *Server) cmdLPop(w *bufio.Writer, args [][]byte) { s.pop(w, args, true) }
func (s *Server) cmdRPop(w *bufio.Writer, args [][]byte) { s.pop(w, args, false) }

func (s *Server) pop(w *bufio.Writer, args [][]byte, front bool) {
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
		if front {
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
}

func (s *Server) cmdLLen(w *bufio.Writer, args [][]byte) {
	sh := s.shardFor(args[1])
	sh.mu.RLock()
	v := sh.m[string(args[1])]
	if v != nil && v.k == kList {
		writeInt(w, int64(v.list.len()))
	} else {
		writeInt(w, 0)
	}
	sh.mu.RUnlock()
}

func (s *Server) cmdLRange(w *bufio.Writer, args [][]byte) {
	start, err1 := strconv.Atoi(string(args[2]))
	stop, err2 := strconv.Atoi(string(args[3]))
	if err1 != nil || err2 != nil {
		writeError(w, "ERR value is not an integer or out of range")
		return
	}
	sh := s.shardFor(args[1])
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	v := sh.m[string(args[1])]
	if v == nil {
		writeArrayLen(w, 0)
		return
	}
	if v.k != kList {
		writeError(w, wrongType)
		return
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
		return
	}
	writeArrayLen(w, stop-start+1)
	for i := start; i <= stop; i++ {
		writeBulk(w, v.list.at(i))
	}
}
