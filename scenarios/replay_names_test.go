package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A captured command name that cannot name a latency group (a space, a
// comma, a byte that is not printable ASCII) is refused at validate with
// the capture's path and line, before anything is sent; it used to run
// the whole capture and lose its latencies at the end (exit 3).
func TestReplayRefusesBadCommandNames(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ format, name, capture, want string }{
		{"monitor", "space.txt", "OK\n1.0 [0 a:1] \"PING\"\n1.1 [0 a:1] \"GET X\" \"k\"\n", `line 3: command name "GET X" holds a space`},
		{"monitor", "comma.txt", "OK\n1.0 [0 a:1] \"GE,T\" \"k\"\n", `line 2: command name "GE,T" holds a comma`},
		{"ndjson", "tab.ndjson", `{"ts": 1, "op": "GET", "args": ["k"]}` + "\n" + `{"ts": 2, "op": "G\tET", "args": ["k"]}` + "\n", `line 2: command name "G\tET" holds the byte 0x09`},
	} {
		src := filepath.Join(dir, tc.name)
		if err := os.WriteFile(src, []byte(tc.capture), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Parse(filepath.Join(dir, "x.yaml"), []byte("target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\nphases:\n  - {kind: replay, source: "+tc.name+", format: "+tc.format+"}\n"))
		if err == nil || !strings.Contains(err.Error(), src+": "+tc.want) || !strings.Contains(err.Error(), "x.yaml:3") {
			t.Errorf("%s: %v, want %q with the path", tc.name, err, tc.want)
		}
	}
}
