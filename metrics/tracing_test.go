package metrics

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
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

// The hand-written exporter's bytes decode with opentelemetry-proto's own
// generated types (TracesData has ExportTraceServiceRequest's layout) into
// the spans that were made: names, parent, kind, attributes of every
// type, events, status, the resource and the headers the environment sets.
func TestOTLPWireFormat(t *testing.T) {
	var body []byte
	var hdr http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		hdr = r.Header.Clone()
	}))
	defer srv.Close()
	env := map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "x-team=soak%20crew,authorization=Bearer t0ken"}
	tp, shutdown, err := NewTracerProvider(context.Background(), TracingConfig{Endpoint: srv.URL + "/v1/traces", Version: "v9", Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	tr := tp.Tracer("soakd/test")
	ctx, parent := tr.Start(context.Background(), "soakd.run")
	_, child := tr.Start(ctx, "soakd.phase", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("phase", "steady"), attribute.Int64("ops", 42), attribute.Float64("rate", 2.5),
		attribute.Bool("ok", true), attribute.StringSlice("ops.names", []string{"get", "set"})))
	child.AddEvent("rate change", trace.WithAttributes(attribute.Int64("to", 100)))
	child.SetStatus(codes.Error, "slo failed")
	child.End()
	parent.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if hdr.Get("Content-Type") != "application/x-protobuf" || hdr.Get("X-Team") != "soak crew" || hdr.Get("Authorization") != "Bearer t0ken" {
		t.Errorf("headers %v", hdr)
	}
	var td tracepb.TracesData
	if err := proto.Unmarshal(body, &td); err != nil {
		t.Fatalf("decoding the export: %v", err)
	}
	if len(td.ResourceSpans) != 1 || len(td.ResourceSpans[0].ScopeSpans) != 1 {
		t.Fatalf("resource/scope spans: %v", &td)
	}
	rs := td.ResourceSpans[0]
	res := map[string]string{}
	for _, kv := range rs.Resource.Attributes {
		res[kv.Key] = kv.Value.GetStringValue()
	}
	if res["service.name"] != "soakd" || res["service.version"] != "v9" {
		t.Errorf("resource %v", res)
	}
	ss := rs.ScopeSpans[0]
	if ss.Scope.Name != "soakd/test" || len(ss.Spans) != 2 {
		t.Fatalf("scope %v, %d spans", ss.Scope, len(ss.Spans))
	}
	var ph, run *tracepb.Span
	for _, s := range ss.Spans {
		switch s.Name {
		case "soakd.phase":
			ph = s
		case "soakd.run":
			run = s
		}
	}
	if ph == nil || run == nil {
		t.Fatalf("spans %v", ss.Spans)
	}
	if string(ph.ParentSpanId) != string(run.SpanId) || string(ph.TraceId) != string(run.TraceId) || len(run.ParentSpanId) != 0 {
		t.Errorf("parent/trace ids do not link the spans")
	}
	if ph.Kind != tracepb.Span_SPAN_KIND_CLIENT || ph.Status.Code != tracepb.Status_STATUS_CODE_ERROR || ph.Status.Message != "slo failed" {
		t.Errorf("kind %v status %v", ph.Kind, ph.Status)
	}
	if ph.EndTimeUnixNano < ph.StartTimeUnixNano || ph.StartTimeUnixNano == 0 {
		t.Errorf("times %d..%d", ph.StartTimeUnixNano, ph.EndTimeUnixNano)
	}
	got := map[string]string{}
	for _, kv := range ph.Attributes {
		got[kv.Key] = kv.Value.String()
	}
	for k, want := range map[string]string{"phase": `string_value:"steady"`, "ops": "int_value:42", "rate": "double_value:2.5", "ok": "bool_value:true"} {
		if strings.ReplaceAll(got[k], "  ", " ") != want {
			t.Errorf("attribute %s = %q, want %q", k, got[k], want)
		}
	}
	if arr := ph.Attributes[4].Value.GetArrayValue(); arr == nil || len(arr.Values) != 2 || arr.Values[1].GetStringValue() != "set" {
		t.Errorf("string slice attribute %v", ph.Attributes[4])
	}
	if len(ph.Events) != 1 || ph.Events[0].Name != "rate change" || ph.Events[0].Attributes[0].Value.GetIntValue() != 100 {
		t.Errorf("events %v", ph.Events)
	}
}
