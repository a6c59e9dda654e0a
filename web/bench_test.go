package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/web"
)

// bigRun writes, in a state directory, a run of a plan of n tasks in 10
// phases: the first half done (one in ten after a failed attempt with a
// finding), a few running, the rest pending.
func bigRun(tb testing.TB, n int) (string, *task.Plan) {
	tb.Helper()
	plan := &task.Plan{Version: "1", Name: "big"}
	per := n / 10
	for p := range 10 {
		ph := task.Phase{ID: fmt.Sprintf("p%d", p), Title: fmt.Sprintf("phase %d", p)}
		for k := range per {
			t := task.Task{ID: fmt.Sprintf("T%d", p*per+k), Title: fmt.Sprintf("task %d of phase %d <with markup>", k, p),
				Acceptance: []task.Check{{Run: []string{"true"}}}}
			if k > 0 && k%4 != 0 {
				t.DependsOn = []string{fmt.Sprintf("T%d", p*per+k-1)}
			}
			ph.Tasks = append(ph.Tasks, t)
		}
		plan.Phases = append(plan.Phases, ph)
	}
	dir := tb.TempDir()
	store, err := loop.OpenDir(dir, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	tick := func() time.Time { now = now.Add(time.Second); return now }
	commit := func(ts ...policy.Transition) {
		if err := store.Commit(ctx, ts...); err != nil {
			tb.Fatal(err)
		}
	}
	commit(policy.Transition{Kind: policy.TransRunStarted, Time: tick(), Run: "bench", Plan: plan.Name})
	i := 0
	for _, ph := range plan.Phases {
		for _, t := range ph.Tasks {
			if i >= n/2+4 {
				break
			}
			ts := []policy.Transition{{Kind: policy.TransTaskStarted, Time: tick(), Phase: ph.ID, Task: t.ID}}
			attempt := 1
			if i%10 == 0 {
				ts = append(ts, policy.Transition{Kind: policy.TransAttemptStarted, Time: tick(), Task: t.ID, Attempt: 1},
					policy.Transition{Kind: policy.TransAttemptFinished, Time: tick(), Task: t.ID, Attempt: 1, Tokens: 900, CostUSD: 0.01,
						Failure: &policy.Failure{Attempt: 1, Kind: schema.FailVerify, Class: "test", Fingerprint: "test:abc123",
							Reason: "tests fail <b>", OutputTail: "--- FAIL: TestX\n<script>alert(1)</script>",
							Findings: []schema.Finding{{Severity: schema.SeverityHigh, File: "x.go", Line: 3, Message: "unchecked error"}}}})
				attempt = 2
			}
			ts = append(ts, policy.Transition{Kind: policy.TransAttemptStarted, Time: tick(), Task: t.ID, Attempt: attempt})
			if i < n/2 {
				ts = append(ts, policy.Transition{Kind: policy.TransAttemptFinished, Time: tick(), Task: t.ID, Attempt: attempt, Tokens: 1200, CostUSD: 0.02},
					policy.Transition{Kind: policy.TransTaskFinished, Time: tick(), Task: t.ID, Status: policy.StatusDone})
			}
			commit(ts...)
			i++
		}
	}
	return dir, plan
}

// TestBigPage: the page of a 10,000-task plan shows every task, with the
// plan's text escaped.
func TestBigPage(t *testing.T) {
	if testing.Short() {
		t.Skip("a large plan")
	}
	dir, plan := bigRun(t, 10_000)
	h, err := web.New(web.Config{Dir: dir, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	page := rec.Body.String()
	if n := strings.Count(page, `<article id="t-`); n != 10_000 {
		t.Errorf("%d cards, want 10000", n)
	}
	for status, want := range map[string]int{"done": 5000, "running": 4, "pending": 4996} {
		if n := strings.Count(page, `data-status="`+status+`"`); n != want {
			t.Errorf("%d %s cards, want %d", n, status, want)
		}
	}
	if strings.Contains(page, "<with markup>") || strings.Contains(page, "<script>alert") {
		t.Error("the plan's or a check's text is in the page unescaped")
	}
}

// BenchmarkPage10k measures serving the page of a 10,000-task plan against
// reading its state alone (loop.ReadState), interleaved in the same loop:
// page-ms and read-ms are medians of wall time, page/read their ratio, and
// page-cpu-ms and read-cpu-ms medians of the CPU time the process used
// (GC included), which other work on the machine does not inflate. cold-ms is a
// page over the directory made anew (New reads the state and renders every
// card) and its first response.
func BenchmarkPage10k(b *testing.B) {
	dir, plan := bigRun(b, 10_000)
	h, err := web.New(web.Config{Dir: dir, Plan: plan})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	var page, read, cold, pageCPU, readCPU []time.Duration
	size := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start, cpu := time.Now(), cpuTime()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		page, pageCPU = append(page, time.Since(start)), append(pageCPU, cpuTime()-cpu)
		size = rec.Body.Len()

		start, cpu = time.Now(), cpuTime()
		if _, err := loop.ReadState(dir); err != nil {
			b.Fatal(err)
		}
		read, readCPU = append(read, time.Since(start)), append(readCPU, cpuTime()-cpu)

		if i%4 == 0 {
			start = time.Now()
			h2, err := web.New(web.Config{Dir: dir, Plan: plan})
			if err != nil {
				b.Fatal(err)
			}
			rec := httptest.NewRecorder()
			h2.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			cold = append(cold, time.Since(start))
			h2.Close()
		}
	}
	ms := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2]) / 1e6
	}
	b.ReportMetric(ms(page), "page-ms")
	b.ReportMetric(ms(read), "read-ms")
	b.ReportMetric(ms(page)/ms(read), "page/read")
	b.ReportMetric(ms(pageCPU), "page-cpu-ms")
	b.ReportMetric(ms(readCPU), "read-cpu-ms")
	b.ReportMetric(ms(cold), "cold-ms")
	b.ReportMetric(float64(size)/1e6, "page-MB")
	b.ReportMetric(0, "ns/op")
}
