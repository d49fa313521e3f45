package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestShardResumedAfterKill: one of two shard processes of a run is
// SIGKILLed in its first steady phase after a checkpoint and resumed
// with `soakd run --resume DIR`. Both finish; the barrier before the
// second steady phase holds (neither shard starts it before the other
// ended the first, the resumed one included); the resumed shard's first
// phase keeps its absolute schedule and accounts for every op
// (scheduled = completed + dropped + lost, per op too), with its seam
// in its summary; the other phases lose nothing.
func TestShardResumedAfterKill(t *testing.T) {
	srv := startTestRedis(t)
	bin := buildSoakd(t)
	const rate, secs = 400, 8
	scen := filepath.Join(t.TempDir(), "two.yaml")
	write(t, filepath.Dir(scen), "two.yaml", fmt.Sprintf(`name: shard-resume
target: {kind: redis}
record: {fields: 2, field_bytes: 16}
keyspace: {records: 2000, prefix: "rr:"}
phases:
  - {name: load, kind: load, concurrency: 4, rate: 20000}
  - {name: first, kind: steady, rate: %d, duration: %ds, concurrency: 4, mix: {read: 50, update: 50}}
  - {name: second, kind: steady, rate: %d, duration: 2s, concurrency: 4, mix: {read: 50, update: 50}}
`, rate, secs, rate))
	base := t.TempDir()
	dirs := []string{filepath.Join(base, "s0"), filepath.Join(base, "s1")}
	runID := fmt.Sprintf("shard-resume-%d", time.Now().UnixNano())
	cmds := startShards(t, bin, scen, "redis://"+srv.Addr(), 2, dirs, nil, runID)

	// Shard 1 is killed once it has checkpointed a second into "first".
	var ck *rundir.Checkpoint
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := rundir.ReadCheckpoint(dirs[1]); err == nil && c.Current != nil && c.Current.Name == "first" && c.Written.Sub(c.Current.Start) >= time.Second {
			ck = c
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("shard 1 never checkpointed in phase first:\n%s", cmds[1].Stderr)
		}
	}
	if err := cmds[1].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmds[1].Wait(); err == nil {
		t.Fatal("shard 1 finished before it was killed: lengthen phase first")
	}
	if _, err := os.Stat(filepath.Join(dirs[1], rundir.SummaryFile)); err == nil {
		t.Fatal("the killed shard has a summary.json")
	}
	// Resumed with nothing but its directory: the shard, run id and
	// target come from its checkpoint.
	res := exec.Command(bin, "run", "--resume", dirs[1], "--quiet")
	var resErr strings.Builder
	res.Stderr = &resErr
	if err := res.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Process.Kill(); _ = res.Wait() })
	if err := res.Wait(); err != nil {
		t.Fatalf("resumed shard 1: %v\n%s", err, resErr.String())
	}
	if err := cmds[0].Wait(); err != nil {
		t.Fatalf("shard 0: %v\n%s", err, cmds[0].Stderr)
	}

	var sums [2]*rundir.Summary
	for i, d := range dirs {
		s, err := rundir.ReadSummary(d)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status != rundir.StatusCompleted || s.Shard != (rundir.Shard{Index: i, Count: 2}) || len(s.Phases) != 3 {
			t.Fatalf("shard %d: status %s, shard %s, %d phases", i, s.Status, s.Shard, len(s.Phases))
		}
		sums[i] = s
	}
	// The barrier before "second": each shard started it only after
	// both had ended "first".
	for i := range sums {
		started := sums[i].Phases[2].Start
		for j := range sums {
			if ended := sums[j].Phases[1].End; started.Before(ended) {
				t.Errorf("shard %d started phase second at %s, before shard %d ended first at %s: the barrier did not hold", i, started, j, ended)
			}
		}
	}
	t.Logf("phase second started %s apart", sums[0].Phases[2].Start.Sub(sums[1].Phases[2].Start).Abs())

	s := sums[1]
	if len(s.Seams) != 1 || s.Seams[0].Phase != "first" || !s.Seams[0].Down.Equal(ck.Written) {
		t.Fatalf("resumed shard's seams %+v, want one in first at its checkpoint %s", s.Seams, ck.Written)
	}
	first := s.Phases[1]
	if want := uint64(rate / 2 * secs); first.Scheduled != want {
		t.Errorf("resumed shard scheduled %d in first, want %d: its schedule is absolute, the downtime in it", first.Scheduled, want)
	}
	if int64(first.Scheduled) != first.Completed+first.Dropped+first.Lost || first.Lost != s.Seams[0].Lost || first.Lost <= 0 {
		t.Errorf("resumed shard, first: scheduled %d, completed %d + dropped %d + lost %d (seam lost %d)", first.Scheduled, first.Completed, first.Dropped, first.Lost, s.Seams[0].Lost)
	}
	for op, o := range first.Ops {
		if int64(o.Scheduled) != o.Count+o.Dropped+o.Lost {
			t.Errorf("resumed shard, first, op %s: scheduled %d, count %d + dropped %d + lost %d", op, o.Scheduled, o.Count, o.Dropped, o.Lost)
		}
	}
	for _, p := range []rundir.PhaseResult{s.Phases[0], s.Phases[2], sums[0].Phases[1], sums[0].Phases[2]} {
		if p.Lost != 0 || (p.Kind == "steady" && int64(p.Scheduled) != p.Completed+p.Dropped) {
			t.Errorf("phase %s: scheduled %d, completed %d, dropped %d, lost %d", p.Name, p.Scheduled, p.Completed, p.Dropped, p.Lost)
		}
	}
	// soakd report merges the shards, the seam and the lost ops in it.
	code, out, errb := runSoakd(t, "report", dirs[0], dirs[1])
	if code != exitOK || !strings.Contains(out.String(), "shard 1/2 resumed at") || !strings.Contains(out.String(), fmt.Sprintf("%d lost", first.Lost)) {
		t.Errorf("report of the two shards: exit %d\n%s%s", code, out, errb)
	}
}
