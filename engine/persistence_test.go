package engine

import (
	"context"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
	"github.com/soakd/soakd/targets"
	redistarget "github.com/soakd/soakd/targets/redis"
)

// TestPersistTracker: samples of the in-progress flags and started
// counts become periods that span the samples around each job; a job
// that came and went between two samples is the period between them; a
// new server's lower count starts afresh; a job still running at the
// phase's end is cut there.
func TestPersistTracker(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	smp := func(bg, saves, aof, rewrites float64) map[string]float64 {
		return map[string]float64{"rdb_bgsave_in_progress": bg, "rdb_saves_total": saves, "aof_rewrite_in_progress": aof, "aof_rewrites_total": rewrites}
	}
	var p persistTracker
	p.observe(at(0), smp(0, 3, 0, 0)) // earlier saves: not this run's
	p.observe(at(1), smp(0, 3, 0, 0))
	p.observe(at(2), smp(1, 4, 0, 0)) // bgsave seen running
	p.observe(at(3), smp(1, 4, 0, 0))
	p.observe(at(1.5), smp(0, 9, 0, 0)) // an older sample arriving late: ignored
	p.observe(at(4), smp(0, 4, 0, 0))   // ended
	p.observe(at(5), smp(0, 5, 0, 0))   // one came and went unseen
	p.observe(at(6), smp(0, 0, 0, 0))   // a new server: counts restart
	p.observe(at(7), smp(0, 0, 1, 1))   // rewrite running
	p.observe(at(8), nil)
	got := p.between(at(1), at(7.5))
	want := []rundir.PersistenceEvent{
		{Kind: "bgsave", StartOffsetSeconds: 0, EndOffsetSeconds: 3},
		{Kind: "bgsave", StartOffsetSeconds: 3, EndOffsetSeconds: 4},
		{Kind: "aof_rewrite", StartOffsetSeconds: 5, EndOffsetSeconds: 6.5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %+v\nwant %+v", got, want)
	}
	// The next persistence variant's server: the running rewrite ends
	// with the old server, and the new server's first job is its own.
	p.newTarget(at(9))
	p.observe(at(10), smp(1, 1, 0, 0))
	if got, want := p.between(at(8), at(11)), []rundir.PersistenceEvent{
		{Kind: "aof_rewrite", StartOffsetSeconds: 0, EndOffsetSeconds: 1},
		{Kind: "bgsave", StartOffsetSeconds: 1, EndOffsetSeconds: 3},
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("across a new target: %+v\nwant %+v", got, want)
	}
	// A phase that ended before the first job shows none; one that began
	// during it shows the rest of it.
	if got := p.between(at(0), at(0.5)); len(got) != 0 {
		t.Errorf("events before any job: %+v", got)
	}
	if got := p.between(at(3.5), at(4.5)); !reflect.DeepEqual(got, []rundir.PersistenceEvent{{Kind: "bgsave", StartOffsetSeconds: 0, EndOffsetSeconds: 0.5}, {Kind: "bgsave", StartOffsetSeconds: 0.5, EndOffsetSeconds: 1}}) {
		t.Errorf("phase from 3.5 s: %+v", got)
	}
}

// TestPersistenceEventsRedis: a BGSAVE and then a BGREWRITEAOF run on a
// real redis-server during a steady phase (each slowed to about a second
// with rdb-key-save-delay) are recorded in the phase's
// persistence_events, each period holding the time the test saw the job
// running, starting no later than the command was sent.
func TestPersistenceEventsRedis(t *testing.T) {
	needRedis(t)
	sc := scenario(t, `
name: persist-events
target: {kind: redis, managed: {persistence: none}}
keyspace: {records: 10000}
record: {fields: 1, field_bytes: 100}
phases:
  - {name: load, kind: load, concurrency: 8}
  - {name: steady, kind: steady, rate: 200, duration: 12s, concurrency: 4, mix: {get: 100}}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tg, err := targets.Open(ctx, sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	rt := &sampledRedis{Target: tg.(*redistarget.Target)}
	cl := rt.Client()
	type job struct {
		kind              string
		sent, seen, ended time.Time
	}
	jobs := []*job{{kind: "bgsave"}, {kind: "aof_rewrite"}}
	ctl := &Control{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Wait for the steady phase, and for a server stats sample
		// taken in it: a job's period starts at the last sample that
		// did not see it, which must not be the load's.
		for ctx.Err() == nil {
			if ph, _ := ctl.Current(); ph == "steady" {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		for n := rt.samples.Load(); ctx.Err() == nil && rt.samples.Load() < n+2; {
			time.Sleep(20 * time.Millisecond)
		}
		// 50 us per key: half a second or more per job for 10000 keys.
		if err := cl.ConfigSet(ctx, "rdb-key-save-delay", "50").Err(); err != nil {
			t.Errorf("CONFIG SET: %v", err)
			return
		}
		for _, j := range jobs {
			cmd, flag := "BGSAVE", "rdb_bgsave_in_progress:1"
			if j.kind == "aof_rewrite" {
				cmd, flag = "BGREWRITEAOF", "aof_rewrite_in_progress:1"
			}
			j.sent = time.Now()
			if err := cl.Do(ctx, cmd).Err(); err != nil {
				t.Errorf("%s: %v", cmd, err)
				return
			}
			for ctx.Err() == nil {
				info, _ := cl.Info(ctx, "persistence").Result()
				now := time.Now()
				if !strings.Contains(info, flag) {
					j.ended = now
					break
				}
				j.seen = now
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
	sum, err := Run(ctx, Options{Scenario: sc, Target: rt, TargetKind: "redis", OutDir: t.TempDir(), Interval: 200 * time.Millisecond, Control: ctl})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	p := sum.Phases[1]
	t.Logf("events %+v", p.PersistenceEvents)
	if len(sum.Phases[0].PersistenceEvents) != 0 {
		t.Errorf("load phase events %+v: no job ran then", sum.Phases[0].PersistenceEvents)
	}
	if len(p.PersistenceEvents) != 2 {
		t.Fatalf("steady phase events %+v, want one bgsave and one aof_rewrite", p.PersistenceEvents)
	}
	for i, j := range jobs {
		e := p.PersistenceEvents[i]
		if j.seen.IsZero() || j.ended.IsZero() {
			t.Fatalf("%s: the test never saw it running (sent %v)", j.kind, j.sent)
		}
		off := func(x time.Time) float64 { return x.Sub(p.Start).Seconds() }
		t.Logf("%s: sent %.3f seen until %.3f ended by %.3f; event %.3f..%.3f", j.kind, off(j.sent), off(j.seen), off(j.ended), e.StartOffsetSeconds, e.EndOffsetSeconds)
		// A job still running at the phase's end ends there.
		if e.Kind != j.kind || e.StartOffsetSeconds > off(j.sent)+0.001 || e.EndOffsetSeconds < min(off(j.seen), p.End.Sub(p.Start).Seconds())-0.001 {
			t.Errorf("%s event %+v does not hold the job (sent at %.3f s, seen running at %.3f s)", j.kind, e, off(j.sent), off(j.seen))
		}
	}
}

// sampledRedis counts the server stats samples taken of a redis target.
type sampledRedis struct {
	*redistarget.Target
	samples atomic.Int64
}

func (s *sampledRedis) ServerStats(ctx context.Context) (map[string]float64, error) {
	s.samples.Add(1)
	return s.Target.ServerStats(ctx)
}
