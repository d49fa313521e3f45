package metrics

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// countingGatherer is a registry with one gauge that counts the
// gathers: each gather renders a new value.
type countingGatherer struct {
	reg   *prometheus.Registry
	n     atomic.Int64
	block chan struct{} // when set, Gather waits for it
}

func newCountingGatherer() *countingGatherer {
	c := &countingGatherer{reg: prometheus.NewRegistry()}
	c.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "renders", Help: "Renders so far."},
		func() float64 { return float64(c.n.Load()) }))
	return c
}

func (c *countingGatherer) Gather() ([]*dto.MetricFamily, error) {
	c.n.Add(1)
	if c.block != nil {
		<-c.block
	}
	return c.reg.Gather()
}

func scrape(t *testing.T, h http.Handler, gz bool) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest("GET", "/metrics", nil)
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body := rec.Body.Bytes()
	if gz && rec.Code == 200 {
		if rec.Header().Get("Content-Encoding") != "gzip" {
			t.Fatalf("asked for gzip, got Content-Encoding %q", rec.Header().Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return rec.Code, body
}

// TestScrapeHandlerRendersOncePerInterval: 100 scrapes (plain and
// gzip, concurrently) within one interval cost one gather and get the
// same bytes; the first scrape after the interval gathers again.
func TestScrapeHandlerRendersOncePerInterval(t *testing.T) {
	g := newCountingGatherer()
	var nowNs atomic.Int64
	nowNs.Store(time.Unix(1000, 0).UnixNano())
	clock := func() time.Time { return time.Unix(0, nowNs.Load()) }
	h := NewScrapeHandler(g, time.Second, 200, clock)
	_, first := scrape(t, h, false)
	var wg sync.WaitGroup
	bodies := make([][]byte, 100)
	for i := range bodies {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, bodies[i] = scrape(t, h, i%2 == 1)
		}(i)
	}
	wg.Wait()
	if n := g.n.Load(); n != 1 || h.Gathers() != 1 {
		t.Fatalf("%d gathers (handler says %d) for 101 scrapes in one interval, want 1", n, h.Gathers())
	}
	for i, b := range bodies {
		if !bytes.Equal(b, first) {
			t.Fatalf("scrape %d differs from the first in the same interval:\n%s\nvs\n%s", i, b, first)
		}
	}
	nowNs.Add(int64(999 * time.Millisecond))
	if _, b := scrape(t, h, false); !bytes.Equal(b, first) || g.n.Load() != 1 {
		t.Fatalf("a scrape before the interval ended gathered again (%d gathers)", g.n.Load())
	}
	nowNs.Add(int64(time.Millisecond))
	_, next := scrape(t, h, false)
	if g.n.Load() != 2 || bytes.Equal(next, first) {
		t.Fatalf("after the interval: %d gathers, body changed %v; want 2 and a new body", g.n.Load(), !bytes.Equal(next, first))
	}
	if !bytes.Contains(next, []byte("renders 2")) {
		t.Errorf("new body does not hold the second gather:\n%s", next)
	}
}

// TestScrapeHandlerCap: with every slot taken (a gather that does not
// return), a further scrape waits its queue time and is refused 503
// with Retry-After; once the slot frees, scrapes are served again.
func TestScrapeHandlerCap(t *testing.T) {
	g := newCountingGatherer()
	g.block = make(chan struct{})
	h := NewScrapeHandler(g, time.Second, 1, nil)
	h.wait = 20 * time.Millisecond
	h.spacing = 0 // the concurrency cap alone
	first := make(chan int, 1)
	go func() {
		code, _ := scrape(t, h, false)
		first <- code
	}()
	for g.n.Load() == 0 { // the first scrape holds the slot, gathering
		time.Sleep(time.Millisecond)
	}
	req := httptest.NewRequest("GET", "/metrics", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("scrape over the cap: %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if h.Refused() != 1 {
		t.Errorf("refused %d, want 1", h.Refused())
	}
	close(g.block)
	if code := <-first; code != 200 {
		t.Fatalf("first scrape: %d", code)
	}
	if code, _ := scrape(t, h, false); code != 200 {
		t.Fatalf("after the slot freed: %d", code)
	}
}

// TestScrapeHandlerRateCap: scrapes are served at most one per spacing
// after a burst; one whose turn would come later than the queue wait is
// refused 503 (the wait is 0 here, so at once).
func TestScrapeHandlerRateCap(t *testing.T) {
	g := newCountingGatherer()
	h := NewScrapeHandler(g, time.Second, 100, nil)
	h.spacing, h.burst, h.wait = time.Minute, 2, 0
	var served, refused atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch code, _ := scrape(t, h, false); code {
			case 200:
				served.Add(1)
			case http.StatusServiceUnavailable:
				refused.Add(1)
			default:
				t.Errorf("code %d", code)
			}
		}()
	}
	wg.Wait()
	// The burst of 2 past turns, and the turn due now.
	if served.Load() != 3 || refused.Load() != 7 || h.Refused() != 7 {
		t.Errorf("served %d, refused %d (handler: %d); want 3 and 7", served.Load(), refused.Load(), h.Refused())
	}
}

// TestScrapeHandlerDefaultSeesEveryWindow: the collector replaces its
// window every second and a scraper asks every second, just before
// each replacement (the worst phase). With the default cache time every
// scrape shows the window current at that moment: none is skipped and
// none is served twice. (A cache as long as the collection interval
// served every other window twice and never showed the others.)
func TestScrapeHandlerDefaultSeesEveryWindow(t *testing.T) {
	var window atomic.Int64
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "window", Help: "The collector's window number."},
		func() float64 { return float64(window.Load()) }))
	var nowNs atomic.Int64
	start := time.Unix(1000, 0)
	clock := func() time.Time { return time.Unix(0, nowNs.Load()) }
	h := NewScrapeHandler(reg, 0, 0, clock)
	h.spacing = 0 // the rate cap is on the wall clock; this test is about the cache
	for i := int64(1); i <= 20; i++ {
		window.Store(i) // the collector's update at i s
		// A scrape just before the next update, its spacing jittering
		// 0.98 s / 1.02 s as a real scraper's does.
		at := start.Add(time.Duration(i)*time.Second + 990*time.Millisecond - time.Duration(i%2)*20*time.Millisecond)
		nowNs.Store(at.UnixNano())
		_, b := scrape(t, h, false)
		if want := []byte("window " + strconv.FormatInt(i, 10) + "\n"); !bytes.Contains(b, want) {
			t.Fatalf("scrape at %s served a stale window, want %q in:\n%s", at.Sub(start), want, b)
		}
	}
}
