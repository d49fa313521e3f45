package redis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/engine"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// An NDJSON op log written by capture.AppendNDJSON, replayed into a real
// redis-server, leaves every one of the 256 byte values byte-equal: one
// key per byte value, one key holding all 256, a key that is itself not
// UTF-8. (A JSON string cannot hold them: written as "\u00ff" they came
// back as two bytes of UTF-8.)
func TestReplayNDJSONRawBytes(t *testing.T) {
	s := startRedis(t)
	want := map[string][]byte{}
	var log []byte
	all := make([]byte, 256)
	for i := range 256 {
		all[i] = byte(i)
		k := fmt.Sprintf("b:%03d", i)
		want[k] = []byte{byte(i)}
		log = capture.AppendNDJSON(log, capture.NDJSONOp{TS: float64(i) / 1000, Op: "SET", Args: [][]byte{[]byte(k), {byte(i)}}})
	}
	want["all"] = all
	want["k\xff\x80"] = []byte("text value")
	log = capture.AppendNDJSON(log, capture.NDJSONOp{TS: 0.3, Op: "SET", Args: [][]byte{[]byte("all"), all}})
	log = capture.AppendNDJSON(log, capture.NDJSONOp{TS: 0.301, Op: "SET", Args: [][]byte{[]byte("k\xff\x80"), []byte("text value")}})
	dir := t.TempDir()
	src := filepath.Join(dir, "ops.ndjson")
	if err := os.WriteFile(src, log, 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse(filepath.Join(dir, "bytes.yaml"), []byte(`name: bytes
phases:
  - {name: replay, kind: replay, source: ops.ndjson, format: ndjson, key_prefix: "r:", rate: 2000, concurrency: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	sc.Target = scenarios.Target{Kind: "redis", URL: s.URL()}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tg := openTarget(t, sc.Target, targets.Options{})
	sum, err := engine.Run(ctx, engine.Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if r := sum.Phases[0].Result; r.Completed != 258 || r.Errors != 0 {
		t.Fatalf("completed %d, errors %d; want 258, 0", r.Completed, r.Errors)
	}
	rc := rawClient(t, s)
	if n := rc.DBSize(ctx).Val(); n != int64(len(want)) {
		t.Errorf("%d keys, want %d", n, len(want))
	}
	for k, v := range want {
		got, err := rc.Get(ctx, "r:"+k).Bytes()
		if err != nil || string(got) != string(v) {
			t.Errorf("r:%q = %x (%v), want %x", k, got, err, v)
		}
	}
}
