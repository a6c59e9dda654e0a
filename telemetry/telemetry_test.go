package telemetry_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/telemetry"
)

// providers returns an SDK tracer provider exporting to memory as each span
// ends, and a meter provider read by hand.
func providers(t testing.TB) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter, *sdkmetric.MeterProvider, *sdkmetric.ManualReader) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	return tp, spans, mp, reader
}

func check(id string) task.Task {
	return task.Task{ID: id, Title: id, Acceptance: []task.Check{{Run: []string{"true"}}}}
}

// The plan of the span tree test: two phases with a gate between; T1 fails
// its checks once, T2 fails twice the same way and the debugger finds the
// cause, T3's first change is sent back by the review; T2's agent reports a
// soft guardrail decision of its hook.
func demoPlan() *task.Plan {
	t2 := check("T2")
	t2.DependsOn = []string{"T1"}
	return &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{
		{ID: "p1", Title: "one", Tasks: []task.Task{check("T1"), t2}},
		{ID: "p2", Title: "two", Tasks: []task.Task{check("T3")}},
	}}
}

func TestSpanTree(t *testing.T) {
	tp, spans, mp, reader := providers(t)
	tel, err := telemetry.New(telemetry.Config{TracerProvider: tp, MeterProvider: mp})
	if err != nil || tel == nil {
		t.Fatalf("New = %v, %v", tel, err)
	}
	exec := &looptest.Executor{Script: map[string][]looptest.Act{
		"T2": {{Usage: executor.Usage{InputTokens: 100, OutputTokens: 20, CostUSD: 0.5},
			Violations: []executor.Violation{{Rule: "scope", Reason: "outside the task's files"}}}},
	}}
	rec := &looptest.Recorder{}
	cfg := loop.Config{Plan: demoPlan(), RunID: "r1", WorkDir: t.TempDir(), Executor: exec, Observer: rec,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"aaa"}, "T2": {"bbb", "bbb"}}},
		Reviewer: &looptest.Reviewer{Critical: map[string][]bool{"T3": {true}}},
		Debugger: &looptest.Debugger{Found: map[string]bool{"T2": true}},
		Gate:     &looptest.Gate{}}
	ctx, cfg, end := tel.Instrument(context.Background(), cfg)
	res, _, err := looptest.Run(t, cfg)
	end(err)
	if err != nil || res.Outcome != policy.Completed {
		t.Fatalf("run: %v, %v", res, err)
	}
	_ = ctx
	if len(rec.Events()) == 0 {
		t.Error("the host's observer got no events")
	}

	got := tree(spans.GetSpans())
	want := `harnish.run plan.name=demo run.id=r1 run.outcome=completed
  harnish.phase phase.id=p1 plan.name=demo
    harnish.task phase.id=p1 plan.name=demo task.id=T1 task.status=done
      harnish.attempt attempt.number=1 attempt.outcome=verify executor.claim=done failure.class=test failure.fingerprint=test:aaa phase.id=p1 plan.name=demo task.id=T1 [error]
        harnish.check check.exit_code=1 check.name=scripted check.passed=false [error]
      harnish.attempt attempt.number=2 attempt.outcome=passed executor.claim=done phase.id=p1 plan.name=demo task.id=T1
        harnish.check check.exit_code=0 check.name=scripted check.passed=true
        harnish.review review.critical=0 review.findings=0
    harnish.task phase.id=p1 plan.name=demo task.id=T2 task.status=done
      harnish.attempt attempt.number=1 attempt.outcome=verify executor.claim=done failure.class=test failure.fingerprint=test:bbb phase.id=p1 plan.name=demo task.id=T2 usage.cost_usd=0.5 usage.tokens=120 [error]
        event harnish.guardrail guardrail.level=soft guardrail.rule=scope
        harnish.check check.exit_code=1 check.name=scripted check.passed=false [error]
      harnish.attempt attempt.number=2 attempt.outcome=verify executor.claim=done failure.class=test failure.fingerprint=test:bbb phase.id=p1 plan.name=demo task.id=T2 [error]
        harnish.check check.exit_code=1 check.name=scripted check.passed=false [error]
      harnish.debug debugger.found=true
      harnish.attempt attempt.number=3 attempt.outcome=passed executor.claim=done phase.id=p1 plan.name=demo task.id=T2
        harnish.check check.exit_code=0 check.name=scripted check.passed=true
        harnish.review review.critical=0 review.findings=0
  harnish.gate gate.verdict=approved phase.id=p1 plan.name=demo
  harnish.phase phase.id=p2 plan.name=demo
    harnish.task phase.id=p2 plan.name=demo task.id=T3 task.status=done
      harnish.attempt attempt.number=1 attempt.outcome=review executor.claim=done phase.id=p2 plan.name=demo task.id=T3 [error]
        harnish.check check.exit_code=0 check.name=scripted check.passed=true
        harnish.review review.critical=1 review.findings=1
      harnish.attempt attempt.number=2 attempt.outcome=passed executor.claim=done phase.id=p2 plan.name=demo task.id=T3
        harnish.check check.exit_code=0 check.name=scripted check.passed=true
        harnish.review review.critical=0 review.findings=0
`
	if diff := cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("span tree (-want +got):\n%s", diff)
	}

	// Every attempt's executor ran with the trace context of its own span.
	ids := map[string]string{} // task#attempt -> traceparent of its harnish.attempt span
	for _, s := range spans.GetSpans() {
		if s.Name == "harnish.attempt" {
			key := fmt.Sprintf("%s#%d", attr(s.Attributes, "harnish.task.id").AsString(), attr(s.Attributes, "harnish.attempt.number").AsInt64())
			ids[key] = fmt.Sprintf("00-%s-%s-01", s.SpanContext.TraceID(), s.SpanContext.SpanID())
		}
	}
	reqs := exec.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d attempts, want 7", len(reqs))
	}
	for _, r := range reqs {
		key := fmt.Sprintf("%s#%d", r.Task.ID, r.Attempt)
		if got, want := r.Env[telemetry.EnvTraceParent], ids[key]; got != want || want == "" {
			t.Errorf("attempt %s ran with TRACEPARENT %q, want %q (its harnish.attempt span)", key, got, want)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	gotM := sums(rm)
	wantM := map[string]float64{
		"harnish.attempts{attempt.outcome=passed,failure.class=,plan.name=demo}":                3,
		"harnish.attempts{attempt.outcome=review,failure.class=,plan.name=demo}":                1,
		"harnish.attempts{attempt.outcome=verify,failure.class=test,plan.name=demo}":            3,
		"harnish.tasks{plan.name=demo,task.status=done}":                                        3,
		"harnish.runs{plan.name=demo,run.outcome=completed}":                                    1,
		"harnish.guardrail.decisions{guardrail.level=soft,guardrail.rule=scope,plan.name=demo}": 1,
		"harnish.usage.tokens{component=executor,plan.name=demo}":                               120,
		"harnish.usage.cost{component=executor,plan.name=demo}":                                 0.5,
		// histograms: the number of values recorded
		"harnish.attempt.duration{attempt.outcome=passed,failure.class=,plan.name=demo}#":            3,
		"harnish.attempt.duration{attempt.outcome=review,failure.class=,plan.name=demo}#":            1,
		"harnish.attempt.duration{attempt.outcome=verify,failure.class=test,plan.name=demo}#":        3,
		"harnish.task.duration{plan.name=demo,task.status=done}#":                                    3,
		"harnish.component.duration{component=executor,component.result=done,plan.name=demo}#":       7,
		"harnish.component.duration{component=verifier,component.result=passed,plan.name=demo}#":     4,
		"harnish.component.duration{component=verifier,component.result=failed,plan.name=demo}#":     3,
		"harnish.component.duration{component=reviewer,component.result=clean,plan.name=demo}#":      3,
		"harnish.component.duration{component=reviewer,component.result=critical,plan.name=demo}#":   1,
		"harnish.component.duration{component=debugger,component.result=root-cause,plan.name=demo}#": 1,
		"harnish.check.duration{check.passed=true,plan.name=demo}#":                                  4,
		"harnish.check.duration{check.passed=false,plan.name=demo}#":                                 3,
		"harnish.gate.wait{gate.verdict=approved,plan.name=demo}#":                                   1,
	}
	if diff := cmp.Diff(wantM, gotM); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func attr(kvs []attribute.KeyValue, key string) attribute.Value {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// tree renders spans as an indented tree: each span's name, its attributes
// (without the harnish. prefix, sorted) and [error] for an error status,
// its events, then its children in the order they started.
func tree(spans tracetest.SpanStubs) string {
	kids := map[string][]tracetest.SpanStub{}
	for _, s := range spans {
		p := ""
		if s.Parent.IsValid() {
			p = s.Parent.SpanID().String()
		}
		kids[p] = append(kids[p], s)
	}
	var b strings.Builder
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		ks := kids[parent]
		sort.SliceStable(ks, func(i, j int) bool { return ks[i].StartTime.Before(ks[j].StartTime) })
		for _, s := range ks {
			ind := strings.Repeat("  ", depth)
			fmt.Fprintf(&b, "%s%s%s", ind, s.Name, attrs(s.Attributes))
			if s.Status.Code.String() == "Error" {
				b.WriteString(" [error]")
			}
			b.WriteString("\n")
			for _, e := range s.Events {
				fmt.Fprintf(&b, "%s  event %s%s\n", ind, e.Name, attrs(e.Attributes))
			}
			walk(s.SpanContext.SpanID().String(), depth+1)
		}
	}
	walk("", 0)
	return b.String()
}

func attrs(kvs []attribute.KeyValue) string {
	var parts []string
	for _, kv := range kvs {
		parts = append(parts, strings.TrimPrefix(string(kv.Key), "harnish.")+"="+kv.Value.Emit())
	}
	slices.Sort(parts)
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

// sums flattens the metrics: a counter's sum per attribute set, and a
// histogram's count (its key ends in #).
func sums(rm metricdata.ResourceMetrics) map[string]float64 {
	out := map[string]float64{}
	key := func(name string, set attribute.Set) string {
		return name + "{" + strings.TrimPrefix(strings.TrimPrefix(strings.ReplaceAll(attrsOf(set), " harnish.", ","), " "), ",") + "}"
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] += float64(p.Value)
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)+"#"] += float64(p.Count)
				}
			}
		}
	}
	return out
}

