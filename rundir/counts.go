package rundir

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/soakd/soakd/regfile"
)

// CountsFile is the run directory's per-interval outcome counts: one
// line per interval, phase and op that completed ops in it (warmup
// included, like latency.hlog), each op counted in the interval it
// completed in. PartialCounts is its name while the run is going.
const (
	CountsFile    = "counts.csv"
	PartialCounts = "counts.csv.partial"
)

// CountsHeader is counts.csv's first line. start_ms and end_ms are the
// interval's bounds (unix milliseconds, as latency.hlog's interval
// timestamps); ops counts completed ops (ok, misses and errors), errors
// those that failed.
const CountsHeader = "phase,op,start_ms,end_ms,ops,errors\n"

// IntervalCount is one line of counts.csv.
type IntervalCount struct {
	Phase, Op      string
	StartMs, EndMs int64
	Ops, Errors    int64
}

// AppendCount appends c as a counts.csv line. Op names hold no comma; a
// phase name may (readers take the last five fields as the rest).
func AppendCount(b []byte, c IntervalCount) []byte {
	b = append(b, c.Phase...)
	b = append(b, ',')
	b = append(b, c.Op...)
	for _, v := range []int64{c.StartMs, c.EndMs, c.Ops, c.Errors} {
		b = append(b, ',')
		b = strconv.AppendInt(b, v, 10)
	}
	return append(b, '\n')
}

// ReadCounts reads a counts.csv.
func ReadCounts(path string) ([]IntervalCount, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCounts(f, path)
}

// ParseCounts reads counts.csv lines from rd (name: for errors), e.g. a
// killed run's counts.csv.partial cut to its whole lines.
func ParseCounts(rd io.Reader, name string) ([]IntervalCount, error) { return readCounts(rd, name) }

func readCounts(rd io.Reader, name string) ([]IntervalCount, error) {
	sc := bufio.NewScanner(rd)
	var out []IntervalCount
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			if line+"\n" != CountsHeader {
				return nil, fmt.Errorf("%s:1: header %q, want %q", name, line, strings.TrimSpace(CountsHeader))
			}
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < 6 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 6", name, n, len(f))
		}
		k := len(f) - 5
		c := IntervalCount{Phase: strings.Join(f[:k], ","), Op: f[k]}
		for i, p := range []*int64{&c.StartMs, &c.EndMs, &c.Ops, &c.Errors} {
			v, err := strconv.ParseInt(f[k+1+i], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			*p = v
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
