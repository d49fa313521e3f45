package metrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/trace/noop"
)

func TestTracingOffByDefault(t *testing.T) {
	env := map[string]string{}
	tp, shutdown, err := NewTracerProvider(context.Background(), TracingConfig{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tp.(noop.TracerProvider); !ok {
		t.Fatalf("tracing on without configuration: %T", tp)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	env["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:4318"
	if !(TracingConfig{Getenv: func(k string) string { return env[k] }}).Enabled() {
		t.Fatal("OTEL_EXPORTER_OTLP_ENDPOINT does not enable tracing")
	}
}

func TestTracingExportsOTLP(t *testing.T) {
	var posts atomic.Int32
	var path atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Content-Type") == "application/x-protobuf" && r.ContentLength != 0 {
			posts.Add(1)
			path.Store(r.URL.Path)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	tp, shutdown, err := NewTracerProvider(context.Background(), TracingConfig{Endpoint: srv.URL + "/v1/traces", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	_, sp := tp.Tracer("test").Start(context.Background(), "soakd.run")
	sp.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if posts.Load() != 1 || path.Load() != "/v1/traces" {
		t.Fatalf("OTLP posts %d to %v, want 1 to /v1/traces", posts.Load(), path.Load())
	}
}
