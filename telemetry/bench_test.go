package telemetry_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

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
// 1.2).
//
// "tasks=1000" is a thousand tasks done at their first attempt;
// "tasks=100" a hundred tasks whose checks fail nine times, each time a new
// way, before they pass.
//
//	go test -run '^$' -bench Overhead -benchtime 30x ./telemetry
func BenchmarkOverhead(b *testing.B) {
	for _, shape := range []struct{ tasks, attempts int }{{1000, 1}, {100, 10}} {
		b.Run(fmt.Sprintf("tasks=%d", shape.tasks), func(b *testing.B) {
			plan, script := benchPlan(shape.tasks, shape.attempts)
			tp, spans, mp, reader := providers(b)
			on, err := telemetry.New(telemetry.Config{TracerProvider: tp, MeterProvider: mp})
			if err != nil {
				b.Fatal(err)
			}
			var off *telemetry.Telemetry
			dir := b.TempDir()
			run := func(tel *telemetry.Telemetry) time.Duration {
				cfg := loop.Config{Plan: plan, WorkDir: dir, Store: looptest.NewStore(), RunID: "bench",
					Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{Script: script}}
				start := time.Now()
				ctx, cfg, end := tel.Instrument(context.Background(), cfg)
				l, err := loop.New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				res, err := l.Run(ctx)
				end(err)
				d := time.Since(start)
				if err != nil || res.Outcome != policy.Completed || res.State.Cycles != shape.tasks*shape.attempts {
					b.Fatalf("run: %v, %v", res, err)
				}
				return d
			}
			var offRatios, onRatios []float64
			i := 0
			for b.Loop() {
				// Each run starts from a collected heap, with the spans
				// of the last one gone, and the three take turns at going
				// first: what one leaves behind is not charged to another.
				var d [3]time.Duration
				for k := range 3 {
					j := (i + k) % 3
					spans.Reset()
					runtime.GC()
					d[j] = run([]*telemetry.Telemetry{nil, off, on}[j])
				}
				i++
				offRatios = append(offRatios, float64(d[1])/float64(d[0]))
				onRatios = append(onRatios, float64(d[2])/float64(d[0]))
			}
			_ = reader
			b.ReportMetric(median(offRatios), "off/none")
			b.ReportMetric(median(onRatios), "on/none")
		})
	}
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
