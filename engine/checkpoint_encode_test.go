package engine

import (
	"bytes"
	"testing"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
)

// TestSetEncoderReuse: a checkpointer's set encoder, kept between
// checkpoints, encodes each set as a fresh one does, and an encoding
// it returned stays as it was when the encoder is used again: the
// decoded sets hold the counts and histograms recorded.
func TestSetEncoderReuse(t *testing.T) {
	ops := []scenarios.Op{scenarios.OpRead, scenarios.OpUpdate}
	set := func(n int64) *metrics.Set {
		rec := metrics.NewRecorder(ops)
		for i := int64(1); i <= n; i++ {
			rec.Record(ops[i%2], i*1000, i*500, i*10, 0)
		}
		s := metrics.NewSet(ops)
		rec.Drain(s)
		return s
	}
	var enc setEncoder
	a, b := set(1000), set(30)
	ea := enc.encode(a)
	keep := bytes.Clone(ea)
	eb := enc.encode(b)
	if !bytes.Equal(ea, keep) {
		t.Fatal("the first encoding changed when the encoder was used again")
	}
	for _, c := range []struct {
		enc  []byte
		want *metrics.Set
	}{{ea, a}, {eb, b}} {
		if !bytes.Equal(c.enc, encodeSet(c.want)) {
			t.Errorf("the kept encoder's encoding differs from a fresh one's")
		}
		got, err := decodeSet(c.enc, ops)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			g, w := got.Ops[op], c.want.Ops[op]
			if g.Count != w.Count || !g.Latency.Equals(w.Latency) || !g.Service.Equals(w.Service) {
				t.Errorf("op %s: decoded count %d, want %d (histograms equal: %v %v)", op, g.Count, w.Count, g.Latency.Equals(w.Latency), g.Service.Equals(w.Service))
			}
		}
		if !got.Lag.Equals(c.want.Lag) {
			t.Errorf("lag histogram differs after decoding")
		}
	}
}
