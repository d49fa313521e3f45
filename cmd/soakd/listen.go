package main

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/soakd/soakd/metrics"
)

// serveMetrics serves the run's exporter (with the Go and process
// collectors) on /metrics at addr (--listen; "" = off) until stop.
func (a *App) serveMetrics(exp *metrics.Exporter, addr string) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if err := exp.Register(reg); err != nil {
		return func() {}, fmt.Errorf("metrics: %v", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return func() {}, fmt.Errorf("--listen %s: %v (use --listen 127.0.0.1:0 or --listen '' to turn metrics off)", addr, err)
	}
	mux := http.NewServeMux()
	// Rendered once per interval and capped: scrapers cannot take the
	// schedule's CPU.
	mux.Handle("/metrics", metrics.NewScrapeHandler(reg, 0, 0, nil))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(a.Stderr, "soakd: metrics on http://%s/metrics\n", ln.Addr())
	return func() { srv.Close() }, nil
}
