package capture

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkBuild indexes a 100 000-line MONITOR capture. Besides B/op
// (everything allocated, growth included) it reports the index's cost
// per op: alloc-B/op-indexed (allocated per indexed op) and
// retained-B/op-indexed (what the index holds once built, after a GC:
// what a run keeps for the capture's whole replay).
func BenchmarkBuild(b *testing.B) {
	const ops = 100000
	data := monitorCapture(ops)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	var retained uint64
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		ix, err := Build(bytes.NewReader(data), int64(len(data)), Options{Format: FormatMonitor, Skip: func(string) bool { return false }})
		if err != nil || len(ix.Entries) != ops {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		retained = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(ix)
	}
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/ops, "alloc-B/op-indexed")
	b.ReportMetric(float64(retained)/ops, "retained-B/op-indexed")
}

// monitorCapture is a MONITOR capture of n HSETs (~95 bytes a line).
func monitorCapture(n int) []byte {
	var buf bytes.Buffer
	buf.WriteString("OK\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&buf, "%d.%06d [0 127.0.0.1:50000] \"HSET\" \"user:%d\" \"field0\" \"va\\\"lue\\x00%d\"\n", 1733350000+i/1000, i%1000*1000, i, i)
	}
	return buf.Bytes()
}

// BenchmarkRead reads one op back (what a worker does per op sent).
func BenchmarkRead(b *testing.B) {
	line := []byte(`1733350000.000001 [0 127.0.0.1:50000] "HSET" "user:1" "field0" "va\"lue\x00"` + "\n")
	ix, err := Build(bytes.NewReader(line), int64(len(line)), Options{Format: FormatMonitor})
	if err != nil {
		b.Fatal(err)
	}
	rd := NewReader(bytes.NewReader(line), ix, FormatMonitor)
	var out []byte
	var parts [][]byte
	b.ReportAllocs()
	for b.Loop() {
		args, err := rd.Read(ix.Entries[0])
		if err != nil {
			b.Fatal(err)
		}
		out, parts = Remap(args.Args, "replay:", out[:0], parts[:0])
	}
}
