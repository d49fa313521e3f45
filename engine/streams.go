package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/soakd/soakd/scenarios"
)

// A checkpointed segment's workers' stream positions (docs/resume.md).
// A stream belongs to its worker's goroutine, so the collector never
// reads one: each worker publishes where its stream stands in a cell of
// its own, at two moments. When it runs out of work (open loop: no
// chunk waiting) after drawing since it last published, so that an
// idle worker's cell holds where it stands; and when the collector has
// asked (one counter up, at each drain) since its last answer, at its
// next op before it fills it, so that a busy worker (which never idles,
// a closed loop's) answers once an interval. The busy path costs one
// atomic load an op (a plain load on amd64); a publication, a mutex and
// a 20-byte copy. The checkpoint holds the positions published by its
// drain: each a position its stream did pass through, at most an
// interval before the checkpoint.

// streamCells are a segment's workers' published positions.
type streamCells struct {
	// want counts the collector's asks; a worker that has answered
	// fewer publishes at its next op.
	want  atomic.Uint64
	cells []streamCell
}

// streamCell is one worker's last published position.
type streamCell struct {
	mu   sync.Mutex
	set  bool // false: none published yet
	next uint64
	rng  []byte
}

// streamPos is a position in a checkpoint: the schedule index after
// the last one the stream filled and its random state (PCG, binary).
type streamPos struct {
	Next uint64 `json:"next"`
	RNG  []byte `json:"rng,omitempty"`
}

func newStreamCells(workers int) *streamCells {
	return &streamCells{cells: make([]streamCell, workers)}
}

// ask asks every worker for its position (the collector's).
func (s *streamCells) ask() {
	if s != nil {
		s.want.Add(1)
	}
}

// snapshot is the positions published so far, one per worker (nil
// where a worker published none); nil without cells.
func (s *streamCells) snapshot() []*streamPos {
	if s == nil {
		return nil
	}
	out := make([]*streamPos, len(s.cells))
	for i := range s.cells {
		c := &s.cells[i]
		c.mu.Lock()
		if c.set {
			out[i] = &streamPos{Next: c.next, RNG: bytes.Clone(c.rng)}
		}
		c.mu.Unlock()
	}
	return out
}

// answer publishes w's stream position when the collector asked since
// its last answer: at the top of an op, before its fill.
func (w *worker) answer() {
	if s := w.streams; s != nil {
		if g := s.want.Load(); g != w.answered {
			w.answered = g
			w.publish()
		}
	}
}

// idle publishes w's stream position, when it drew since it last did,
// as it runs out of work.
func (w *worker) idle() {
	if w.streams != nil && w.drew {
		w.publish()
	}
}

func (w *worker) publish() {
	w.drew = false
	c := &w.streams.cells[w.id]
	c.mu.Lock()
	p := w.src.position(c.rng)
	c.set, c.next, c.rng = true, p.next, p.rng
	c.mu.Unlock()
}

// restoreStreams puts a resumed segment's workers' streams where its
// checkpoint says, before they start. A worker without a position (none
// published before the checkpoint, a checkpoint of an older soakd), or
// every worker when their number differs from the checkpoint's, gets a
// fresh stream of a seed of this seam's own: never the segment's
// starting stream, whose keys the run drew already. It returns what it
// did, for the seam: "restored", or which were reseeded and why.
func restoreStreams(seg *segment, rs *segResume, workers []*worker) string {
	ps := rs.st.Streams
	seed := scenarios.Mix64(seg.Seed ^ uint64(rs.down.UnixNano()))
	reseed := func(w *worker) {
		st, _ := rand.NewPCG(seed, uint64(w.id)+1).MarshalBinary()
		_ = w.src.restore(position{rng: st})
	}
	if len(ps) != len(workers) {
		for _, w := range workers {
			reseed(w)
		}
		if len(ps) == 0 {
			return "reseeded: the checkpoint holds no stream positions"
		}
		return fmt.Sprintf("reseeded: the checkpoint holds %d workers' streams, the segment has %d", len(ps), len(workers))
	}
	fresh := 0
	for i, w := range workers {
		p := ps[i]
		if p == nil {
			reseed(w)
			fresh++
			continue
		}
		if err := w.src.restore(position{next: p.Next, rng: p.RNG}); err != nil {
			reseed(w)
			fresh++
		}
	}
	if fresh > 0 {
		return fmt.Sprintf("%d of %d workers' streams restored, %d reseeded (no position before the checkpoint)", len(workers)-fresh, len(workers), fresh)
	}
	return "restored"
}
