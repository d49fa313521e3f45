package embedded

import "bufio"

// Set commands.

func (s *Server) cmdSAdd(w *bufio.Writer, args [][]byte) {
	sh := s.shardFor(args[1])
	sh.mu.Lock()
	v := sh.m[string(args[1])]
	if v == nil {
		v = &value{k: kSet, set: map[string]struct{}{}}
		sh.m[string(args[1])] = v
	} else if v.k != kSet {
		sh.mu.Unlock()
		writeError(w, wrongType)
		return
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
}

func (s *Server) cmdSPop(w *bufio.Writer, args [][]byte) {
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
}

func (s *Server) cmdSCard(w *bufio.Writer, args [][]byte) {
	sh := s.shardFor(args[1])
	sh.mu.RLock()
	v := sh.m[string(args[1])]
	if v != nil && v.k == kSet {
		writeInt(w, int64(len(v.set)))
	} else {
		writeInt(w, 0)
	}
	sh.mu.RUnlock()
}
