package capture

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkBuild indexes a 100 000-line MONITOR capture; bytes/op over
// the lines is the index's cost per op.
func BenchmarkBuild(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("OK\n")
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&buf, "%d.%06d [0 127.0.0.1:50000] \"HSET\" \"user:%d\" \"field0\" \"va\\\"lue\\x00%d\"\n", 1733350000+i/1000, i%1000*1000, i, i)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ix, err := Build(bytes.NewReader(data), int64(len(data)), Options{Format: FormatMonitor, Skip: func(string) bool { return false }})
		if err != nil || len(ix.Entries) != 100000 {
			b.Fatal(err)
		}
	}
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
