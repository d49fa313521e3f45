package engine

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/soakd/soakd/rundir"
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

// phaseSeed is the random stream of phase pi on shard shard: every
// shard, phase and (through the worker index) worker of a run draws
// its own keys, values and op sequence from it.
func phaseSeed(seed int64, shard, pi int) uint64 {
	return scenarios.Mix64(uint64(seed)*0x9e3779b97f4a7c15+uint64(pi)*0x2545f4914f6cdd1d+1) ^
		scenarios.Mix64(uint64(shard)+0x5eed5eed)
}

// shardState is the runner's per-run sharding state.
type shardState struct {
	shard      rundir.Shard
	insertBase int64        // first record number for steady inserts
	inserts    atomic.Int64 // this shard's inserts so far
}

func newShardState(sh rundir.Shard, sc *scenarios.Scenario) *shardState {
	st := &shardState{shard: sh, insertBase: sc.Keyspace.Records}
	for _, p := range sc.Phases {
		st.insertBase = max(st.insertBase, loadRecords(&p))
	}
	return st
}

// shardSegments scales every segment to this shard: rate/N and, for a
// sequential (load) segment, its slice of the records.
func shardSegments(sh rundir.Shard, segs []segment) {
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

// nextInsertKey returns the record number of the next insert in a
// non-sequential segment.
func (st *shardState) nextInsertKey(inserted *scenarios.Inserted) int64 {
	if st == nil || st.shard.Count <= 1 {
		return inserted.Add(1) - 1
	}
	k := st.inserts.Add(1) - 1
	key := st.insertBase + k*int64(st.shard.Count) + int64(st.shard.Index)
	// The shared counter tracks the highest record known to exist (this
	// shard's; the others insert at the same pace) for latest/uniform reads.
	inserted.Max(key + 1)
	return key
}

// shardRefuser is an executor whose phases cannot run split across
// shards.
type shardRefuser interface {
	// refuseShards says why ph cannot run as one of sh.Count shards.
	refuseShards(ph *scenarios.Phase, sh rundir.Shard) error
}

// refuseShards is the error of a sharded run (sh.Count > 1) whose phase
// ph is of a kind that cannot be sharded.
func refuseShards(ph *scenarios.Phase, sh rundir.Shard) error {
	if sh.Count <= 1 {
		return nil
	}
	e, ok := executorFor(ph.Kind)
	if !ok {
		return nil
	}
	if r, ok := e.(shardRefuser); ok {
		return r.refuseShards(ph, sh)
	}
	return nil
}

// CheckShard reports why sc cannot be split into sh.Count shards. soakd
// run calls it before it opens the target, and Run again first thing.
func CheckShard(sc *scenarios.Scenario, sh rundir.Shard) error {
	if err := sh.Validate(); err != nil {
		return err
	}
	for _, p := range sc.Phases {
		if err := refuseShards(&p, sh); err != nil {
			return err
		}
		if n := loadRecords(&p); n > 0 && n < int64(sh.Count) {
			return fmt.Errorf("phase %s loads %d records, fewer than %d shards", p.Name, n, sh.Count)
		}
		if p.Requests > 0 && p.Requests < int64(sh.Count) {
			return fmt.Errorf("phase %s runs %d requests, fewer than %d shards", p.Name, p.Requests, sh.Count)
		}
	}
	return nil
}
