package metrics

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Scrape defaults: how long a gathered exposition is served, a cap on
// the scrapes served at once and on the scrapes served per second.
const (
	// ScrapeInterval is how long one gather is served. It is a quarter
	// of the engine's 1 s collection interval, not the whole of it: with
	// a cache as long as the interval, a Prometheus scraping every 1 s
	// found the cache 0.99 s old and was served the previous window, then
	// regathered on the next scrape, so every other 1 s window of
	// soakd_op_latency_quantile_seconds was never exported (a 200 ms
	// stall went unseen in CI). At a quarter, a scraper at the collection
	// interval or slower gets a fresh gather every time, and gathers stay
	// at most 4 a second however many scrape.
	ScrapeInterval      = 250 * time.Millisecond
	ScrapeMaxConcurrent = 4
	// ScrapeRate is the most scrapes served per second (after a burst of
	// ScrapeMaxConcurrent): even from cached bytes, 7,000 scrapes a
	// second (200 scrapers asking again at once) took a core.
	ScrapeRate = 20
	// ScrapeQueueWait is how long a scrape over the caps waits for its
	// turn; one that would wait longer is held that long and then
	// answered 503, so refused scrapers cannot ask again in a tight loop.
	ScrapeQueueWait = 2 * time.Second
)

// ScrapeHandler serves /metrics from an exposition built at most once
// per interval: the engine's data changes once per collection interval,
// so a second render in it shows nothing new and only costs the run CPU
// (~3.4 ms a scrape; 200 scrapers at once took one core from the
// schedule). Each negotiated format, plain and gzipped, is encoded once
// per gather and the bytes are served to every scraper until the next
// interval. Scrapes are served at most ScrapeRate a second, evenly
// spaced, and at most maxConcurrent at once; the rest wait their turn
// up to ScrapeQueueWait and are then refused with 503 and Retry-After.
type ScrapeHandler struct {
	g        prometheus.Gatherer
	interval time.Duration
	now      func() time.Time
	slots    chan struct{}
	wait     time.Duration
	spacing  time.Duration // between scrapes served (0: no rate cap)
	burst    int

	turnMu sync.Mutex
	next   time.Time // the next free turn

	mu      sync.Mutex
	at      time.Time // when mfs was gathered (zero: never)
	mfs     []*dto.MetricFamily
	gerr    error
	encoded map[scrapeKey][]byte

	gathers atomic.Int64
	refused atomic.Int64
}

type scrapeKey struct {
	format expfmt.Format
	gzip   bool
}

// NewScrapeHandler serves g's metrics, gathered at most once per
// interval (<= 0: ScrapeInterval), maxConcurrent at a time (<= 0:
// ScrapeMaxConcurrent). now is the clock (nil: time.Now).
func NewScrapeHandler(g prometheus.Gatherer, interval time.Duration, maxConcurrent int, now func() time.Time) *ScrapeHandler {
	if interval <= 0 {
		interval = ScrapeInterval
	}
	if maxConcurrent <= 0 {
		maxConcurrent = ScrapeMaxConcurrent
	}
	if now == nil {
		now = time.Now
	}
	return &ScrapeHandler{g: g, interval: interval, now: now, slots: make(chan struct{}, maxConcurrent), wait: ScrapeQueueWait,
		spacing: time.Second / ScrapeRate, burst: maxConcurrent}
}

// Gathers is how many times the handler has gathered (rendered) the
// metrics.
func (h *ScrapeHandler) Gathers() int64 { return h.gathers.Load() }

// Refused is how many scrapes were answered 503 for want of a slot.
func (h *ScrapeHandler) Refused() int64 { return h.refused.Load() }

// ServeHTTP implements http.Handler.
func (h *ScrapeHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.turn(r) {
		h.refused.Add(1)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many scrapes", http.StatusServiceUnavailable)
		return
	}
	select {
	case h.slots <- struct{}{}:
	default:
		t := time.NewTimer(h.wait)
		select {
		case h.slots <- struct{}{}:
			t.Stop()
		case <-t.C:
			h.refused.Add(1)
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many concurrent scrapes", http.StatusServiceUnavailable)
			return
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	defer func() { <-h.slots }()
	format := expfmt.Negotiate(r.Header)
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	body, err := h.body(scrapeKey{format, gz})
	if err != nil {
		http.Error(w, "gathering metrics: "+err.Error(), http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", string(format))
	hd.Set("Vary", "Accept-Encoding")
	if gz {
		hd.Set("Content-Encoding", "gzip")
	}
	w.Write(body)
}

// turn waits for the scrape's turn under the rate cap: false (after
// waiting h.wait, or when the scraper left) when it would come later
// than h.wait from now.
func (h *ScrapeHandler) turn(r *http.Request) bool {
	if h.spacing <= 0 {
		return true
	}
	h.turnMu.Lock()
	now := time.Now()
	at := h.next
	if earliest := now.Add(-time.Duration(h.burst) * h.spacing); at.Before(earliest) {
		at = earliest // idle for a while: a burst may go at once
	}
	ok := at.Sub(now) <= h.wait
	if ok {
		h.next = at.Add(h.spacing)
	}
	h.turnMu.Unlock()
	d := at.Sub(now)
	if !ok {
		d = h.wait
	}
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return false
		}
	}
	return ok
}

// body returns the encoded exposition for k, gathering when the last
// gather is an interval old. Scrapes that arrive while one gathers wait
// for it and share its result.
func (h *ScrapeHandler) body(k scrapeKey) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if now := h.now(); h.at.IsZero() || now.Sub(h.at) >= h.interval || now.Before(h.at) {
		h.mfs, h.gerr = h.g.Gather()
		h.at = now
		h.encoded = map[scrapeKey][]byte{}
		h.gathers.Add(1)
	}
	if len(h.mfs) == 0 && h.gerr != nil {
		return nil, h.gerr
	}
	// A gather error with families still serves them (the collectors
	// that worked), as promhttp's ContinueOnError does.
	if b, ok := h.encoded[k]; ok {
		return b, nil
	}
	var buf bytes.Buffer
	var zw *gzip.Writer
	var out interface{ Write([]byte) (int, error) } = &buf
	if k.gzip {
		zw = gzip.NewWriter(&buf)
		out = zw
	}
	enc := expfmt.NewEncoder(out, k.format)
	for _, mf := range h.mfs {
		if err := enc.Encode(mf); err != nil {
			return nil, err
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		if err := c.Close(); err != nil {
			return nil, err
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return nil, err
		}
	}
	h.encoded[k] = buf.Bytes()
	return h.encoded[k], nil
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip.
func acceptsGzip(v string) bool {
	for _, part := range strings.Split(v, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			return !strings.Contains(strings.ReplaceAll(params, " ", ""), "q=0") || strings.Contains(params, "q=0.")
		}
	}
	return false
}