func attrsOf(set attribute.Set) string {
	var b strings.Builder
	for _, kv := range set.ToSlice() {
		fmt.Fprintf(&b, " %s=%s", kv.Key, kv.Value.Emit())
	}
	return strings.Replace(b.String(), " harnish.", " ", 1)
}

// Off is nothing at all: no wrapper, no observer, no allocation.
func TestOff(t *testing.T) {
	for _, cfg := range []telemetry.Config{{}, {TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()}} {
		tel, err := telemetry.New(cfg)
		if tel != nil || err != nil {
			t.Fatalf("New(%+v) = %v, %v; want nil, nil", cfg, tel, err)
		}
	}
	var tel *telemetry.Telemetry
	in := loop.Config{Plan: demoPlan(), Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}, Reviewer: &looptest.Reviewer{},
		Debugger: &looptest.Debugger{}, Observer: &looptest.Recorder{}}
	ctx := context.Background()
	gotCtx, out, end := tel.Instrument(ctx, in)
	end(nil)
	if gotCtx != ctx || out.Executor != in.Executor || out.Verifier != in.Verifier || out.Reviewer != in.Reviewer ||
		out.Debugger != in.Debugger || out.Observer != in.Observer {
		t.Error("off: Instrument changed its arguments")
	}
	if n := testing.AllocsPerRun(100, func() {
		_, out, end = tel.Instrument(ctx, in)
		end(nil)
	}); n != 0 {
		t.Errorf("off: Instrument allocates %v times", n)
	}
}

