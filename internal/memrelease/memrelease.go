// Package memrelease hands the Go heap's free pages back to the OS at a
// fixed interval while a long run goes on.
//
// Between two garbage collections the heap grows from the live data to
// the GC's goal (twice the live heap at GOGC=100) and the allocator
// touches new pages as it goes. After a collection the runtime keeps
// those pages: its background scavenger returns only what lies above
// about 110% of the goal. So a soak's RSS creeps for hours as the
// allocator reaches into more of the pages it holds, although the live
// heap and the memory mapped stay flat: measured at 20,000 ops/s, the
// anonymous RSS went 24.0 -> 28.4 MiB in 80 minutes with 35 MiB held
// throughout. Releasing at an interval makes RSS a sawtooth around a
// level that does not move, so a real leak stands out from it.
//
// Each release is debug.FreeOSMemory: a forced, concurrent GC (the
// mark work of the live heap) and then the return of every free page
// (madvise), which the allocator faults in again as it needs them:
// 0.5 ms for a 16 MiB live heap (BenchmarkRelease), and a release every
// second did not move the schedule's lag at 6,000 or 50,000 ops/s on
// one core.
package memrelease

import (
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// Default is the interval `soakd run` and `soakd serve` release at.
// Between two releases the heap's resident pages grow by what was
// allocated since the last one (a GC cycle at 20,000 ops/s takes ~2
// minutes, longer than the interval), so the interval sets the RSS
// sawtooth's height: ~8 MiB at a minute, ~1.4 MiB at 10 s, for ~0.05 ms
// of CPU a second (docs/capacity.md#memory).
const Default = 10 * time.Second

// Min and Max bound the interval: shorter than Min the forced GCs
// would outnumber the heap's own; longer than Max the RSS between
// releases is what the runtime would have kept anyway.
const (
	Min = time.Second
	Max = 24 * time.Hour
)

// Check refuses an interval out of bounds; 0 (never) is allowed.
func Check(every time.Duration) error {
	if every == 0 || (every >= Min && every <= Max) {
		return nil
	}
	return fmt.Errorf("%v: use %v to %v, or 0 to never release", every, Min, Max)
}

// Start calls release every interval until stop is called (nil release:
// debug.FreeOSMemory). With every 0 it starts nothing. stop waits for a
// release in progress to end and returns how many were made; it may be
// called more than once, from any goroutine.
func Start(every time.Duration, release func()) (stop func() int) {
	if every <= 0 {
		return func() int { return 0 }
	}
	if release == nil {
		release = debug.FreeOSMemory
	}
	quit := make(chan struct{})
	done := make(chan int)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		n := 0
		for {
			select {
			case <-quit:
				done <- n
				return
			case <-t.C:
				select {
				case <-quit: // stop asked while the tick fired
					done <- n
					return
				default:
				}
				release()
				n++
			}
		}
	}()
	var once sync.Once
	var count int
	return func() int {
		once.Do(func() {
			close(quit)
			count = <-done
		})
		return count
	}
}
