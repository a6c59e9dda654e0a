package hook

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// FindPlan is the plan a [Handler] judges by unless it is given a Plan func:
// the file c.PlanFile names; else, on a stop, the plan the run keeps in the
// working tree's .harnish/ (one that does not load is an error, not a
// reason to judge by another plan); else the first of harnish.yaml,
// harnish.yml, harnish.json, plan.yaml, plan.yml, plan.json in c.Root. It
// returns nil when there is none. A plan that does not load is an error.
func FindPlan(_ context.Context, c *Call) (*task.Plan, error) {
	if c.Event == guardrail.HookStop && c.PlanFile == "" {
		if kept := loop.KeptPlanFile(filepath.Join(c.Root, loop.StateDir)); kept != "" {
			return task.Load(kept)
		}
	}
	plan, _, err := task.Locate(c.PlanFile, c.Root)
	return plan, err
}

// FindTask is the task a stop holds the agent to unless a [Handler] is given
// a Task func: the task of c.Plan that c.TaskID names, else the one the run
// recorded in the working tree's .harnish/ has running. It returns nil when
// there is none, or no plan; an ID the plan does not have is an error.
func FindTask(_ context.Context, c *Call) (*task.Task, error) {
	if c.Plan == nil {
		return nil, nil
	}
	id := c.TaskID
	if id == "" {
		if st, err := loop.ReadState(filepath.Join(c.Root, loop.StateDir)); err == nil {
			for _, pt := range c.Plan.Tasks() {
				if ts := st.Tasks[pt.Task.ID]; ts != nil && ts.Status == policy.StatusRunning {
					id = pt.Task.ID
				}
			}
		}
	}
	if id == "" {
		return nil, nil
	}
	for _, pt := range c.Plan.Tasks() {
		if pt.Task.ID == id {
			return pt.Task, nil
		}
	}
	return nil, fmt.Errorf("the plan has no task %q", id)
}

// phaseOf returns the ID of the phase of plan that holds the task id.
func phaseOf(plan *task.Plan, id string) string {
	if plan == nil {
		return ""
	}
	for _, pt := range plan.Tasks() {
		if pt.Task.ID == id {
			return pt.Phase.ID
		}
	}
	return ""
}
