package telemetry

import (
	"context"
	"errors"
	"maps"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// The components, as the harnish.component attribute names them.
const (
	componentExecutor = "executor"
	componentVerifier = "verifier"
	componentReviewer = "reviewer"
	componentDebugger = "debugger"
	componentAdvisor  = "advisor"
)

// The environment variables that carry the trace context to a program, as
// the W3C Trace Context names its headers.
const (
	EnvTraceParent = "TRACEPARENT"
	EnvTraceState  = "TRACESTATE"
)

// call is one component's call: its span and when it began.
type call struct {
	d     *drive
	span  trace.Span
	own   bool // the span is the call's, not its attempt's
	start time.Time
	what  string
}

// begin starts a call of a component: a span of its own named name, or,
// with name empty, none: the executor's and the verifier's calls are most
// of their attempt's span, which carries what they report (the checks get
// spans of their own), so a span each would double the spans of a run and
// tell little more.
func (d *drive) begin(ctx context.Context, name, what, task string, attempt int) (context.Context, *call) {
	c := &call{d: d, start: time.Now(), what: what, own: name != ""}
	ctx = d.parent(ctx, task, attempt)
	if c.own {
		ctx, c.span = d.t.tracer.Start(ctx, name, trace.WithTimestamp(c.start))
	} else {
		c.span = trace.SpanFromContext(ctx)
	}
	return ctx, c
}

// finish ends the call's own span and records its duration, with result
// the word for how it went ("error" when err is not nil, recorded on the
// span).
func (c *call) finish(result string, err error) {
	now := time.Now()
	if err != nil {
		result = "error"
		c.span.RecordError(err, trace.WithTimestamp(now), trace.WithAttributes(keyComponent.String(c.what)))
		if c.own {
			c.span.SetStatus(codes.Error, bound(err.Error()))
		}
	}
	if c.own {
		c.span.End(trace.WithTimestamp(now))
	}
	c.d.t.m.componentTime.Record(context.Background(), now.Sub(c.start).Seconds(),
		c.d.opt(keyComponent, c.what, keyResult, result))
}

// recovered ends the call's span when the component panics, then panics
// on: the loop recovers it.
func (c *call) recovered() {
	if p := recover(); p != nil {
		c.finish("", errors.New("panic"))
		panic(p)
	}
}

// withTraceContext returns env with the trace context of ctx's span added
// (W3C Trace Context, as its propagator writes it), or env itself when ctx
// has no span worth naming.
func (d *drive) withTraceContext(ctx context.Context, env map[string]string) map[string]string {
	sc := trace.SpanContextFromContext(ctx)
	if !d.t.tracing || !sc.IsValid() {
		return env
	}
	out := make(map[string]string, len(env)+2)
	maps.Copy(out, env)
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	out[EnvTraceParent] = carrier["traceparent"]
	if ts := carrier["tracestate"]; ts != "" {
		out[EnvTraceState] = ts
	}
	return out
}

type tracedExecutor struct {
	next executor.Executor
	d    *drive
}

func (x *tracedExecutor) Execute(ctx context.Context, req *executor.Request) (res *executor.Result, err error) {
	ctx, c := x.d.begin(ctx, "", componentExecutor, taskID(req.Task), req.Attempt)
	defer c.recovered()
	r := *req
	r.Env = x.d.withTraceContext(ctx, req.Env)
	res, err = x.next.Execute(ctx, &r)
	result := ""
	if err == nil && res != nil {
		// The attempt's span gets the spend from the loop's report.
		result = string(res.Status)
		c.span.SetAttributes(keyClaim.String(string(res.Status)))
	}
	c.finish(result, err)
	return res, err
}

func usage(span trace.Span, u executor.Usage) {
	if u != (executor.Usage{}) {
		span.SetAttributes(keyTokens.Int64(u.Tokens()), keyCost.Float64(u.CostUSD))
	}
}

type tracedVerifier struct {
	next verify.Verifier
	d    *drive
}

func (v *tracedVerifier) Verify(ctx context.Context, req *verify.Request) (rep *verify.Report, err error) {
	ctx, c := v.d.begin(ctx, "", componentVerifier, taskID(req.Task), req.Attempt)
	defer c.recovered()
	rep, err = v.next.Verify(ctx, req)
	result := ""
	if err == nil && rep != nil {
		result = "failed"
		if rep.Passed {
			result = "passed"
		}
		v.checks(ctx, c.start, rep.Checks)
	}
	c.finish(result, err)
	return rep, err
}

// checks makes a span of each check, under the attempt's, laid end to end
// from the verification's start: a report gives each check's duration, not
// its start.
func (v *tracedVerifier) checks(ctx context.Context, at time.Time, cs []verify.CheckResult) {
	m := &v.d.t.m
	for i := range cs {
		ch := &cs[i]
		end := at.Add(ch.Duration)
		attrs := []attribute.KeyValue{keyCheck.String(bound(ch.Name)), keyPassed.Bool(ch.Passed), keyExitCode.Int(ch.ExitCode)}
		if ch.Stage != "" {
			attrs = append(attrs, keyStage.String(bound(ch.Stage)))
		}
		if ch.TestsRun != 0 || ch.TestsFailed != 0 {
			attrs = append(attrs, keyTestsRun.Int(ch.TestsRun), keyTestsFailed.Int(ch.TestsFailed))
		}
		_, span := v.d.t.tracer.Start(ctx, "harnish.check", trace.WithTimestamp(at), trace.WithAttributes(attrs...))
		if !ch.Passed {
			span.SetStatus(codes.Error, "the check failed")
		}
		span.End(trace.WithTimestamp(end))
		m.checkTime.Record(context.Background(), ch.Duration.Seconds(),
			v.d.checkOpt[b2i(ch.Passed)])
		at = end
	}
}

type tracedReviewer struct {
	next verify.Reviewer
	d    *drive
}

func (r *tracedReviewer) Review(ctx context.Context, req *verify.ReviewRequest) (rev *verify.Review, err error) {
	ctx, c := r.d.begin(ctx, "harnish.review", componentReviewer, taskID(req.Task), req.Attempt)
	defer c.recovered()
	rev, err = r.next.Review(ctx, req)
	result := ""
	if err == nil {
		n, crit := 0, 0
		if rev != nil {
			n, crit = len(rev.Findings), len(rev.Critical())
		}
		result = "clean"
		if crit > 0 {
			result = "critical"
		}
		c.span.SetAttributes(keyFindings.Int(n), keyCritical.Int(crit))
	}
	c.finish(result, err)
	return rev, err
}

type tracedDebugger struct {
	next executor.Debugger
	d    *drive
}

func (g *tracedDebugger) Debug(ctx context.Context, req *executor.DebugRequest) (diag *executor.Diagnosis, err error) {
	ctx, c := g.d.begin(ctx, "harnish.debug", componentDebugger, taskID(req.Task), 0)
	defer c.recovered()
	r := *req
	r.Env = g.d.withTraceContext(ctx, req.Env)
	diag, err = g.next.Debug(ctx, &r)
	u := executor.Usage{}
	result := ""
	switch {
	case err != nil:
		if ee, ok := errors.AsType[*executor.Error](err); ok {
			u = ee.Usage
		}
	case diag != nil:
		u = diag.Usage
		result = "no-root-cause"
		if diag.Found {
			result = "root-cause"
		}
		c.span.SetAttributes(keyFound.Bool(diag.Found))
	}
	usage(c.span, u)
	if tok := u.Tokens(); tok != 0 {
		g.d.t.m.tokens.Add(context.Background(), tok, g.d.opt(keyComponent, componentDebugger, "", ""))
	}
	if u.CostUSD != 0 {
		g.d.t.m.cost.Add(context.Background(), u.CostUSD, g.d.opt(keyComponent, componentDebugger, "", ""))
	}
	c.finish(result, err)
	return diag, err
}

func taskID(t *task.Task) string {
	if t == nil {
		return ""
	}
	return t.ID
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
