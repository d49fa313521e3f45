package scenarios

import (
	"bytes"
	"fmt"
	"io"

	"github.com/soakd/soakd/regfile"
)

// captureSample is how much of a capture the memory bound reads to
// estimate its ops.
const captureSample = 1 << 20

// captureOps is about how many ops phase p's capture holds, for the
// memory bound: its lines, counted when the file is at most
// captureSample bytes, else its size over the mean length of the lines
// in its first captureSample bytes. how says which ("counted",
// "estimated"); 0 when the file cannot be read (reported on its own).
func (s *Scenario) captureOps(p *Phase) (ops int64, how string) {
	f, err := regfile.Open(s.ReplaySource(p))
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, ""
	}
	buf := make([]byte, min(st.Size(), captureSample))
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF {
		return 0, ""
	}
	lines := int64(bytes.Count(buf[:n], []byte{'\n'}))
	if int64(n) == st.Size() {
		if n > 0 && buf[n-1] != '\n' {
			lines++
		}
		return lines, "counted"
	}
	lines = max(lines, 1)
	return int64(float64(st.Size()) / float64(n) * float64(lines)), "estimated"
}

// replayIndexBytes is what replay phase p's capture index holds while
// it runs (0 for another kind, or a capture that cannot be read), and
// its text for the memory bound's error (" + ...").
func (s *Scenario) replayIndexBytes(p *Phase) (int64, string) {
	if p.Replay == nil {
		return 0, ""
	}
	ops, how := s.captureOps(p)
	if ops <= 0 {
		return 0, ""
	}
	b := ops * CaptureEntryBytes
	return b, fmt.Sprintf(" + capture index %s (%d ops %s x %d B)", iec(float64(b)), ops, how, CaptureEntryBytes)
}

// replayHint is the memory bound's advice for a replay phase whose
// capture index counts (idx > 0).
func replayHint(p *Phase, idx int64) string {
	if idx > 0 && p.Replay != nil {
		return ", or replay a shorter capture"
	}
	return ""
}
