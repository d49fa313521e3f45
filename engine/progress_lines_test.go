package engine

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soakd/soakd/metrics"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// liveBuffer is a LiveLine that counts what it is given: the lines
// shown in place, and the lines written.
type liveBuffer struct {
	mu    sync.Mutex
	live  int
	shown string
	seen  []string // the barrier lines shown
	out   bytes.Buffer
}

func (l *liveBuffer) Live(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if strings.HasPrefix(s, "[barrier") {
		l.seen = append(l.seen, s)
	} else if s != "" {
		l.live++
	}
	l.shown = s
}

func (l *liveBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out.Write(p)
}

func lines(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestProgressThinned: a 12-hour segment's 43,200 one-second intervals
// make 43,200 lines at ProgressEvery 0 (as before), 721 at one a minute
// (its first, then one each minute, the last at 12h), and one written
// line on a terminal, where every interval's line is shown in place and
// the last stays. A segment ending between minutes ends on its last
// line.
func TestProgressThinned(t *testing.T) {
	ops := []scenarios.Op{scenarios.OpGet}
	w := metrics.NewWindowSet(ops)
	t0 := time.Unix(1000, 0)
	soak := func(r *runner, seg *segment) {
		sink := progressOnly{r}
		n := int(seg.Duration / time.Second)
		for i := 1; i <= n; i++ {
			from, to := time.Duration(i-1)*time.Second, time.Duration(i)*time.Second
			sink.onInterval(seg, t0.Add(from), t0.Add(to), to, w, 100, int64(i*100), func() {})
		}
		r.progress.end(r.opts.Progress)
	}
	long := &segment{Phase: "soak", Rate: 100, Duration: 12 * time.Hour}
	for _, c := range []struct {
		every time.Duration
		want  int
	}{{0, 43200}, {time.Minute, 721}} {
		var buf bytes.Buffer
		r := &runner{opts: Options{Progress: &buf, Interval: time.Second}, plan: &Plan{classes: targets.Classes()}}
		r.progress.every = c.every
		soak(r, long)
		got := lines(buf.String())
		if len(got) != c.want {
			t.Errorf("every %s: %d lines, want %d", c.every, len(got), c.want)
			continue
		}
		if !strings.HasPrefix(got[0], "[soak 1s/12h]") || !strings.HasPrefix(got[len(got)-1], "[soak 12h/12h]") {
			t.Errorf("every %s: first %q, last %q", c.every, got[0], got[len(got)-1])
		}
		if c.every > 0 && !strings.HasPrefix(got[1], "[soak 1m/12h]") {
			t.Errorf("second line %q, want the one at a minute", got[1])
		}
	}

	var buf bytes.Buffer
	r := &runner{opts: Options{Progress: &buf, Interval: time.Second}, plan: &Plan{classes: targets.Classes()}}
	r.progress.every = time.Minute
	soak(r, &segment{Phase: "short", Rate: 100, Duration: 90 * time.Second})
	got := lines(buf.String())
	if len(got) != 3 || !strings.HasPrefix(got[2], "[short 1m30s/1m30s]") {
		t.Errorf("a 90 s segment at one line a minute: %q, want its first, the minute's and its last", got)
	}

	live := &liveBuffer{}
	r = &runner{opts: Options{Progress: live, ProgressEvery: time.Minute, Interval: time.Second}, plan: &Plan{classes: targets.Classes()}}
	soak(r, long)
	if got := lines(live.out.String()); live.live != 43200 || len(got) != 1 || !strings.HasPrefix(got[0], "[soak 12h/12h]") || live.shown != "" {
		t.Errorf("terminal: %d lines in place, written %q, left showing %q; want 43200, the last line and nothing", live.live, got, live.shown)
	}
}

// TestProgressLinesLongRun runs a two-phase soak in a synctest bubble
// at one line a minute: phase a (3m) prints 4 lines (1s, 1m, 2m and its
// last, at its end) and phase b (1m30s) 3 (1s, 1m and its last); each
// phase's last line is the one it ends on with a line every second. On
// a terminal each phase leaves only that last line.
func TestProgressLinesLongRun(t *testing.T) {
	t.Parallel()
	sc := scenario(t, `
keyspace: {records: 1000}
phases:
  - {name: a, kind: steady, rate: 2, duration: 3m, warmup: 0s, concurrency: 2, mix: {get: 100}}
  - {name: b, kind: steady, rate: 2, duration: 90s, warmup: 0s, concurrency: 2, mix: {get: 100}}
`)
	byPhase := func(out string) (a, b []string) {
		for _, l := range lines(out) {
			switch {
			case strings.HasPrefix(l, "[a "):
				a = append(a, l)
			case strings.HasPrefix(l, "[b "):
				b = append(b, l)
			default:
				t.Errorf("line of no phase: %q", l)
			}
		}
		return a, b
	}
	var every bytes.Buffer
	runInBubble(t, sc, &recordingTarget{service: time.Millisecond}, Options{Progress: &every})
	allA, allB := byPhase(every.String())
	if len(allA) < 180 || len(allB) < 90 {
		t.Fatalf("a line every second: %d lines for a, %d for b", len(allA), len(allB))
	}
	lastA, lastB := allA[len(allA)-1], allB[len(allB)-1]

	var buf bytes.Buffer
	runInBubble(t, sc, &recordingTarget{service: time.Millisecond}, Options{Progress: &buf, ProgressEvery: time.Minute})
	a, b := byPhase(buf.String())
	if len(a) != 4 || len(b) != 3 {
		t.Fatalf("%d lines for a and %d for b, want 4 and 3:\n%s", len(a), len(b), buf.String())
	}
	if !strings.HasPrefix(a[1], "[a 1m/3m]") || !strings.HasPrefix(a[2], "[a 2m/3m]") || a[3] != lastA || b[2] != lastB {
		t.Errorf("lines\n%s\nwant each minute's and each phase's last:\n%s\n%s", buf.String(), lastA, lastB)
	}

	live := &liveBuffer{}
	runInBubble(t, sc, &recordingTarget{service: time.Millisecond}, Options{Progress: live, ProgressEvery: time.Minute})
	if got := lines(live.out.String()); len(got) != 2 || got[0] != lastA || got[1] != lastB {
		t.Errorf("terminal: written %q, want each phase's last line only", got)
	}
	if live.live != len(allA)+len(allB) {
		t.Errorf("terminal: %d lines shown in place, want every interval's (%d)", live.live, len(allA)+len(allB))
	}
}
