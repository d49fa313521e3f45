package embedded

import (
	"bufio"
	"strconv"
)

// Hash commands.

func (s *Server) cmdHSet(w *bufio.Writer, args [][]byte) {
	if added, ok := s.hset(w, args); ok {
		writeInt(w, added)
	}
}

func (s *Server) cmdHMSet(w *bufio.Writer, args [][]byte) {
	if _, ok := s.hset(w, args); ok {
		writeSimple(w, "OK")
	}
}

// hset stores field/value pairs; it returns the number of new fields and
// false when it has already written an error.
func (s *Server) hset(w *bufio.Writer, args [][]byte) (int64, bool) {
	argc := len(args)
	if argc%2 != 0 {
		writeArityError(w, args)
		return 0, false
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
		return 0, false
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
	return added, true
}

func (s *Server) cmdHGet(w *bufio.Writer, args [][]byte) {
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
}

func (s *Server) cmdHGetAll(w *bufio.Writer, args [][]byte) {
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
}

// cmdHIncrBy adds an integer to a hash field (0 when absent), as the
// custom ops of a cart or counter scenario send it.
func (s *Server) cmdHIncrBy(w *bufio.Writer, args [][]byte) {
	if len(args) != 4 {
		writeArityError(w, args)
		return
	}
	by, err := strconv.ParseInt(string(args[3]), 10, 64)
	if err != nil {
		writeError(w, "ERR value is not an integer or out of range")
		return
	}
	sh := s.shardFor(args[1])
	sh.mu.Lock()
	defer sh.mu.Unlock()
	v := sh.m[string(args[1])]
	if v == nil {
		v = &value{k: kHash, hash: map[string][]byte{}}
		sh.m[string(args[1])] = v
	} else if v.k != kHash {
		writeError(w, wrongType)
		return
	}
	var cur int64
	if old, ok := v.hash[string(args[2])]; ok {
		if cur, err = strconv.ParseInt(string(old), 10, 64); err != nil {
			writeError(w, "ERR hash value is not an integer")
			return
		}
	}
	cur += by
	v.hash[string(args[2])] = strconv.AppendInt(nil, cur, 10)
	writeInt(w, cur)
}
