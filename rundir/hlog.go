package rundir

import (
	"fmt"
	"io"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/soakd/soakd/metrics"

	"github.com/soakd/soakd/regfile"
)

// HistogramsFile is the run directory's cumulative histogram log: one
// histogram per tag <phase>.<op>.latency / <phase>.<op>.service holding
// exactly the measured ops the summary was computed from (after warmup),
// in the HdrHistogram log format (values in ns). `soakd report` merges
// shards from it losslessly; latency.hlog (intervals, warmup included)
// is the fallback for run directories without it.
const HistogramsFile = "histograms.hlog"

// ReadHistogramLog sums every interval of an HdrHistogram log per tag.
func ReadHistogramLog(path string) (map[string]*hdr.Histogram, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readHistogramLog(f, path)
}

func readHistogramLog(rd io.Reader, name string) (map[string]*hdr.Histogram, error) {
	lr := hdr.NewHistogramLogReader(rd)
	out := map[string]*hdr.Histogram{}
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if h == nil {
			return out, nil
		}
		tag := h.Tag()
		acc := out[tag]
		if acc == nil {
			acc = metrics.NewHist()
			out[tag] = acc
		}
		if dropped := acc.Merge(h); dropped != 0 {
			return nil, fmt.Errorf("%s: tag %s: %d values outside the histogram range", name, tag, dropped)
		}
	}
}
