package scenarios

import (
	"math"
	"sort"
)

// MaxConcurrency is the largest concurrency of any phase (after
// ApplyDefaults): the connections a client pool needs so that every
// worker of the busiest phase has its own (targets.Options.Concurrency).
func (s *Scenario) MaxConcurrency() int {
	n := 0
	for _, p := range s.Phases {
		if p.Concurrency > n {
			n = p.Concurrency
		}
		if f := p.plan().shapes; f != nil {
			for _, sh := range f(&p, "") {
				n = max(n, sh.workers)
			}
		}
	}
	return n
}

// MaxOps is an upper bound on how many ops of the given kinds the
// scenario can issue over all its phases (and shards): a phase whose mix
// holds one of them counts all its ops, since which op each index gets is
// drawn per op. A phase bounded by requests counts those; an open-loop
// steady or ramp phase counts rate x duration. bounded is false when a
// phase that uses one of ops has no bound (closed loop by duration,
// capacity, growth); n then covers the bounded phases only. A rate
// changed live (the daemon's rate API) can exceed an open-loop bound.
func (s *Scenario) MaxOps(ops ...Op) (n int64, bounded bool) {
	bounded = true
	for _, p := range s.Phases {
		uses := false
		for _, m := range p.Mixes() {
			for _, op := range ops {
				if m[s.OpName(op)] > 0 {
					uses = true
				}
			}
		}
		if !uses {
			continue
		}
		m, ok := p.maxOps()
		n += m
		bounded = bounded && ok
	}
	return n, bounded
}

// maxOps bounds the ops one phase can schedule (its kind's rule).
func (p *Phase) maxOps() (int64, bool) {
	if f := p.plan().maxOps; f != nil {
		return f(p)
	}
	return 0, false
}

// boundedOps is the ops a phase bounded by requests and by rate x
// duration can schedule (the smaller bound); ok is false when neither
// bounds it.
func boundedOps(requests int64, rate float64, d Duration) (int64, bool) {
	n := int64(-1)
	if requests > 0 {
		n = requests
	}
	if rate > 0 && d > 0 {
		if m := int64(math.Ceil(rate * d.D().Seconds())); n < 0 || m < n {
			n = m
		}
	}
	if n < 0 {
		return 0, false
	}
	return n, true
}

// MixOps returns the op names in any phase's mix, sorted.
func (s *Scenario) MixOps() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range s.Phases {
		for _, m := range p.Mixes() {
			for op := range m {
				if !seen[op] {
					seen[op] = true
					out = append(out, op)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
