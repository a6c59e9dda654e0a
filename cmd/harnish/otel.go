package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/harnish/harnish"
)

// otelShutdownTimeout bounds the last export at exit: a collector that is
// gone must not keep the run's exit status from the shell.
const otelShutdownTimeout = 5 * time.Second

// telemetrySetup is the OpenTelemetry that the standard OTEL_* variables ask
// of "harnish run" and "harnish resume"; its zero value is off.
type telemetrySetup struct {
	tp *sdktrace.TracerProvider // nil: no traces
	mp *sdkmetric.MeterProvider // nil: no metrics
	// traceParent and traceState are the caller's trace context (the
	// TRACEPARENT and TRACESTATE variables), the run's parent.
	traceParent, traceState string
}

// telemetryFromEnv reads the OTEL_* variables through getenv. Traces (and
// metrics) are exported over OTLP when OTEL_TRACES_EXPORTER
// (OTEL_METRICS_EXPORTER) is "otlp", or is unset and an OTLP endpoint is
// (OTEL_EXPORTER_OTLP_ENDPOINT, or the signal's own); "none", or neither,
// is off, as is OTEL_SDK_DISABLED=true. The protocol is
// OTEL_EXPORTER_OTLP_PROTOCOL (or the signal's own): http/protobuf, the
// default, or grpc. The exporters read the rest themselves (endpoint,
// headers, TLS, compression, timeout), the SDK the sampler
// (OTEL_TRACES_SAMPLER), the batching and the metric interval, and the
// resource takes OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES over
// service.name=harnish. Any other exporter or protocol is an error that
// names the variable.
func telemetryFromEnv(ctx context.Context, getenv func(string) string) (*telemetrySetup, error) {
	s := &telemetrySetup{}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return s, nil
	}
	traces, err := exporterWanted(getenv, "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if err != nil {
		return nil, err
	}
	metrics, err := exporterWanted(getenv, "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
	if err != nil || !traces && !metrics {
		return s, err
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "harnish")),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	if traces {
		grpc, err := otlpGRPC(getenv, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
		if err != nil {
			return nil, err
		}
		var exp sdktrace.SpanExporter
		if grpc {
			exp, err = otlptracegrpc.New(ctx)
		} else {
			exp, err = otlptracehttp.New(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("the OTLP trace exporter: %w", err)
		}
		s.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		s.traceParent, s.traceState = getenv("TRACEPARENT"), getenv("TRACESTATE")
	}
	if metrics {
		grpc, err := otlpGRPC(getenv, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")
		if err != nil {
			s.shutdown(ctx, io.Discard)
			return nil, err
		}
		var exp sdkmetric.Exporter
		if grpc {
			exp, err = otlpmetricgrpc.New(ctx)
		} else {
			exp, err = otlpmetrichttp.New(ctx)
		}
		if err != nil {
			s.shutdown(ctx, io.Discard)
			return nil, fmt.Errorf("the OTLP metric exporter: %w", err)
		}
		s.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
	}
	return s, nil
}

// exporterWanted reads a signal's exporter variable: "otlp" or "none", or,
// unset, otlp when an endpoint is set for the signal or for all.
func exporterWanted(getenv func(string) string, name, endpoint string) (bool, error) {
	switch v := strings.TrimSpace(getenv(name)); v {
	case "otlp":
		return true, nil
	case "none":
		return false, nil
	case "":
		return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv(endpoint) != "", nil
	default:
		return false, fmt.Errorf("%s=%q: harnish exports otlp, or none", name, v)
	}
}

// otlpGRPC reads the protocol of a signal: false for http/protobuf, true
// for grpc.
func otlpGRPC(getenv func(string) string, name string) (bool, error) {
	v, from := strings.TrimSpace(getenv(name)), name
	if v == "" {
		v, from = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL")), "OTEL_EXPORTER_OTLP_PROTOCOL"
	}
	switch v {
	case "", "http/protobuf":
		return false, nil
	case "grpc":
		return true, nil
	}
	return false, fmt.Errorf("%s=%q: harnish speaks http/protobuf or grpc", from, v)
}

// apply gives the options the providers.
func (s *telemetrySetup) apply(opts *harnish.Options) {
	if s.tp != nil {
		opts.TracerProvider = s.tp
	}
	if s.mp != nil {
		opts.MeterProvider = s.mp
	}
}

// parent returns ctx with the caller's trace context, when it gave one and
// traces are on: a host that runs harnish inside its own trace sees the run
// there.
func (s *telemetrySetup) parent(ctx context.Context) context.Context {
	if s.tp == nil || s.traceParent == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": s.traceParent, "tracestate": s.traceState})
}

// shutdown exports what is left, within otelShutdownTimeout, and says on
// stderr what could not be.
func (s *telemetrySetup) shutdown(ctx context.Context, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), otelShutdownTimeout)
	defer cancel()
	var errs []error
	if s.tp != nil {
		errs = append(errs, s.tp.Shutdown(ctx))
	}
	if s.mp != nil {
		errs = append(errs, s.mp.Shutdown(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(stderr, "harnish: OpenTelemetry: the last export failed: %v\n", err)
	}
}
