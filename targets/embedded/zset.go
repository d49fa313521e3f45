package embedded

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// zset is a sorted set: a member->score map plus the (score, member)
// order kept in chunks of bounded size, so inserts and range reads stay
// cheap at millions of members.
type zset struct {
	scores map[string]float64
	chunks [][]zentry
	n      int
}

type zentry struct {
	score  float64
	member string
}

const zchunkMax = 512

func less(a, b zentry) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.member < b.member
}

func newZset() *zset { return &zset{scores: map[string]float64{}} }

// find returns the chunk index and position of the first entry >= e.
func (z *zset) find(e zentry) (int, int) {
	ci := sort.Search(len(z.chunks), func(i int) bool {
		c := z.chunks[i]
		return !less(c[len(c)-1], e)
	})
	if ci == len(z.chunks) {
		return ci, 0
	}
	c := z.chunks[ci]
	return ci, sort.Search(len(c), func(i int) bool { return !less(c[i], e) })
}

// add sets member's score; it reports whether the member is new.
func (z *zset) add(member string, score float64) bool {
	old, exists := z.scores[member]
	if exists {
		if old == score {
			return false
		}
		z.remove(member)
	}
	z.scores[member] = score
	z.n++
	e := zentry{score, member}
	if len(z.chunks) == 0 {
		z.chunks = append(z.chunks, []zentry{e})
		return !exists
	}
	ci, pos := z.find(e)
	if ci == len(z.chunks) {
		ci = len(z.chunks) - 1
		pos = len(z.chunks[ci])
	}
	c := append(z.chunks[ci], zentry{})
	copy(c[pos+1:], c[pos:])
	c[pos] = e
	if len(c) > zchunkMax {
		half := len(c) / 2
		right := append([]zentry(nil), c[half:]...)
		c = c[:half:half]
		z.chunks = append(z.chunks, nil)
		copy(z.chunks[ci+2:], z.chunks[ci+1:])
		z.chunks[ci+1] = right
	}
	z.chunks[ci] = c
	return !exists
}

func (z *zset) remove(member string) bool {
	score, ok := z.scores[member]
	if !ok {
		return false
	}
	delete(z.scores, member)
	z.n--
	ci, pos := z.find(zentry{score, member})
	if ci < len(z.chunks) {
		c := z.chunks[ci]
		if pos < len(c) && c[pos].member == member {
			c = append(c[:pos], c[pos+1:]...)
			if len(c) == 0 {
				z.chunks = append(z.chunks[:ci], z.chunks[ci+1:]...)
			} else {
				z.chunks[ci] = c
			}
		}
	}
	return true
}

// rangeByScore appends up to limit (<0: all) members with min <= score
// <= max (exclusive bounds when minEx/maxEx), skipping offset.
func (z *zset) rangeByScore(min, max float64, minEx, maxEx bool, offset, limit int, fn func(zentry)) {
	ci, pos := z.find(zentry{score: min})
	for ; ci < len(z.chunks); ci, pos = ci+1, 0 {
		for _, e := range z.chunks[ci][pos:] {
			if minEx && e.score == min {
				continue
			}
			if e.score > max || (maxEx && e.score == max) {
				return
			}
			if offset > 0 {
				offset--
				continue
			}
			if limit == 0 {
				return
			}
			fn(e)
			if limit > 0 {
				limit--
			}
		}
	}
}

// parseScoreBound parses a ZRANGEBYSCORE bound: 5, (5, -inf, +inf.
func parseScoreBound(s string) (float64, bool, error) {
	ex := strings.HasPrefix(s, "(")
	s = strings.TrimPrefix(s, "(")
	switch strings.ToLower(s) {
	case "-inf":
		return math.Inf(-1), ex, nil
	case "+inf", "inf":
		return math.Inf(1), ex, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, ex, err
}
