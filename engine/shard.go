package engine

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/soakd/soakd/scenarios"
)

// Sharding: a scenario split over N processes (hosts, pods). Shard i of N
//   - runs rate/N of every segment on its own absolute schedule (closed
//     loop stays closed loop),
//   - loads records [i*R/N, (i+1)*R/N) of a load phase of R records, so
//     the N shards together load exactly R records, no overlap, no gap,
//   - reads (and updates) draw from the whole keyspace,
//   - inserts in non-load phases use record numbers base+k*N+i (k = this
//     shard's k-th insert, base = the largest record count any phase of
//     the scenario loads), disjoint across shards.

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

// phaseSeed is the random stream of phase pi on shard shard: every
// shard, phase and (through the worker index) worker of a run draws
// its own keys, values and op sequence from it.
func phaseSeed(seed int64, shard, pi int) uint64 {
	return scenarios.Mix64(uint64(seed)*0x9e3779b97f4a7c15+uint64(pi)*0x2545f4914f6cdd1d+1) ^
		scenarios.Mix64(uint64(shard)+0x5eed5eed)
}

// shardState is the runner's per-run sharding state.
type shardState struct {
	shard      Shard
	insertBase int64        // first record number for steady inserts
	inserts    atomic.Int64 // this shard's inserts so far
}

func newShardState(sh Shard, sc *scenarios.Scenario) *shardState {
	st := &shardState{shard: sh, insertBase: sc.Keyspace.Records}
	for _, p := range sc.Phases {
		if p.Kind == scenarios.PhaseLoad && p.Records > st.insertBase {
			st.insertBase = p.Records
		}
	}
	return st
}

// shardSegments scales every segment to this shard: rate/N and, for a
// sequential (load) segment, its slice of the records.
func (r *runner) shardSegments(segs []segment) {
	sh := r.opts.Shard
	if sh.Count <= 1 {
		return
	}
	for i := range segs {
		s := &segs[i]
		if s.Rate > 0 {
			// Interleave: shard I's op k is intended at (k*N+I)/total.
			s.Offset = time.Duration(float64(sh.Index) * 1e9 / s.Rate)
		}
		s.Rate = sh.Part(s.Rate)
		if s.Sequential && s.Limit > 0 {
			// KeyBase..KeyBase+Limit is the whole load; take this shard's slice.
			lo, hi := sh.Range(int64(s.Limit))
			s.KeyBase += lo
			s.Limit = uint64(hi - lo)
		} else if s.Limit > 0 {
			// requests: N is the total over all shards.
			lo, hi := sh.Range(int64(s.Limit))
			s.Limit = uint64(hi - lo)
		}
	}
}

// loadedThrough returns the record count that exists once every shard
// has run sequential segment s (which scheduled n ops on this shard).
func (r *runner) loadedThrough(s *segment, n uint64, ph *scenarios.Phase) int64 {
	if r.opts.Shard.Count <= 1 || ph.Kind != scenarios.PhaseLoad {
		return s.KeyBase + int64(n)
	}
	if n < s.Limit {
		// This shard stopped early (cancelled): only its own prefix is known.
		return s.KeyBase + int64(n)
	}
	return ph.Records
}

// nextInsertKey returns the record number of the next insert in a
// non-sequential segment.
func (r *runner) nextInsertKey() int64 {
	st := r.shard
	if st == nil || st.shard.Count <= 1 {
		return r.inserted.Add(1) - 1
	}
	k := st.inserts.Add(1) - 1
	key := st.insertBase + k*int64(st.shard.Count) + int64(st.shard.Index)
	// The shared counter tracks the highest record known to exist (this
	// shard's; the others insert at the same pace) for latest/uniform reads.
	r.inserted.Max(key + 1)
	return key
}

// CheckShard reports why sc cannot be split into sh.Count shards.
func CheckShard(sc *scenarios.Scenario, sh Shard) error {
	if err := sh.Validate(); err != nil {
		return err
	}
	for _, p := range sc.Phases {
		if p.Kind == scenarios.PhaseLoad && p.Records < int64(sh.Count) {
			return fmt.Errorf("phase %s loads %d records, fewer than %d shards", p.Name, p.Records, sh.Count)
		}
		if p.Requests > 0 && p.Requests < int64(sh.Count) {
			return fmt.Errorf("phase %s runs %d requests, fewer than %d shards", p.Name, p.Requests, sh.Count)
		}
	}
	return nil
}
