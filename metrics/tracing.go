package metrics

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// TracingConfig says whether and where soakd sends OpenTelemetry spans.
type TracingConfig struct {
	// Endpoint is a full OTLP/HTTP traces URL (--otlp-endpoint), e.g.
	// http://127.0.0.1:4318/v1/traces. Empty: use the standard
	// OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT variables; neither: tracing off.
	Endpoint string
	Getenv   func(string) string
	Version  string
}

// Enabled reports whether spans are exported.
func (c TracingConfig) Enabled() bool {
	if c.Endpoint != "" {
		return true
	}
	if c.Getenv == nil {
		return false
	}
	return c.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || c.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// NewTracerProvider returns a provider exporting over OTLP/HTTP when
// configured and a no-op provider otherwise (off by default). shutdown
// flushes pending spans.
func NewTracerProvider(ctx context.Context, c TracingConfig) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	if !c.Enabled() {
		return noop.NewTracerProvider(), func(context.Context) error { return nil }, nil
	}
	exp, err := newOTLPExporter(c.endpointURL(), c.Getenv)
	if err != nil {
		return nil, nil, err
	}
	res := resource.NewSchemaless(attribute.String("service.name", "soakd"), attribute.String("service.version", c.Version))
	p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return p, p.Shutdown, nil
}

// endpointURL is the traces URL: Endpoint, else the endpoint variables
// as Getenv (the process's, or the daemon's injected environment) gives
// them; OTEL_EXPORTER_OTLP_ENDPOINT is a base URL that gets /v1/traces.
func (c TracingConfig) endpointURL() string {
	if c.Endpoint != "" || c.Getenv == nil {
		return c.Endpoint
	}
	if u := c.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); u != "" {
		return u
	}
	if u := c.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); u != "" {
		return strings.TrimSuffix(u, "/") + "/v1/traces"
	}
	return ""
}
