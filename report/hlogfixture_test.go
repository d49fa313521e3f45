package report

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// hlogFixture writes a synthetic latency.hlog in the histogram log
// format (hdr.HistogramLogWriter's lines), encoding each distinct
// interval once: a long run's 1,500 intervals are a handful of distinct
// histograms, and hdr's compressed encoding (zlib at its best level)
// was most of the report tests' CPU under the race detector.
type hlogFixture struct {
	buf bytes.Buffer
	enc map[string]string // key: "max,payload"
}

func newHlogFixture(t *testing.T, start time.Time) *hlogFixture {
	t.Helper()
	f := &hlogFixture{enc: map[string]string{}}
	w := hdr.NewHistogramLogWriter(&f.buf)
	if err := w.OutputLogFormatVersion(); err != nil {
		t.Fatal(err)
	}
	_ = w.OutputStartTime(start.UnixMilli())
	_ = w.OutputLegend()
	return f
}

// interval writes tag's interval [from, to): key names its histogram's
// contents, which build makes the first time key is seen.
func (f *hlogFixture) interval(t *testing.T, tag string, from, to time.Time, key string, build func() *hdr.Histogram) {
	t.Helper()
	e, ok := f.enc[key]
	if !ok {
		h := build()
		payload, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		e = fmt.Sprintf("%f,%s", float64(h.Max())/1e6, payload)
		f.enc[key] = e
	}
	s := float64(from.UnixMilli()) / 1000
	fmt.Fprintf(&f.buf, "Tag=%s,%f,%f,%s\n", tag, s, float64(to.UnixMilli())/1000-s, e)
}

func (f *hlogFixture) bytes() []byte { return f.buf.Bytes() }
