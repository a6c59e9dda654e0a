package policy_test

import (
	"context"
	"fmt"
	"time"

	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task/model"
)

// memHost keeps the state in memory and passes every attempt but T1's first.
type memHost struct {
	p   *policy.Policy
	st  *policy.RunState
	now time.Time
}

func (h *memHost) Now() time.Time { h.now = h.now.Add(time.Second); return h.now }

func (h *memHost) Commit(_ context.Context, ts []policy.Transition) error {
	for _, t := range ts {
		if err := h.st.Apply(t); err != nil {
			return err
		}
	}
	return nil
}

func (h *memHost) Take(_ context.Context, s policy.Step) ([]policy.Transition, error) {
	fmt.Println(s.Kind, s.Task, s.Attempt)
	r := policy.AttemptReport{Task: s.Task, Attempt: s.Attempt}
	if s.Task == "T1" && s.Attempt == 1 {
		r.Failure = &policy.Failure{Attempt: 1, Kind: policy.FailVerify, Fingerprint: "test:abc"}
	}
	return h.p.ObserveAttempt(h.st, r, h.now)
}

func ExamplePolicy_Drive() {
	plan := &model.Plan{Version: "1", Name: "demo", Phases: []model.Phase{{ID: "p1", Tasks: []model.Task{
		{ID: "T1", Title: "divide", Acceptance: []model.Check{{Run: []string{"go", "test", "./..."}}}},
		{ID: "T2", Title: "document", DependsOn: []string{"T1"}, Acceptance: []model.Check{{Run: []string{"true"}}}},
	}}}}
	p := &policy.Policy{}
	st, _ := policy.Replay(policy.Transition{Kind: policy.TransRunStarted, Run: "r1", Plan: plan.Name})
	end, err := p.Drive(context.Background(), plan, st, &memHost{p: p, st: st})
	fmt.Println(end.Outcome, err, st.Cycles)
	// Output:
	// attempt T1 1
	// attempt T1 2
	// attempt T2 1
	// completed <nil> 3
}
