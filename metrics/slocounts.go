package metrics

import "github.com/soakd/soakd/scenarios"

// SLOCount is one op's ops in a phase so far (from intended start,
// warmup included) and how many of them were slower than one of its
// latency limits: soakd_op_latency_over_slo_total and its denominator.
type SLOCount struct {
	Op, Quantile string
	// Limit is the limit in seconds.
	Limit       float64
	Total, Over uint64
}

// SLOCounts is the phase running now ("" before the first interval)
// and its SLOCount for every op with a latency limit (SetSLO), read
// under one lock.
func (e *Exporter) SLOCounts() (string, []SLOCount) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ps := e.phases[e.current]
	if ps == nil {
		return e.current, nil
	}
	var out []SLOCount
	for op, os := range ps.total.ops {
		if os == nil {
			continue
		}
		name := e.ops.Name(scenarios.Op(op))
		for _, s := range e.slo {
			if s.op == name {
				out = append(out, SLOCount{Op: name, Quantile: s.quantile, Limit: s.seconds,
					Total: uint64(os.lat.total), Over: tallyOver(&os.lat, s.seconds)})
			}
		}
	}
	return e.current, out
}
