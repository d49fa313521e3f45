package engine

import (
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// An opSource is where a segment's requests come from: vegeta's
// Targeter in the engine's terms. A phase kind's executor picks the
// source of its segments (segment.Source): the run's mix (built-in and
// custom ops on generated keys and values, which a corpus decorates:
// source_mix.go, corpus.go) or a replay phase's capture
// (source_replay.go). The dispatcher asks it each schedule index's op
// kind (to batch ops and count the dropped ones); each worker fills its
// requests from a stream of its own.
type opSource interface {
	// opFor is the op kind of seg's schedule index i: a pure function
	// of i, so the dispatcher and the workers agree on it.
	opFor(seg *segment, i uint64) scenarios.Op
	// stream is worker w's stream of seg's requests, for up to slots
	// requests filled at a time (a batch).
	stream(seg *segment, w, slots int) opStream
}

// An opStream fills one worker's requests (it is not shared).
type opStream interface {
	// fill prepares request slot slot, req, for schedule index i and
	// returns its op.
	fill(slot int, req *targets.Request, i uint64) scenarios.Op
	// position is where the stream stands, its random state appended
	// to rng[:0] (a buffer the caller reuses).
	position(rng []byte) position
	// restore puts the stream where position p says (one this source's
	// stream of the same worker published: a resumed segment's).
	restore(p position) error
}

// position is where an op stream stands: the schedule index after the
// last one it filled and the state of its random stream (nil when it
// draws none: a replay's next op is entry next modulo the capture's
// length, pass next / length). A segment's checkpoint keeps each
// worker's (streams.go); a resumed segment restores its streams from it.
type position struct {
	next uint64
	rng  []byte
}
