package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// TestResumeRepeatRounds: a run with repeat: 3 killed in the second
// round of its steady phase goes on in that round: the load and the
// first round are kept as they were, the second goes on on its absolute
// schedule (the ops due while down lost, in that round only), the third
// runs: the same phases and rounds, each scheduling what an unbroken
// run's does. Killed between two rounds, it starts the next afresh.
func TestResumeRepeatRounds(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 200}
repeat: 3
phases:
  - {name: load, kind: load, rate: 1000, concurrency: 4}
  - {name: s, kind: steady, rate: 200, duration: 3s, concurrency: 4, mix: {read: 50, update: 50}}
`)
	svc := 5 * time.Millisecond
	u := unbrokenRun(t, sc, &recordingTarget{service: svc})
	names := func(s *rundir.Summary) []string {
		var out []string
		for _, p := range s.Phases {
			out = append(out, p.Name)
		}
		return out
	}
	if want := []string{"load", "s#1", "s#2", "s#3"}; !slices.Equal(names(u), want) {
		t.Fatalf("unbroken run: %v, want %v", names(u), want)
	}
	for _, c := range []struct {
		name string
		at   time.Duration
		mid  string // the round killed in ("": between rounds)
	}{
		// The load takes 0.2 s; s#2 runs 1.2-2.2 s, checkpointed at
		// 1.7 s.
		{"mid-round", 1800 * time.Millisecond, "s#2"},
		// s#1 ends at ~1.2 s (checkpointed as done), s#2's first
		// interval is at ~1.45 s.
		{"between-rounds", 1300 * time.Millisecond, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := killedRun(t, sc, &recordingTarget{service: svc}, c.at)
			sum, ck := resumed(t, sc, &recordingTarget{service: svc}, dir, 500*time.Millisecond)
			if c.mid != "" && (ck.Current == nil || ck.Current.Name != c.mid || ck.Current.Unsupported != "" || len(ck.Done) != 2) {
				t.Fatalf("checkpoint in %s with %d done, want in %s after the load and s#1", describeCurrent(ck.Current), len(ck.Done), c.mid)
			}
			if c.mid == "" && (ck.Current != nil || len(ck.Done) != 2) {
				t.Fatalf("checkpoint in %s with %d done, want between s#1 and s#2", describeCurrent(ck.Current), len(ck.Done))
			}
			if !slices.Equal(names(sum), names(u)) {
				t.Fatalf("resumed run: %v, unbroken %v", names(sum), names(u))
			}
			var lost int64
			for i, p := range sum.Phases {
				checkIdentity(t, p.Name, &p.Result)
				if p.Scheduled != u.Phases[i].Scheduled || p.Repeat != u.Phases[i].Repeat {
					t.Errorf("%s: scheduled %d round %d, unbroken %d round %d", p.Name, p.Scheduled, p.Repeat, u.Phases[i].Scheduled, u.Phases[i].Repeat)
				}
				if n := loggedOps(t, dir, p.Name); n != p.Completed {
					t.Errorf("latency.hlog holds %d ops of %s, completed %d", n, p.Name, p.Completed)
				}
				if p.Name != c.mid && p.Lost != 0 {
					t.Errorf("%s lost %d, want none outside the round killed in", p.Name, p.Lost)
				}
				lost += p.Lost
			}
			if sum.Phases[1].Completed != 200 {
				t.Errorf("s#1 completed %d, want its 200 kept as they were", sum.Phases[1].Completed)
			}
			if c.mid == "" {
				if lost != 0 || len(sum.Seams) != 0 {
					t.Errorf("lost %d, seams %+v: a kill between rounds loses nothing", lost, sum.Seams)
				}
				return
			}
			// 0.5 s down at 200/s: 100 due, and 0-2 in flight.
			if lost < 100 || lost > 102 {
				t.Errorf("lost %d, want the 100 due in the 0.5 s down and 0-2 in flight", lost)
			}
			checkSeam(t, sum, ck, c.mid, 500*time.Millisecond, lost)
		})
	}
}
