package memrelease

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestReleasesAtTheInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int64
		stop := Start(time.Minute, func() { n.Add(1) })
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if got := n.Load(); got != 0 {
			t.Fatalf("%d releases before the first interval ended", got)
		}
		time.Sleep(3*time.Minute + time.Second) // at 4m
		synctest.Wait()
		if got := n.Load(); got != 4 {
			t.Fatalf("%d releases in 4 minutes, want 4", got)
		}
		if got := stop(); got != 4 {
			t.Fatalf("stop says %d releases, want 4", got)
		}
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if got := n.Load(); got != 4 {
			t.Fatalf("%d releases after stop, want 4", got)
		}
		if got := stop(); got != 4 {
			t.Fatalf("a second stop says %d, want 4", got)
		}
	})
}

func TestNeverStartsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int64
		stop := Start(0, func() { n.Add(1) })
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := n.Load() + int64(stop()); got != 0 {
			t.Fatalf("%d releases with every 0", got)
		}
	})
}

func TestStopWaitsForARelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ended atomic.Bool
		stop := Start(time.Second, func() { time.Sleep(5 * time.Second); ended.Store(true) })
		time.Sleep(1500 * time.Millisecond) // a release is under way
		if got := stop(); got != 1 || !ended.Load() {
			t.Fatalf("stop returned %d with the release ended=%v, want 1 and ended", got, ended.Load())
		}
	})
}

func TestCheck(t *testing.T) {
	for _, ok := range []time.Duration{0, time.Second, time.Minute, 24 * time.Hour} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%v): %v", ok, err)
		}
	}
	for _, bad := range []time.Duration{-time.Second, time.Millisecond, 999 * time.Millisecond, 25 * time.Hour} {
		err := Check(bad)
		if err == nil || !strings.Contains(err.Error(), "use 1s to 24h0m0s, or 0 to never release") {
			t.Errorf("Check(%v) = %v, want the bounds", bad, err)
		}
	}
}

func TestDefaultReleaseIsTheRuntimes(t *testing.T) {
	// A real release: FreeOSMemory returns the heap's free pages, so the
	// heap's released memory grows by most of a large block freed before
	// (the background scavenger alone returns none of it within seconds).
	sample := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	big := make([]byte, 64<<20)
	for i := range big {
		big[i] = 1
	}
	runtime.KeepAlive(big)
	big = nil
	runtime.GC() // big is free now, but its pages are still held
	metrics.Read(sample)
	before := sample[0].Value.Uint64()
	stop := Start(Min, nil)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		metrics.Read(sample)
		if sample[0].Value.Uint64() >= before+32<<20 {
			break
		}
	}
	n := stop()
	metrics.Read(sample)
	if after := sample[0].Value.Uint64(); n < 1 || after < before+32<<20 {
		t.Fatalf("%d releases; heap released %d -> %d bytes, want 32 MiB more", n, before, after)
	}
}

// BenchmarkRelease is one release's cost with a live heap shaped like a
// 20,000 ops/s soak's (16 MiB, mostly the tallies' count slices and
// small objects pointing at them), after 4 MiB of garbage: what a
// release a minute finds at that rate.
//
//	go test -run XXX -bench Release ./internal/memrelease/
func BenchmarkRelease(b *testing.B) {
	live := make([][]int64, 0, 2048)
	for len(live) < cap(live) {
		live = append(live, make([]int64, 1024)) // 8 kB each: 16 MiB
	}
	var garbage [][]byte
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		garbage = garbage[:0]
		for i := 0; i < 4096; i++ {
			garbage = append(garbage, make([]byte, 1024))
		}
		garbage = nil
		b.StartTimer()
		debug.FreeOSMemory()
	}
	runtime.KeepAlive(live)
}
