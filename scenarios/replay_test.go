package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The form parses with its defaults, the source relative to the
// scenario file.
func TestReplayParses(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "capture.txt"), []byte("OK\n1.0 [0 a:1] \"PING\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "replay.yaml")
	sc, err := Parse(file, []byte("target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\nphases:\n  - {name: replay, kind: replay, source: capture.txt, format: monitor, speed: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := &sc.Phases[0]
	if p.Kind != PhaseReplay || p.Replay.Speed != 2 || p.Replay.Order != ReplayOrderFile || p.Replay.Group != ReplayGroupCommand {
		t.Fatalf("%+v", p.Replay)
	}
	if got := sc.ReplaySource(p); got != filepath.Join(dir, "capture.txt") {
		t.Fatalf("source resolves to %s", got)
	}
}

// Every problem of a replay phase is reported, each at its file:line
// and field.
func TestReplayValidation(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	for _, tc := range []struct{ yaml, want string }{
		{"phases:\n  - {kind: replay}\n", "x.yaml:3: phases[0].source: a replay phase needs source"},
		{"phases:\n  - {kind: replay, source: nothere.txt}\n", "phases[0].source: stat"},
		{"phases:\n  - {kind: replay, source: " + empty + "}\n", "is empty"},
		{"phases:\n  - {kind: replay, source: " + empty + ", format: pcap}\n", `phases[0].format: unknown "pcap" (use monitor or ndjson)`},
		{"phases:\n  - {kind: replay, source: " + empty + ", speed: 2, rate: 100}\n", "phases[0].speed: give speed"},
		{"phases:\n  - {kind: replay, source: " + empty + ", speed: -1}\n", "phases[0].speed: must be positive"},
		{"phases:\n  - {kind: replay, source: " + empty + ", loop: true}\n", "phases[0].loop: a looping replay needs a duration"},
		{"phases:\n  - {kind: replay, source: " + empty + ", order: shuffled}\n", "phases[0].order"},
		{"phases:\n  - {kind: replay, source: " + empty + ", group: op}\n", "phases[0].group"},
		{"phases:\n  - {kind: replay, source: " + empty + ", mix: {read: 100}}\n", "phases[0].mix: a replay sends the capture's commands"},
		{"phases:\n  - {kind: steady, rate: 1, duration: 1s, mix: {read: 100}, speed: 2}\n", "phases[0].speed: only a replay phase takes speed"},
	} {
		_, err := Parse(filepath.Join(dir, "x.yaml"), []byte("target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n"+tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.yaml, err, tc.want)
		}
	}
	_, err := Parse("m.yaml", []byte("target: {kind: mongo, url: \"mongodb://127.0.0.1:1\"}\nphases:\n  - {kind: replay, source: "+empty+", format: ndjson}\n"))
	if err == nil || !strings.Contains(err.Error(), "a mongo target is not supported yet") {
		t.Errorf("mongo replay: %v", err)
	}
}

func TestReplayRefusal(t *testing.T) {
	sc := &Scenario{Target: Target{Kind: KindRedis}}
	if s := sc.ReplayRefusal([]string{"flushall"}); !strings.Contains(s, "FLUSHALL destroys data") {
		t.Errorf("flushall: %q", s)
	}
	if s := sc.ReplayRefusal([]string{"SET", "k", "v"}); s != "" {
		t.Errorf("SET refused: %q", s)
	}
	sc.AllowDestructive = true
	if s := sc.ReplayRefusal([]string{"FLUSHALL"}); s != "" {
		t.Errorf("allow_destructive: %q", s)
	}
	sc = &Scenario{Target: Target{Kind: KindEmbedded}}
	if s := sc.ReplayRefusal([]string{"FLUSHALL"}); s != "" {
		t.Errorf("embedded: %q", s)
	}
	for _, c := range []string{"MONITOR", "SUBSCRIBE", "PSUBSCRIBE", "CLIENT", "BLPOP", "WAIT"} {
		if !ReplaySkips(c) {
			t.Errorf("%s is not skipped", c)
		}
	}
	if ReplaySkips("GET") {
		t.Error("GET skipped")
	}
}
