package rundir

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard identifies this process's slice of a scenario split over hosts.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s Shard) String() string {
	if s.Count <= 1 {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard parses "i/N" (0 <= i < N) or a bare "" (no sharding: 0/1).
func ParseShard(s string) (Shard, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Shard{Index: 0, Count: 1}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want INDEX/COUNT, e.g. 0/4", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want INDEX/COUNT as integers, e.g. 0/4", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Validate()
}

// Validate checks 0 <= Index < Count.
func (s Shard) Validate() error {
	if s.Count < 1 {
		return fmt.Errorf("shard %d/%d: count must be at least 1", s.Index, s.Count)
	}
	if s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: index must be in 0..%d", s.Index, s.Count, s.Count-1)
	}
	return nil
}

// Label is the shard's Prometheus label value: its index.
func (s Shard) Label() string { return strconv.Itoa(s.Index) }

// Range returns this shard's slice [lo, hi) of n records.
func (s Shard) Range(n int64) (lo, hi int64) {
	if s.Count <= 1 {
		return 0, n
	}
	c := int64(s.Count)
	return int64(s.Index) * n / c, (int64(s.Index) + 1) * n / c
}

// Part returns this shard's share of rate r.
func (s Shard) Part(r float64) float64 {
	if s.Count <= 1 {
		return r
	}
	return r / float64(s.Count)
}
