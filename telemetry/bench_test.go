//go:build unix

package telemetry_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/telemetry"
)

// BenchmarkOverhead measures what telemetry costs a run of 1,000 attempts
// with no-op components (looptest's executor and verifier, the in-memory
// store): each iteration runs the same plan three times, interleaved so
// machine noise hits them alike: with no telemetry at all, with telemetry
// off (a nil *Telemetry's Instrument), and with tracing and metrics on, to
// an in-memory span exporter called as each span ends and a manual metric
// reader. It reports the medians of the per-iteration ratios to the run
// with no telemetry: off/none (the bar: 1.0) and on/none (the bar: at most
// 1.2), of the wall time and of the process's CPU time (user and system,
// every thread: the collector's work included), and of the heap
// allocations. On a machine others share, the CPU time is the steadier of
// the times (a run that waits for a core is not charged for it), and the
// allocations do not depend on the machine at all.
//
// "tasks=1000" is a thousand tasks done at their first attempt;
// "tasks=100" a hundred tasks whose checks fail nine times, each time a new
// way, before they pass. "spans=sync" exports each span as it ends, on the
// loop's goroutine (the SDK's simple processor); "spans=batch" through the
// SDK's batch processor, as a host in production would (the CLI does), its
// last batch flushed inside the measured time.
//
//	go test -run '^$' -bench Overhead -benchtime 30x ./telemetry
func BenchmarkOverhead(b *testing.B) {
	for _, bc := range []struct {
		tasks, attempts int
		batch           bool
	}{{1000, 1, false}, {1000, 1, true}, {100, 10, false}, {100, 10, true}} {
		shape := bc
		name := fmt.Sprintf("tasks=%d/spans=sync", bc.tasks)
		if bc.batch {
			name = fmt.Sprintf("tasks=%d/spans=batch", bc.tasks)
		}
		b.Run(name, func(b *testing.B) {
			plan, script := benchPlan(shape.tasks, shape.attempts)
			spans := tracetest.NewInMemoryExporter()
			proc := sdktrace.WithSyncer(spans)
			if shape.batch {
				proc = sdktrace.WithBatcher(spans)
			}
			tp := sdktrace.NewTracerProvider(proc)
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			defer tp.Shutdown(context.Background())
			defer mp.Shutdown(context.Background())
			on, err := telemetry.New(telemetry.Config{TracerProvider: tp, MeterProvider: mp})
			if err != nil {
				b.Fatal(err)
			}
			var off *telemetry.Telemetry
			dir := b.TempDir()
			run := func(tel *telemetry.Telemetry) (wall, cpu time.Duration, allocs uint64) {
				cfg := loop.Config{Plan: plan, WorkDir: dir, Store: looptest.NewStore(), RunID: "bench",
					Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{Script: script}}
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				cpu0, start := cpuTime(b), time.Now()
				ctx, cfg, end := tel.Instrument(context.Background(), cfg)
				l, err := loop.New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				res, err := l.Run(ctx)
				end(err)
				if tel != nil {
					tp.ForceFlush(ctx)
				}
				wall, cpu = time.Since(start), cpuTime(b)-cpu0
				runtime.ReadMemStats(&m1)
				allocs = m1.Mallocs - m0.Mallocs
				if err != nil || res.Outcome != policy.Completed || res.State.Cycles != shape.tasks*shape.attempts {
					b.Fatalf("run: %v, %v", res, err)
				}
				return wall, cpu, allocs
			}
			var offWall, onWall, offCPU, onCPU, offAllocs, onAllocs []float64
			i := 0
			for b.Loop() {
				// Each run starts from a collected heap, with the spans
				// of the last one gone, and the three take turns at going
				// first: what one leaves behind is not charged to another.
				var wall, cpu [3]time.Duration
				var allocs [3]uint64
				for k := range 3 {
					j := (i + k) % 3
					spans.Reset()
					runtime.GC()
					wall[j], cpu[j], allocs[j] = run([]*telemetry.Telemetry{nil, off, on}[j])
				}
				i++
				offWall, onWall = append(offWall, ratio(wall[1], wall[0])), append(onWall, ratio(wall[2], wall[0]))
				offCPU, onCPU = append(offCPU, ratio(cpu[1], cpu[0])), append(onCPU, ratio(cpu[2], cpu[0]))
				offAllocs = append(offAllocs, float64(allocs[1])/float64(allocs[0]))
				onAllocs = append(onAllocs, float64(allocs[2])/float64(allocs[0]))
			}
			b.ReportMetric(median(offWall), "off/none-wall")
			b.ReportMetric(median(onWall), "on/none-wall")
			b.ReportMetric(median(offCPU), "off/none-cpu")
			b.ReportMetric(median(onCPU), "on/none-cpu")
			b.ReportMetric(median(offAllocs), "off/none-allocs")
			b.ReportMetric(median(onAllocs), "on/none-allocs")
		})
	}
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// cpuTime is the CPU time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// benchPlan is tasks independent tasks whose checks fail attempts-1 times,
// each time with a new fingerprint, then pass.
func benchPlan(tasks, attempts int) (*task.Plan, map[string][]string) {
	ts := make([]task.Task, tasks)
	script := map[string][]string{}
	for i := range ts {
		id := fmt.Sprintf("T%d", i)
		ts[i] = task.Task{ID: id, Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}}}
		for a := 1; a < attempts; a++ {
			script[id] = append(script[id], fmt.Sprintf("f%d", a))
		}
	}
	return &task.Plan{Version: "1", Name: "bench", Budget: task.Budget{Cycles: task.MaxCycles, Attempts: attempts},
		Phases: []task.Phase{{ID: "p", Title: "P", Tasks: ts}}}, script
}
