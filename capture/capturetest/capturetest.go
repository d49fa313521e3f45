// Package capturetest holds what the tests of the stores' replay
// dialects share: an op log line parsed, an op rendered by a dialect.
package capturetest

import (
	"testing"

	"github.com/soakd/soakd/capture"
)

// ParseLine parses one NDJSON op line.
func ParseLine(t testing.TB, line string) capture.Op {
	t.Helper()
	op, err := capture.NewParser(capture.FormatNDJSON).Parse([]byte(line))
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return op
}

// Render renders op with d and prefix, a null part as "<nil>".
func Render(d capture.Dialect, op capture.Op, prefix string) []string {
	_, parts := d.Render(op, prefix, nil, nil)
	out := make([]string, len(parts))
	for i, p := range parts {
		if p == nil {
			out[i] = "<nil>"
		} else {
			out[i] = string(p)
		}
	}
	return out
}
