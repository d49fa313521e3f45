package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// A replay phase is not sharded: a sharded run refuses it before
// anything runs, naming the shard, the phase and why; an unsharded run
// and a sharded run of other kinds go on.
func TestReplayRefusesShards(t *testing.T) {
	src := ndjsonCapture(t, 5, 10*time.Millisecond)
	sc := scenario(t, replayTarget+"keyspace: {records: 100}\nphases:\n  - {name: load, kind: load}\n  - {name: capture, kind: replay, source: "+src+", format: ndjson}\n")
	for _, sh := range []rundir.Shard{{Index: 0, Count: 2}, {Index: 2, Count: 3}} {
		err := CheckShard(sc, sh)
		if err == nil || !strings.Contains(err.Error(), "shard "+sh.String()+": phase capture (kind replay) cannot be sharded yet") ||
			!strings.Contains(err.Error(), "would send the whole capture") {
			t.Fatalf("CheckShard %s: %v", sh, err)
		}
	}
	if err := CheckShard(sc, rundir.Shard{Index: 0, Count: 1}); err != nil {
		t.Fatalf("CheckShard unsharded: %v", err)
	}
	plain := scenario(t, replayTarget+"keyspace: {records: 100}\nphases:\n  - {name: load, kind: load}\n")
	if err := CheckShard(plain, rundir.Shard{Index: 1, Count: 2}); err != nil {
		t.Fatalf("CheckShard of a load: %v", err)
	}

	// Run refuses it too, before the run directory or any op.
	tg := &cmdTarget{}
	out := filepath.Join(t.TempDir(), "run")
	sum, err := Run(context.Background(), Options{Scenario: sc, Target: tg, TargetKind: sc.Target.Kind, OutDir: out, Shard: rundir.Shard{Index: 1, Count: 2}})
	if err == nil || !strings.Contains(err.Error(), "phase capture (kind replay) cannot be sharded yet") || sum != nil {
		t.Fatalf("Run: %v, summary %v", err, sum)
	}
	if n := len(tg.sent()); n != 0 {
		t.Fatalf("%d ops sent", n)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("run directory made: %v", err)
	}
}
