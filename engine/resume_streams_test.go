package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/scenarios"
)

// sentKeys are the keys tg was sent, in order.
func sentKeys(tg *recordingTarget) []string {
	var ks []string
	for _, r := range tg.seen() {
		ks = append(ks, r.Key)
	}
	return ks
}

// checkpointSeg is ck's running segment.
func checkpointSeg(t *testing.T, ck *rundir.Checkpoint) *segState {
	t.Helper()
	if ck.Current == nil || len(ck.Current.Segment) == 0 {
		t.Fatalf("checkpoint %+v has no running segment", ck.Current)
	}
	var st segState
	if err := json.Unmarshal(ck.Current.Segment, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// TestResumeRestoresStreams: one worker's op stream, open and closed
// loop, goes on across the seam from the position its checkpoint holds:
// the keys it draws right after the resume are the ones its stream
// would have drawn next (the keys the killed run drew after that
// position, each read drawing one), not the keys it drew at the
// segment's start.
func TestResumeRestoresStreams(t *testing.T) {
	for _, c := range []struct {
		name, rate string
		service    time.Duration
	}{{"open", "200", 5 * time.Millisecond}, {"closed", "0", 10 * time.Millisecond}} {
		t.Run(c.name, func(t *testing.T) {
			sc := scenario(t, fmt.Sprintf(`
keyspace: {records: 1000000}
phases:
  - {name: steady, kind: steady, rate: %s, duration: 4s, concurrency: 1, mix: {read: 100}}
`, c.rate))
			killed := &recordingTarget{service: c.service}
			dir := killedRun(t, sc, killed, 2100*time.Millisecond)
			tg := &recordingTarget{service: c.service}
			sum, ck := resumed(t, sc, tg, dir, time.Second)
			checkIdentity(t, "steady", &sum.Phases[0].Result)
			st := checkpointSeg(t, ck)
			if len(st.Streams) != 1 || st.Streams[0] == nil || len(st.Streams[0].RNG) == 0 {
				t.Fatalf("checkpoint streams %+v, want the one worker's position", st.Streams)
			}
			next := int(st.Streams[0].Next)
			before, after := sentKeys(killed), sentKeys(tg)
			const m = 20
			if next < m || next+m > len(before) || len(after) < m {
				t.Fatalf("position %d, killed run sent %d keys, resumed %d: want a position mid-run", next, len(before), len(after))
			}
			if next > int(st.Sent) {
				t.Errorf("position %d past the %d indices the checkpoint counts sent", next, st.Sent)
			}
			if !slices.Equal(after[:m], before[next:next+m]) {
				t.Errorf("resumed keys %v, want the stream's next from its position %d: %v", after[:m], next, before[next:next+m])
			}
			if slices.Equal(after[:m], before[:m]) {
				t.Errorf("resumed keys %v are the segment's first: the stream restarted", after[:m])
			}
			if len(sum.Seams) != 1 || sum.Seams[0].Streams != "restored" {
				t.Errorf("seams %+v, want one with its streams restored", sum.Seams)
			}
		})
	}
}

// TestResumeRestoresGrowthStreams: a growth stage's measuring, killed
// mid-way, goes on with its worker's stream from its checkpointed
// position too: stage 2's reads after the resume are the ones the
// killed run drew after that position.
func TestResumeRestoresGrowthStreams(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 100000}
phases:
  - name: grow
    kind: growth
    concurrency: 1
    mix: {read: 100}
    growth: {batch: 400, load_rate: 400, measure_rate: 200, measure_for: 1s, max_stages: 3, after_cliff: -1}
`)
	// Each stage: 1 s insert, 1 s measuring. Stage 2 measures from 3 s:
	// killed at 3.6 s (checkpoint 3.5 s), resumed at 3.7 s.
	killed := &recordingTarget{service: 2 * time.Millisecond}
	dir := killedRun(t, sc, killed, 3600*time.Millisecond)
	tg := &recordingTarget{service: 2 * time.Millisecond}
	sum, ck := resumed(t, sc, tg, dir, 200*time.Millisecond)
	checkIdentity(t, "grow", &sum.Phases[0].Result)
	st := checkpointSeg(t, ck)
	if st.Stage != "stage-2" || len(st.Streams) != 1 || st.Streams[0] == nil {
		t.Fatalf("checkpoint in stage %q with streams %+v, want stage-2's one worker's", st.Stage, st.Streams)
	}
	reads := func(tg *recordingTarget) []string {
		var ks []string
		for _, r := range tg.seen() {
			if r.Op == scenarios.OpRead {
				ks = append(ks, r.Key)
			}
		}
		return ks
	}
	// Stage 1 measured 200 reads; stage 2's stream is its own.
	before, after := reads(killed), reads(tg)
	from := 200 + int(st.Streams[0].Next)
	const m = 20
	if from+m > len(before) || len(after) < m {
		t.Fatalf("position %d, killed run read %d keys, resumed %d", st.Streams[0].Next, len(before), len(after))
	}
	if !slices.Equal(after[:m], before[from:from+m]) {
		t.Errorf("resumed reads %v, want stage 2's stream's next from its position: %v", after[:m], before[from:from+m])
	}
	if slices.Equal(after[:m], before[200:200+m]) {
		t.Errorf("resumed reads are stage 2's first: its stream restarted")
	}
	if len(sum.Seams) != 1 || sum.Seams[0].Streams != "restored" {
		t.Errorf("seams %+v, want one with its streams restored", sum.Seams)
	}
}

// TestResumeReseedsStreams: a resumed segment whose worker count is not
// the checkpoint's (the engine is handed another concurrency) cannot
// restore its streams: each worker draws from a fresh stream of the
// seam's own seed, never the segment's starting one, and the seam says
// so.
func TestResumeReseedsStreams(t *testing.T) {
	const yaml = `
keyspace: {records: 1000000}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 4s, concurrency: %d, mix: {read: 100}}
`
	killed := &recordingTarget{service: 5 * time.Millisecond}
	dir := killedRun(t, scenario(t, fmt.Sprintf(yaml, 1)), killed, 2100*time.Millisecond)
	tg := &recordingTarget{service: 5 * time.Millisecond}
	sum, _ := resumed(t, scenario(t, fmt.Sprintf(yaml, 2)), tg, dir, time.Second)
	checkIdentity(t, "steady", &sum.Phases[0].Result)
	if len(sum.Seams) != 1 || !strings.Contains(sum.Seams[0].Streams, "reseeded: the checkpoint holds 1 workers' streams, the segment has 2") {
		t.Fatalf("seams %+v, want the streams reseeded and why", sum.Seams)
	}
	// Worker 0's stream from the segment's seed would draw the killed
	// run's first keys again; the seam's seed draws others.
	first := map[string]bool{}
	for _, k := range sentKeys(killed)[:100] {
		first[k] = true
	}
	for _, k := range sentKeys(tg)[:40] {
		if first[k] {
			t.Fatalf("resumed key %s is one the segment drew at its start", k)
		}
	}
}
