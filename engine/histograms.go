package engine

import (
	"bytes"
	"fmt"
	"path/filepath"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

type phaseTotal struct {
	phase string
	set   *metrics.Set
}

// stageHist is one stage's cumulative histogram for an op and timing,
// kept compressed (a run may have hundreds of stages) until
// histograms.hlog is written.
type stageHist struct {
	tag  string
	data []byte
}

// taggedHist is one op's histogram for one timing.
type taggedHist struct {
	tag string
	h   *hdr.Histogram
}

// tagged lists the histograms of set's recorded ops, tagged
// <prefix>.<op>.latency and <prefix>.<op>.service: the tags of
// latency.hlog and histograms.hlog.
func tagged(prefix string, set *metrics.Set, ops *scenarios.OpTable) []taggedHist {
	var out []taggedHist
	for op, os := range set.Ops {
		if os == nil || os.Count == 0 {
			continue
		}
		name := prefix + "." + ops.Name(scenarios.Op(op))
		out = append(out, taggedHist{name + ".latency", os.Latency}, taggedHist{name + ".service", os.Service})
	}
	return out
}

// keepStageHists keeps a stage's measured histograms for histograms.hlog
// under tags <phase>/<stage>.<op>.latency|service, so shard merges can
// give stages exact percentiles too.
func (r *runner) keepStageHists(phase, stage string, set *metrics.Set) {
	for _, th := range tagged(phase+"/"+stage, set, r.plan.ops) {
		b, err := th.h.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			continue
		}
		r.stageHists = append(r.stageHists, stageHist{th.tag, b})
	}
}

// writeHistograms writes histograms.hlog atomically.
func (r *runner) writeHistograms() error {
	var buf bytes.Buffer
	w := hdr.NewHistogramLogWriter(&buf)
	now := r.time.now().UnixMilli()
	_ = w.OutputLogFormatVersion()
	_ = w.OutputComment("soakd cumulative histograms per phase and stage: values in ns; tags <phase>.<op>.latency|service and <phase>/<stage>.<op>.latency|service; measured ops only (after warmup)")
	_ = w.OutputStartTime(now)
	_ = w.OutputLegend()
	for _, t := range r.totals {
		for _, th := range tagged(t.phase, t.set, r.plan.ops) {
			c := hdr.Import(th.h.Export())
			c.SetTag(th.tag)
			c.SetStartTimeMs(now)
			c.SetEndTimeMs(now)
			if err := w.OutputIntervalHistogram(c); err != nil {
				return err
			}
		}
	}
	for _, sh := range r.stageHists {
		h, err := hdr.Decode(sh.data)
		if err != nil {
			return fmt.Errorf("%s: %w", sh.tag, err)
		}
		h.SetTag(sh.tag)
		h.SetStartTimeMs(now)
		h.SetEndTimeMs(now)
		if err := w.OutputIntervalHistogram(h); err != nil {
			return err
		}
	}
	return rundir.WriteFileAtomic(filepath.Join(r.opts.OutDir, rundir.HistogramsFile), buf.Bytes())
}
