package metrics

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// otlpExporter sends spans to an OTLP/HTTP traces endpoint as binary
// protobuf (ExportTraceServiceRequest). It is written here, on
// protowire, instead of using the otlptracehttp package: that package
// pulls in gRPC and its generated protos (113 packages soakd compiles
// for nothing else; issue 46). It sends what soakd's spans carry: names,
// ids, kinds, times, attributes, events and status.
//
// It reads the standard variables a user sets for any OTLP exporter:
// OTEL_EXPORTER_OTLP_(TRACES_)HEADERS (k=v,k=v, URL-encoded values) and
// OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT (milliseconds).
type otlpExporter struct {
	url     string
	headers http.Header
	client  *http.Client

	mu     sync.Mutex
	closed bool
}

// otlpTimeout is the default per-export timeout (the OTLP default is 10 s).
const otlpTimeout = 5 * time.Second

func newOTLPExporter(endpoint string, getenv func(string) string) (*otlpExporter, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q: give an http(s):// traces URL such as http://127.0.0.1:4318/v1/traces", endpoint)
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	h := http.Header{}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		for _, kv := range strings.Split(getenv(v), ",") {
			k, val, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				continue
			}
			if dv, err := url.QueryUnescape(strings.TrimSpace(val)); err == nil {
				val = dv
			}
			h.Set(strings.TrimSpace(k), val)
		}
	}
	timeout := otlpTimeout
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"} {
		var ms int
		if _, err := fmt.Sscanf(getenv(v), "%d", &ms); err == nil && ms > 0 {
			timeout = time.Duration(ms) * time.Millisecond
		}
	}
	return &otlpExporter{url: u.String(), headers: h, client: &http.Client{Timeout: timeout}}, nil
}

// ExportSpans posts one request holding every span.
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed || len(spans) == 0 {
		return nil
	}
	body := encodeTraceRequest(spans)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range e.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	res, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("OTLP export: %w", err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("OTLP export: %s answered HTTP %d", e.url, res.StatusCode)
	}
	return nil
}

// Shutdown stops further exports.
func (e *otlpExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.client.CloseIdleConnections()
	return nil
}

// encodeTraceRequest is ExportTraceServiceRequest{resource_spans: one
// ResourceSpans per resource, one ScopeSpans per instrumentation scope}.
// Field numbers are opentelemetry-proto's trace/v1 and common/v1.
func encodeTraceRequest(spans []sdktrace.ReadOnlySpan) []byte {
	type scopeKey struct{ name, version string }
	type group struct {
		res    []attribute.KeyValue
		scopes map[scopeKey][]sdktrace.ReadOnlySpan
		order  []scopeKey
	}
	var groups []*group
	byRes := map[string]*group{}
	for _, s := range spans {
		var attrs []attribute.KeyValue
		key := ""
		if r := s.Resource(); r != nil {
			attrs = r.Attributes()
			key = r.Encoded(attribute.DefaultEncoder())
		}
		g := byRes[key]
		if g == nil {
			g = &group{res: attrs, scopes: map[scopeKey][]sdktrace.ReadOnlySpan{}}
			byRes[key] = g
			groups = append(groups, g)
		}
		sc := s.InstrumentationScope()
		k := scopeKey{sc.Name, sc.Version}
		if _, ok := g.scopes[k]; !ok {
			g.order = append(g.order, k)
		}
		g.scopes[k] = append(g.scopes[k], s)
	}
	var out []byte
	for _, g := range groups {
		var rs []byte
		var res []byte
		for _, kv := range g.res {
			res = appendMsg(res, 1, appendKeyValue(nil, kv))
		}
		rs = appendMsg(rs, 1, res)
		for _, k := range g.order {
			var ss []byte
			var scope []byte
			scope = appendString(scope, 1, k.name)
			scope = appendString(scope, 2, k.version)
			ss = appendMsg(ss, 1, scope)
			for _, s := range g.scopes[k] {
				ss = appendMsg(ss, 2, encodeSpan(s))
			}
			rs = appendMsg(rs, 2, ss)
		}
		out = appendMsg(out, 1, rs)
	}
	return out
}

func encodeSpan(s sdktrace.ReadOnlySpan) []byte {
	var b []byte
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendBytes(b, 1, tid[:])
	b = appendBytes(b, 2, sid[:])
	b = appendString(b, 3, sc.TraceState().String())
	if p := s.Parent(); p.IsValid() {
		pid := p.SpanID()
		b = appendBytes(b, 4, pid[:])
	}
	b = appendString(b, 5, s.Name())
	if k := s.SpanKind(); k != 0 {
		b = protowire.AppendTag(b, 6, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(k)) // trace.SpanKind numbers are OTLP's
	}
	b = appendFixed64(b, 7, unixNano(s.StartTime()))
	b = appendFixed64(b, 8, unixNano(s.EndTime()))
	for _, kv := range s.Attributes() {
		b = appendMsg(b, 9, appendKeyValue(nil, kv))
	}
	b = appendUint(b, 10, uint64(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		var e []byte
		e = appendFixed64(e, 1, unixNano(ev.Time))
		e = appendString(e, 2, ev.Name)
		for _, kv := range ev.Attributes {
			e = appendMsg(e, 3, appendKeyValue(nil, kv))
		}
		b = appendMsg(b, 11, e)
	}
	b = appendUint(b, 12, uint64(s.DroppedEvents()))
	var st []byte
	st = appendString(st, 2, s.Status().Description)
	switch s.Status().Code { // codes.Code and OTLP's StatusCode differ
	case codes.Ok:
		st = appendUint(st, 3, 1)
	case codes.Error:
		st = appendUint(st, 3, 2)
	}
	b = appendMsg(b, 15, st)
	return b
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

// appendKeyValue is KeyValue{key: 1, value: AnyValue 2}.
func appendKeyValue(b []byte, kv attribute.KeyValue) []byte {
	b = appendString(b, 1, string(kv.Key))
	return appendMsg(b, 2, appendAnyValue(nil, kv.Value))
}

// appendAnyValue is AnyValue's oneof: string 1, bool 2, int 3, double 4,
// array 5.
func appendAnyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.AsBool()))
	case attribute.INT64:
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		b = protowire.AppendTag(b, 4, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.AsFloat64()))
	case attribute.BOOLSLICE, attribute.INT64SLICE, attribute.FLOAT64SLICE, attribute.STRINGSLICE:
		var arr []byte
		switch v.Type() {
		case attribute.BOOLSLICE:
			for _, x := range v.AsBoolSlice() {
				arr = appendMsg(arr, 1, appendAnyValue(nil, attribute.BoolValue(x)))
			}
		case attribute.INT64SLICE:
			for _, x := range v.AsInt64Slice() {
				arr = appendMsg(arr, 1, appendAnyValue(nil, attribute.Int64Value(x)))
			}
		case attribute.FLOAT64SLICE:
			for _, x := range v.AsFloat64Slice() {
				arr = appendMsg(arr, 1, appendAnyValue(nil, attribute.Float64Value(x)))
			}
		default:
			for _, x := range v.AsStringSlice() {
				arr = appendMsg(arr, 1, appendAnyValue(nil, attribute.StringValue(x)))
			}
		}
		return appendMsg(b, 5, arr)
	default:
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		return protowire.AppendString(b, v.Emit())
	}
}

func appendMsg(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	return appendMsg(b, num, v)
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendUint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendFixed64(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}
