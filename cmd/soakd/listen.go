package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/soakd/soakd/metrics"
)

// serveMetrics serves the run's exporter (with the Go and process
// collectors) on /metrics at addr (--listen; "" = off) until stop. When
// addr is the default (given is false) and its port is taken (another
// run on the host, say), a free loopback port is used instead and
// printed; an address the user gave fails loudly.
func (a *App) serveMetrics(exp *metrics.Exporter, addr string, given bool) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if err := exp.Register(reg); err != nil {
		return func() {}, fmt.Errorf("metrics: %v", err)
	}
	ln, err := net.Listen("tcp", addr)
	moved := false
	if err != nil && !given && errors.Is(err, syscall.EADDRINUSE) {
		ln, err = net.Listen("tcp", freeLoopback(addr))
		moved = err == nil
	}
	if err != nil {
		return func() {}, fmt.Errorf("--listen %s: %v (use --listen 127.0.0.1:0 or --listen '' to turn metrics off)", addr, err)
	}
	mux := http.NewServeMux()
	// Rendered once per interval and capped: scrapers cannot take the
	// schedule's CPU.
	mux.Handle("/metrics", metrics.NewScrapeHandler(reg, 0, 0, nil))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	switch {
	case moved:
		fmt.Fprintf(a.Stderr, "soakd: %s is taken (another run?); metrics on http://%s/metrics\n", addr, ln.Addr())
	default:
		// Printed under --quiet too: scripts read the address from it.
		fmt.Fprintf(a.Stderr, "soakd: metrics on http://%s/metrics\n", ln.Addr())
	}
	return func() { srv.Close() }, nil
}

// freeLoopback is addr's host with port 0 (the kernel picks a free one).
func freeLoopback(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, "0")
}
