package temporal

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

type closeCounter struct{ n *atomic.Int32 }

func (c closeCounter) Close() error { c.n.Add(1); return nil }

// TestEvict: a run's components are closed and forgotten at its End, and,
// on a worker that did not see its end, once idle for IdleAfter; a plan
// fetched from a workflow goes with the last run that used it, one the
// host added stays.
func TestEvict(t *testing.T) {
	var closed atomic.Int32
	plan := &task.Plan{Version: "1", Name: "p", Phases: []task.Phase{{ID: "p1", Tasks: []task.Task{{ID: "T1", Title: "t",
		Acceptance: []task.Check{{Run: []string{"true"}}}}}}}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := &Activities{IdleAfter: time.Hour, now: func() time.Time { return now },
		Build: func(context.Context, *task.Plan, string) (*Components, error) {
			return &Components{Closer: closeCounter{&closed}}, nil
		}}
	d := policy.PlanDigest(plan)
	a.AddPlan(plan)
	refA, refB := Ref{Run: "A", PlanDigest: d, Dir: "/a"}, Ref{Run: "B", PlanDigest: d, Dir: "/b"}
	use := func(ref Ref) {
		t.Helper()
		if _, _, _, err := a.components(context.Background(), ref); err != nil {
			t.Fatal(err)
		}
	}
	check := func(runs, plans int, n int32) {
		t.Helper()
		if r, p := a.Cached(); r != runs || p != plans || closed.Load() != n {
			t.Fatalf("%d runs, %d plans cached, %d closed; want %d, %d, %d", r, p, closed.Load(), runs, plans, n)
		}
	}
	use(refA)
	use(refA)
	check(1, 1, 0)
	a.End(context.Background(), refA)
	check(0, 1, 1) // the host's plan stays
	use(refA)
	now = now.Add(2 * time.Minute)
	use(refB)
	check(2, 1, 1) // A is idle for 2 minutes only
	now = now.Add(2 * time.Hour)
	use(refB)
	check(1, 1, 2) // A went idle; B was just used
	a.mu.Lock()
	a.fetched = map[string]bool{d: true} // as if fetched from the workflow
	a.mu.Unlock()
	a.End(context.Background(), refB)
	check(0, 0, 3)
}
