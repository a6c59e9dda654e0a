package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnish/harnish/task"
)

// selectTasks returns the plan cut down to the tasks spec names: IDs and
// ranges in plan order (T2-T5, 41.1-41.3), separated by commas. Phases left
// with no task are dropped. A selected task may depend on one left out only
// when the plan records that one done; otherwise it could never start, and
// that is an error naming both.
func selectTasks(plan *task.Plan, spec string) (*task.Plan, error) {
	var order []string
	for _, pt := range plan.Tasks() {
		order = append(order, pt.Task.ID)
	}
	chosen := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		ids, err := expand(order, item)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			chosen[id] = true
		}
	}
	out := *plan
	out.Phases = nil
	for _, ph := range plan.Phases {
		keep := ph
		keep.Tasks = nil
		for _, t := range ph.Tasks {
			if !chosen[t.ID] {
				continue
			}
			t.DependsOn = slices.Clone(t.DependsOn)
			t.DependsOn = slices.DeleteFunc(t.DependsOn, func(dep string) bool { return !chosen[dep] && done(plan, dep) })
			for _, dep := range t.DependsOn {
				if !chosen[dep] {
					return nil, fmt.Errorf("--tasks: task %s depends on %s, which is left out and not done: select it too", t.ID, dep)
				}
			}
			keep.Tasks = append(keep.Tasks, t)
		}
		if len(keep.Tasks) > 0 {
			out.Phases = append(out.Phases, keep)
		}
	}
	return &out, nil
}

// expand returns the IDs item names: one ID, or a range FROM-TO of the plan
// order (an ID holding "-" is taken whole first).
func expand(order []string, item string) ([]string, error) {
	if item == "" {
		return nil, fmt.Errorf("--tasks: an empty item")
	}
	if slices.Contains(order, item) {
		return []string{item}, nil
	}
	for i := range len(item) {
		if item[i] != '-' {
			continue
		}
		from, to := slices.Index(order, item[:i]), slices.Index(order, item[i+1:])
		if from >= 0 && to >= 0 {
			if from > to {
				return nil, fmt.Errorf("--tasks: range %s runs backwards in the plan", item)
			}
			return order[from : to+1], nil
		}
	}
	return nil, fmt.Errorf("--tasks: %q is neither a task of the plan nor a range FROM-TO of two", item)
}

func done(plan *task.Plan, id string) bool {
	for _, pt := range plan.Tasks() {
		if pt.Task.ID == id {
			return pt.Task.Status == task.StatusDone
		}
	}
	return false
}

// tempPlan writes plan to a file of its own in a new temporary directory,
// as JSON or YAML, for the run to keep (a selection, an import); the caller
// removes the directory.
func tempPlan(plan *task.Plan, asJSON bool) (string, error) {
	data, err := encodePlan(plan, asJSON)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "harnish-plan-")
	if err != nil {
		return "", err
	}
	name := "plan.yaml"
	if asJSON {
		name = "plan.json"
	}
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, data, 0o644)
}
