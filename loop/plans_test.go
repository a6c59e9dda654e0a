package loop_test

import "github.com/harnish/harnish/task"

// check is a task of one passing check, depending on deps.
func check(id string, deps ...string) task.Task {
	return task.Task{ID: id, Title: id, DependsOn: deps, Acceptance: []task.Check{{Run: []string{"true"}}}}
}

func onePhase(tasks ...task.Task) *task.Plan {
	return &task.Plan{Version: "1", Name: "p", Phases: []task.Phase{{ID: "p1", Title: "P1", Tasks: tasks}}}
}