// TestResume: a run that waits at its gate, then a resume that approves
// it: each drive is a trace of its own, the second picking up where the
// first stopped (the gate approved by the resume, the next phase's task).
func TestResume(t *testing.T) {
	tp, spans, _, _ := providers(t)
	tel, err := telemetry.New(telemetry.Config{TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	store := looptest.NewStore()
	base := loop.Config{Plan: demoPlan(), RunID: "r1", WorkDir: t.TempDir(), Store: store,
		Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}}
	drive := func(resume bool) string {
		spans.Reset()
		ctx, cfg, end := tel.Instrument(context.Background(), base)
		l, err := loop.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if resume {
			_, err = l.Resume(ctx, loop.ResumeOptions{Approve: true})
		} else {
			_, err = l.Run(ctx)
		}
		end(err)
		return tree(spans.GetSpans())
	}
	first := `harnish.run plan.name=demo run.id=r1 run.outcome=awaiting-approval
  harnish.phase phase.id=p1 plan.name=demo
    harnish.task phase.id=p1 plan.name=demo task.id=T1 task.status=done
      harnish.attempt attempt.number=1 attempt.outcome=passed executor.claim=done phase.id=p1 plan.name=demo task.id=T1
        harnish.check check.exit_code=0 check.name=scripted check.passed=true
    harnish.task phase.id=p1 plan.name=demo task.id=T2 task.status=done
      harnish.attempt attempt.number=1 attempt.outcome=passed executor.claim=done phase.id=p1 plan.name=demo task.id=T2
        harnish.check check.exit_code=0 check.name=scripted check.passed=true
  harnish.gate gate.verdict=awaiting-approval phase.id=p1 plan.name=demo
`
	second := `harnish.run plan.name=demo run.id=r1 run.outcome=completed
  harnish.gate gate.verdict=approved phase.id=p1 plan.name=demo
  harnish.phase phase.id=p2 plan.name=demo
    harnish.task phase.id=p2 plan.name=demo task.id=T3 task.status=done
      harnish.attempt attempt.number=1 attempt.outcome=passed executor.claim=done phase.id=p2 plan.name=demo task.id=T3
        harnish.check check.exit_code=0 check.name=scripted check.passed=true
`
	for i, want := range []string{first, second} {
		if diff := cmp.Diff(strings.Split(want, "\n"), strings.Split(drive(i == 1), "\n")); diff != "" {
			t.Errorf("drive %d: span tree (-want +got):\n%s", i+1, diff)
		}
	}
}

// TestPanic: a reviewer that panics ends the run with an error, and its
// span and the run's end with error statuses rather than stay open.
func TestPanic(t *testing.T) {
	tp, spans, _, _ := providers(t)
	tel, err := telemetry.New(telemetry.Config{TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	cfg := loop.Config{Plan: demoPlan(), RunID: "r1", WorkDir: t.TempDir(), Executor: &looptest.Executor{},
		Verifier: &looptest.Verifier{}, Reviewer: &looptest.Reviewer{Panic: true}}
	_, cfg, end := tel.Instrument(context.Background(), cfg)
	_, _, err = looptest.Run(t, cfg)
	end(err)
	got := tree(spans.GetSpans())
	for _, want := range []string{"harnish.run plan.name=demo run.id=r1 run.outcome=error [error]",
		"harnish.review [error]", "event exception component=reviewer exception.message=panic"} {
		if !strings.Contains(got, want) {
			t.Errorf("span tree lacks %q:\n%s", want, got)
		}
	}
}

// The advisor runs unwrapped inside the loop: its spend reaches the usage
// metrics from its event.
func TestAdvisorSpend(t *testing.T) {
	tp, _, mp, reader := providers(t)
	tel, err := telemetry.New(telemetry.Config{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	tk := check("T1")
	tk.Risk = task.RiskHigh
	plan := &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{{ID: "p1", Title: "P1", Tasks: []task.Task{tk}}}}
	adv := executor.AdvisorFunc(func(context.Context, *executor.AdviceRequest) (*executor.Advice, error) {
		return &executor.Advice{Verdict: schema.AdvisePlan, Text: "go slow", Usage: executor.Usage{InputTokens: 25, OutputTokens: 5, CostUSD: 0.1}}, nil
	})
	_, cfg, end := tel.Instrument(context.Background(), loop.Config{Plan: plan, RunID: "r1", WorkDir: t.TempDir(), Advisor: adv})
	_, _, err = looptest.Run(t, cfg)
	end(err)
	if err != nil {
		t.Fatal(err)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := sums(rm)
	if got["harnish.usage.tokens{component=advisor,plan.name=demo}"] != 30 || got["harnish.usage.cost{component=advisor,plan.name=demo}"] != 0.1 {
		t.Errorf("advisor spend in the metrics: %v", got)
	}
}
