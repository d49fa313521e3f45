package rundir

import (
	"testing"
)

// The shards' record ranges cover 0..n exactly once, in order, for
// counts that do and do not divide n; their rates add up to the whole.
func TestShardRangesPartitionTheRecords(t *testing.T) {
	for _, n := range []int64{0, 1, 7, 1000, 10_000_000_001} {
		for count := 1; count <= 7; count++ {
			next := int64(0)
			var rate float64
			for i := 0; i < count; i++ {
				s := Shard{Index: i, Count: count}
				lo, hi := s.Range(n)
				if lo != next || hi < lo {
					t.Fatalf("n %d, shard %v: [%d, %d) after %d", n, s, lo, hi, next)
				}
				next = hi
				rate += s.Part(900)
			}
			if next != n {
				t.Fatalf("n %d over %d shards ends at %d", n, count, next)
			}
			if rate < 900-1e-9 || rate > 900+1e-9 {
				t.Fatalf("%d shards' rates add up to %g, want 900", count, rate)
			}
		}
	}
}
