package capture

import "encoding/binary"

// locs holds where each op's line is, packed: per op a varint gap (from
// the previous op's line end to this line's start: the newline, and any
// lines skipped) and a varint length, with every locBlock-th op's
// absolute offset and stream position kept so that op n is found by
// decoding at most locBlock-1 pairs.
type locs struct {
	stream []byte
	blocks []locStart
	n      uint32 // ops added
	end    int64  // the last op's line end
}

type locStart struct {
	off int64 // the block's first op's line offset
	pos int64 // its pair's position in stream
}

// locBlock ops share a locStart.
const locBlock = 64

// maxOps bounds a capture's ops (Entry.N is 32 bits).
const maxOps = 1<<32 - 1

// grow makes room for about n more ops (a pair of ~3 bytes each).
func (l *locs) grow(n int64) {
	if n <= 0 {
		return
	}
	if want := int(n) * 3; cap(l.stream)-len(l.stream) < want {
		s := make([]byte, len(l.stream), len(l.stream)+want)
		copy(s, l.stream)
		l.stream = s
	}
	if want := int(n/locBlock) + 1; cap(l.blocks)-len(l.blocks) < want {
		b := make([]locStart, len(l.blocks), len(l.blocks)+want)
		copy(b, l.blocks)
		l.blocks = b
	}
}

// add records the next op's line: its offset and length (the line
// without its newline). Offsets must not go back.
func (l *locs) add(off int64, n int) {
	if l.n%locBlock == 0 {
		l.blocks = append(l.blocks, locStart{off: off, pos: int64(len(l.stream))})
		l.end = off
	}
	l.stream = binary.AppendUvarint(l.stream, uint64(off-l.end))
	l.stream = binary.AppendUvarint(l.stream, uint64(n))
	l.end = off + int64(n)
	l.n++
}

// at returns op n's line offset and length (ok false past the last op).
func (l *locs) at(n uint32) (off int64, length int, ok bool) {
	if n >= l.n {
		return 0, 0, false
	}
	b := l.blocks[n/locBlock]
	off, pos := b.off, b.pos
	end := off
	for i := n - n%locBlock; ; i++ {
		gap, k := binary.Uvarint(l.stream[pos:])
		pos += int64(k)
		ln, k := binary.Uvarint(l.stream[pos:])
		pos += int64(k)
		off = end + int64(gap)
		if i == n {
			return off, int(ln), true
		}
		end = off + int64(ln)
	}
}
