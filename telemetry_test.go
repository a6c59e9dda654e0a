package harnish_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/loop"
)

// TestOpenTelemetry runs the two-task plan with a tracer provider inside a
// span of the host's: the run's span is its child, and each attempt's
// program ran with TRACEPARENT naming that attempt's harnish.attempt span.
func TestOpenTelemetry(t *testing.T) {
	dir, plan := tree(t, false, map[string]string{})
	seen := t.TempDir()
	script := agentScript + `printf '%s' "$TRACEPARENT" > "` + seen + `/$HARNISH_TASK_ID"` + "\n"
	if err := fsx.WriteExecutable(filepath.Join(dir, "agent.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(t.Context())
	r, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: dir, Gate: loop.AutoApprove{}, RunID: "r1", TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, host := tp.Tracer("host").Start(t.Context(), "host's agent work")
	if _, err := r.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	host.End()

	byName := map[string][]tracetest.SpanStub{}
	for _, s := range spans.GetSpans() {
		byName[s.Name] = append(byName[s.Name], s)
	}
	run, hostSpan := byName["harnish.run"], byName["host's agent work"]
	if len(run) != 1 || len(hostSpan) != 1 || run[0].Parent.SpanID() != hostSpan[0].SpanContext.SpanID() {
		t.Fatalf("want one harnish.run, a child of the host's span; got %d runs, %d host spans", len(run), len(hostSpan))
	}
	want := map[string]bool{}
	for _, s := range byName["harnish.attempt"] {
		if s.SpanContext.TraceID() != hostSpan[0].SpanContext.TraceID() {
			t.Errorf("harnish.attempt in trace %s, want the host's %s", s.SpanContext.TraceID(), hostSpan[0].SpanContext.TraceID())
		}
		want["00-"+s.SpanContext.TraceID().String()+"-"+s.SpanContext.SpanID().String()+"-01"] = true
	}
	for _, id := range []string{"T1", "T2"} {
		b, err := os.ReadFile(filepath.Join(seen, id))
		if err != nil {
			t.Fatal(err)
		}
		if tp := strings.TrimSpace(string(b)); !want[tp] {
			t.Errorf("%s's agent ran with TRACEPARENT %q, want one of its harnish.attempt spans %v", id, tp, want)
		}
	}
}
