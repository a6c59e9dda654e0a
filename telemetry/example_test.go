package telemetry_test

import (
	"context"
	"fmt"
	"os"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/telemetry"
)

// A host instruments each drive of its loop with the providers it already
// has; here, spans go to memory.
func Example() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	tel, err := telemetry.New(telemetry.Config{TracerProvider: tp})
	if err != nil {
		fmt.Println(err)
		return
	}

	dir, _ := os.MkdirTemp("", "telemetry-example-")
	defer os.RemoveAll(dir)
	plan := &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{{ID: "p1", Title: "P1", Tasks: []task.Task{
		{ID: "T1", Title: "divide", Acceptance: []task.Check{{Run: []string{"go", "test", "./..."}}}},
	}}}}
	cfg := loop.Config{Plan: plan, WorkDir: dir, Store: looptest.NewStore(), RunID: "r1",
		Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}}

	ctx, cfg, end := tel.Instrument(context.Background(), cfg)
	l, err := loop.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = l.Run(ctx)
	end(err)
	for _, s := range spans.GetSpans() {
		fmt.Println(s.Name)
	}
	// Output:
	// harnish.check
	// harnish.attempt
	// harnish.task
	// harnish.phase
	// harnish.run
}
