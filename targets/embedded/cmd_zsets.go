package embedded

import (
	"bufio"
	"strconv"
	"strings"
)

// Sorted-set commands: the redis adapter's scan index and the
// redis-benchmark suite's ZADD/ZPOPMIN use them.

// withZset locks the key's shard (for writing when write is set), answers
// WRONGTYPE for a key of another type, and otherwise calls fn with the
// key's value, nil when the key is absent.
func (s *Server) withZset(w *bufio.Writer, args [][]byte, write bool, fn func(sh *shard, v *value)) {
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
	fn(sh, v)
}

func writeScore(w *bufio.Writer, f float64) {
	writeBulk(w, strconv.AppendFloat(nil, f, 'g', -1, 64))
}

func (s *Server) cmdZAdd(w *bufio.Writer, args [][]byte) {
	argc := len(args)
	if argc%2 != 0 {
		writeArityError(w, args)
		return
	}
	s.withZset(w, args, true, func(sh *shard, v *value) {
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
	})
}

func (s *Server) cmdZRem(w *bufio.Writer, args [][]byte) {
	s.withZset(w, args, true, func(sh *shard, v *value) {
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
	})
}

func (s *Server) cmdZPopMin(w *bufio.Writer, args [][]byte) {
	argc := len(args)
	s.withZset(w, args, true, func(sh *shard, v *value) {
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
			writeScore(w, e.score)
		}
	})
}

func (s *Server) cmdZScore(w *bufio.Writer, args [][]byte) {
	s.withZset(w, args, false, func(_ *shard, v *value) {
		if v == nil {
			writeNil(w)
			return
		}
		f, ok := v.zset.scores[string(args[2])]
		if !ok {
			writeNil(w)
			return
		}
		writeScore(w, f)
	})
}

func (s *Server) cmdZCard(w *bufio.Writer, args [][]byte) {
	s.withZset(w, args, false, func(_ *shard, v *value) {
		if v == nil {
			writeInt(w, 0)
			return
		}
		writeInt(w, int64(v.zset.n))
	})
}

func (s *Server) cmdZRangeByScore(w *bufio.Writer, args [][]byte) {
	argc := len(args)
	s.withZset(w, args, false, func(_ *shard, v *value) {
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
				writeScore(w, e.score)
			}
		}
	})
}
