package engine

import (
	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A replay phase's indexed capture is its segment's op source: index i
// sends capture entry i (modulo the capture's length when it loops),
// read back from the file and rendered in the store's dialect under the
// entry's key prefix. Its timing is the plan's too (replayExec sets the
// segment's Pacing).

// opFor is index i's latency group.
func (p *replayPlan) opFor(_ *segment, i uint64) scenarios.Op { return p.op(i) }

func (p *replayPlan) stream(*segment, int, int) opStream { return &replayStream{p: p} }

// replayStream is one worker's reader of the capture (opened at its
// first op).
type replayStream struct {
	p    *replayPlan
	rd   *capture.Reader
	next uint64
}

// unreadable is sent when an op cannot be read back from the capture
// (the file was changed under the run): the store answers it with an
// error, which is counted as the op's outcome.
var unreadable = []byte("SOAKD.REPLAY.UNREADABLE")

func (s *replayStream) fill(_ int, req *targets.Request, i uint64) scenarios.Op {
	p := s.p
	if s.rd == nil {
		s.rd = capture.NewReader(p.file, p.ix, p.format)
	}
	s.next = i + 1
	e := p.entry(i)
	req.Op = p.ops[e.Group]
	req.Fields, req.Query, req.Key = nil, "", req.Key[:0]
	op, err := s.rd.Read(e)
	if err != nil {
		op = capture.Op{Args: [][]byte{unreadable}}
	}
	req.Buf, req.Parts = p.dialect.Render(op, p.prefix(e), req.Buf[:0], req.Parts[:0])
	return req.Op
}

func (s *replayStream) position([]byte) position { return position{next: s.next} }

// restore needs no state but next: an entry is read at its own offset.
func (s *replayStream) restore(p position) error {
	s.next = p.next
	return nil
}
