package engine

import (
	"testing"
	"time"

	"github.com/soakd/soakd/rundir"
)

// setRateAt changes ctl's rate to rate at the instant at (in the
// bubble), as the daemon's API would.
func setRateAt(t *testing.T, ctl *Control, at time.Time, rate float64) func(*Options) {
	return func(o *Options) {
		o.Control = ctl
		go func() {
			time.Sleep(time.Until(at))
			if err := ctl.SetRate(rate); err != nil {
				t.Errorf("set rate %v: %v", rate, err)
			}
		}()
	}
}

// TestResumeKeepsRateChanges: a live rate change made before the kill
// stays in force after the resume (the schedule goes on at the new
// rate), is listed in the resumed run's summary, and a change after the
// resume replaces it (its from_rate is the changed rate, not the
// configured one).
func TestResumeKeepsRateChanges(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: steady, kind: steady, rate: 200, duration: 4s, concurrency: 4, mix: {read: 100}}
`)
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) // a bubble's start
	dir := killedRun(t, sc, &recordingTarget{service: 5 * time.Millisecond}, 2100*time.Millisecond,
		setRateAt(t, &Control{}, base.Add(time.Second), 400))
	sum, ck := resumed(t, sc, &recordingTarget{service: 5 * time.Millisecond}, dir, time.Second,
		setRateAt(t, &Control{}, base.Add(3500*time.Millisecond), 100))
	if len(ck.RateChanges) != 1 || ck.RateChanges[0].Rate != 400 || ck.RateChanges[0].Phase != "steady" {
		t.Fatalf("checkpoint rate changes %+v, want the change to 400", ck.RateChanges)
	}
	p := sum.Phases[0]
	checkIdentity(t, "steady", &p.Result)
	rc := p.RateChanges
	if len(rc) != 2 {
		t.Fatalf("rate changes %+v, want the one before the kill and the one after", rc)
	}
	want := []rundir.RateChange{{At: base.Add(time.Second), Rate: 400, FromRate: 200}, {At: base.Add(3500 * time.Millisecond), Rate: 100, FromRate: 400}}
	for i, w := range want {
		if d := rc[i].At.Sub(w.At); d < 0 || d > 20*time.Millisecond || rc[i].Rate != w.Rate || rc[i].FromRate != w.FromRate {
			t.Errorf("rate change %d: %+v, want %v -> %v at %s", i, rc[i], w.FromRate, w.Rate, w.At)
		}
	}
	// 1 s at 200/s, 2.5 s at 400/s (the downtime's included), 0.5 s at
	// 100/s.
	if p.Scheduled < 1240 || p.Scheduled > 1260 {
		t.Errorf("scheduled %d, want ~1250: the change before the kill stays in force", p.Scheduled)
	}
	// The downtime's ~1 s was due at 400/s.
	if p.Lost < 395 || p.Lost > 410 {
		t.Errorf("lost %d, want the ~400 due in the 1 s down at the changed rate", p.Lost)
	}
}
