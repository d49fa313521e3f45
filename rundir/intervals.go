package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// ReadIntervals reads an interval log's histograms per tag, each tag's
// intervals in the log's order (their StartTimeMs/EndTimeMs kept). A
// torn or unreadable line is an error naming the file, except in a
// latency.hlog.partial, whose whole intervals up to it are returned.
func ReadIntervals(path string) (map[string][]*hdr.Histogram, error) {
	return ReadIntervalsFor(path, nil)
}

// ReadIntervalsFor is ReadIntervals keeping only the tags keep accepts
// (nil keeps all): the histograms are large, a long run holds thousands.
func ReadIntervalsFor(path string, keep func(tag string) bool) (map[string][]*hdr.Histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	partial := strings.HasSuffix(path, ".partial")
	lr := hdr.NewHistogramLogReader(f)
	out := map[string][]*hdr.Histogram{}
	for n := 1; ; n++ {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			if partial {
				return out, nil
			}
			return nil, fmt.Errorf("%s: interval %d: %w", path, n, err)
		}
		if h == nil {
			return out, nil
		}
		if keep != nil && !keep(h.Tag()) {
			continue
		}
		out[h.Tag()] = append(out[h.Tag()], h)
	}
}

// ReadRunIntervals reads the interval log of run directory dir
// (warmup included): latency.hlog, or latency.hlog.partial when that is all there is.
// The second value names the file read.
func ReadRunIntervals(dir string, keep func(tag string) bool) (map[string][]*hdr.Histogram, string, error) {
	p := filepath.Join(dir, LatencyLog)
	m, err := ReadIntervalsFor(p, keep)
	if errors.Is(err, os.ErrNotExist) {
		p = filepath.Join(dir, PartialLog)
		m, err = ReadIntervalsFor(p, keep)
	}
	return m, p, err
}
