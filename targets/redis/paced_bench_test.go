//go:build linux

package redis

import (
	"syscall"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// BenchmarkPacedOp is the fast path as a slow soak drives it: one op,
// then the process idle until the next (a 200 us pause on a timerfd,
// newRawPause, which wakes nothing but its own thread), so that every op
// finds the runtime asleep and pays the wake-ups of a modest rate, not
// the batched cost of a closed loop. It reports the client's CPU per op
// (cpu-ns/op) and the process's context switches per op (ctxsw/op, every
// thread's, voluntary and not): the wake-ups docs/capacity.md counts.
func BenchmarkPacedOp(b *testing.B) {
	for _, op := range []scenarios.Op{scenarios.OpRead, scenarios.OpUpdate} {
		b.Run(op.String(), func(b *testing.B) {
			tg := benchTarget(b, ProtocolFast)
			seed(b, tg, scenarios.OpInsert, "user1")
			r := &targets.Request{Op: op, KeyNum: 1, Key: []byte("user1"), Fields: record(1, 100)}
			pause := newRawPause(b)
			b.ReportAllocs()
			ru0 := rusage(b)
			for b.Loop() {
				if err := tg.Do(b.Context(), r); err != nil {
					b.Fatalf("%s: %v", op, err)
				}
				pause(200 * time.Microsecond)
			}
			ru1 := rusage(b)
			n := float64(b.N)
			b.ReportMetric(float64(cpuOf(ru1)-cpuOf(ru0))/n, "cpu-ns/op")
			b.ReportMetric(float64(ru1.Nvcsw+ru1.Nivcsw-ru0.Nvcsw-ru0.Nivcsw)/n, "ctxsw/op")
		})
	}
}

func rusage(b *testing.B) syscall.Rusage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru
}

func cpuOf(ru syscall.Rusage) int64 { return ru.Utime.Nano() + ru.Stime.Nano() }
