package telemetry

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/harnish/harnish/loop"
)

// ScopeName is the instrumentation scope of harnish's tracer and meter.
const ScopeName = "github.com/harnish/harnish/telemetry"

// Config says where the telemetry goes. The zero value is off.
type Config struct {
	// TracerProvider receives the spans. Nil, or a no-op provider
	// (trace/noop): no spans.
	TracerProvider trace.TracerProvider
	// MeterProvider receives the metrics. Nil, or a no-op provider
	// (metric/noop): no metrics.
	MeterProvider metric.MeterProvider
}

// Telemetry instruments loops with the providers of a [Config]. A nil
// *Telemetry is off: [Telemetry.Instrument] hands back what it was given.
// A Telemetry is safe for concurrent use, and one may instrument any number
// of drives, one after another or side by side.
type Telemetry struct {
	tracer  trace.Tracer
	tracing bool // spans go somewhere: worth a TRACEPARENT
	m       instruments
}

// New returns the Telemetry of cfg, or nil when cfg is off (both providers
// nil or no-op). The error reports an instrument the meter provider refused.
func New(cfg Config) (*Telemetry, error) {
	tp, mp := cfg.TracerProvider, cfg.MeterProvider
	if isNoopTracer(tp) {
		tp = nil
	}
	if isNoopMeter(mp) {
		mp = nil
	}
	if tp == nil && mp == nil {
		return nil, nil
	}
	t := &Telemetry{tracing: tp != nil}
	if tp == nil {
		tp = tracenoop.NewTracerProvider()
	}
	if mp == nil {
		mp = metricnoop.NewMeterProvider()
	}
	t.tracer = tp.Tracer(ScopeName)
	if err := t.m.init(mp.Meter(ScopeName)); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	return t, nil
}

func isNoopTracer(tp trace.TracerProvider) bool {
	switch tp.(type) {
	case tracenoop.TracerProvider, *tracenoop.TracerProvider:
		return true
	}
	return false
}

func isNoopMeter(mp metric.MeterProvider) bool {
	switch mp.(type) {
	case metricnoop.MeterProvider, *metricnoop.MeterProvider:
		return true
	}
	return false
}

// End ends what a drive left open; see [Telemetry.Instrument].
type End func(err error)

func noEnd(error) {}

// Instrument prepares one drive of a loop (one [loop.Loop.Run] or
// [loop.Loop.Resume]): it returns ctx with the run's span in it, to pass to
// Run or Resume; cfg with its components wrapped (the executor, verifier,
// reviewer and debugger, timed and traced under their attempt or task, the
// executor and debugger with TRACEPARENT in their request's Env; see the
// package doc) and an observer of its own after cfg's; and the End to call
// with Run's or
// Resume's error when it returns, which ends the spans the drive left open.
//
// The run's span is a child of the span ctx holds, if any: a host that
// traces its own work sees the run inside it. Build a fresh loop with the
// returned cfg for each drive: the spans of one drive are kept by its
// observer.
//
// On a nil Telemetry, Instrument returns ctx and cfg as they are and an End
// that does nothing, allocating nothing: off costs what no telemetry costs.
func (t *Telemetry) Instrument(ctx context.Context, cfg loop.Config) (context.Context, loop.Config, End) {
	if t == nil {
		return ctx, cfg, noEnd
	}
	d := newDrive(t, cfg)
	ctx, d.run = t.tracer.Start(ctx, "harnish.run", trace.WithAttributes(d.runAttrs()...))
	d.runCtx = ctx
	if cfg.Observer != nil {
		cfg.Observer = observers{cfg.Observer, d}
	} else {
		cfg.Observer = d
	}
	if cfg.Executor != nil {
		cfg.Executor = &tracedExecutor{next: cfg.Executor, d: d}
	}
	if cfg.Verifier != nil {
		cfg.Verifier = &tracedVerifier{next: cfg.Verifier, d: d}
	}
	if cfg.Reviewer != nil {
		cfg.Reviewer = &tracedReviewer{next: cfg.Reviewer, d: d}
	}
	if cfg.Debugger != nil {
		cfg.Debugger = &tracedDebugger{next: cfg.Debugger, d: d}
	}
	return ctx, cfg, d.end
}

// observers calls the host's observer, then the drive's; a panic in the
// host's does not keep the event from the drive's.
type observers [2]loop.Observer

func (o observers) Observe(e loop.Event) {
	func() {
		defer func() { recover() }() // as the loop does: observers cannot fail the run
		o[0].Observe(e)
	}()
	o[1].Observe(e)
}
