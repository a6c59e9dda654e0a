package policytest

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// ourPlan is the shape of the plans our team runs: every task has checks,
// at most 3 attempts, and a Critical review sends it back.
func ourPlan(tasks ...task.Task) *task.Plan {
	return &task.Plan{Version: "1", Name: "ours", Budget: task.Budget{Attempts: 3},
		Phases: []task.Phase{{ID: "build", Title: "Build", Tasks: tasks}}}
}

func checked(id string) task.Task {
	return task.Task{ID: id, Title: id, Acceptance: []task.Check{{Run: []string{"go", "test", "./..."}}}}
}

func TestOurPolicy(t *testing.T) {
	tests := []struct {
		name     string
		plan     *task.Plan
		verifier *looptest.Verifier // per task, the fingerprint each attempt fails with ("" passes)
		reviewer *looptest.Reviewer // per task, whether each review finds a Critical problem
		debugger *looptest.Debugger // per task, whether the debugger finds a root cause
		want     policy.Outcome
		wantErr  error
		// attempts is how many attempts each task gets.
		attempts map[string]int
	}{
		{
			name: "a flaky failure is retried and passes",
			plan: ourPlan(checked("T1")), verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"timeout"}}},
			want: policy.Completed, attempts: map[string]int{"T1": 2},
		},
		{
			name:     "two strikes with a root cause buy exactly one more attempt",
			plan:     ourPlan(checked("T1")),
			verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"nilmap", "nilmap"}}},
			debugger: &looptest.Debugger{Found: map[string]bool{"T1": true}},
			want:     policy.Completed, attempts: map[string]int{"T1": 3},
		},
		{
			name:     "two strikes without a root cause halt: no blind third try",
			plan:     ourPlan(checked("T1"), checked("T2")),
			verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"nilmap", "nilmap"}}},
			debugger: &looptest.Debugger{},
			want:     policy.Halted, wantErr: policy.ErrHalted, attempts: map[string]int{"T1": 2},
		},
		{
			name:     "different failures use the budget, then escalate",
			plan:     ourPlan(checked("T1")),
			verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"a", "b", "c"}}},
			want:     policy.Escalated, wantErr: policy.ErrEscalated, attempts: map[string]int{"T1": 3},
		},
		{
			name:     "a Critical review sends the task back",
			plan:     ourPlan(checked("T1")),
			reviewer: &looptest.Reviewer{Critical: map[string][]bool{"T1": {true}}},
			want:     policy.Completed, attempts: map[string]int{"T1": 2},
		},
		{
			name: "a task without acceptance criteria never starts",
			plan: ourPlan(task.Task{ID: "T1", Title: "vague"}),
			want: policy.Escalated, wantErr: policy.ErrEscalated, attempts: map[string]int{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &looptest.Executor{}
			cfg := loop.Config{Plan: tt.plan, Executor: ex}
			if tt.verifier != nil {
				cfg.Verifier = tt.verifier
			}
			if tt.reviewer != nil {
				cfg.Reviewer = tt.reviewer
			}
			if tt.debugger != nil {
				cfg.Debugger = tt.debugger
			}
			res, _, err := looptest.Run(t, cfg)
			if res.Outcome != tt.want || !errors.Is(err, tt.wantErr) {
				t.Fatalf("outcome %s (%v), want %s", res.Outcome, err, tt.want)
			}
			got := map[string]int{}
			for _, req := range ex.Requests() {
				got[req.Task.ID]++
			}
			if diff := cmp.Diff(tt.attempts, got); diff != "" {
				t.Errorf("attempts per task (-want +got):\n%s", diff)
			}
		})
	}
}
