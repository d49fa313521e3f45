package rundir

import (
	"reflect"
	"strings"
	"testing"
)

// TestCountsRoundTrip: counts.csv lines read back as written, a phase
// name with a comma included; a wrong header or a bad number is an error
// naming the line.
func TestCountsRoundTrip(t *testing.T) {
	in := []IntervalCount{
		{Phase: "steady", Op: "get", StartMs: 1764000000000, EndMs: 1764000001000, Ops: 400, Errors: 3},
		{Phase: "a,b[rdb]", Op: "set", StartMs: 1764000001000, EndMs: 1764000002000, Ops: 1, Errors: 0},
	}
	b := []byte(CountsHeader)
	for _, c := range in {
		b = AppendCount(b, c)
	}
	want := "phase,op,start_ms,end_ms,ops,errors\nsteady,get,1764000000000,1764000001000,400,3\na,b[rdb],set,1764000001000,1764000002000,1,0\n"
	if string(b) != want {
		t.Fatalf("written %q, want %q", b, want)
	}
	out, err := readCounts(strings.NewReader(string(b)), "counts.csv")
	if err != nil || !reflect.DeepEqual(out, in) {
		t.Fatalf("read back %+v, %v; want %+v", out, err, in)
	}
	for src, msg := range map[string]string{
		"phase,op\n":                          "counts.csv:1: header",
		CountsHeader + "steady,get,1,2,x,0\n": "counts.csv:2: ",
		CountsHeader + "steady,get,1,2\n":     "counts.csv:2: 4 fields",
	} {
		if _, err := readCounts(strings.NewReader(src), "counts.csv"); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want %q", src, err, msg)
		}
	}
}
