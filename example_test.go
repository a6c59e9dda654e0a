package harnish_test

import (
	"fmt"

	"github.com/harnish/harnish/task"
)

// A plan is YAML or JSON; loading it checks everything at once.
func Example() {
	plan, err := task.Parse("plan.yaml", []byte(`
version: 1
name: add-division
budget: {attempts: 3, task_timeout: 30m}
executor: {kind: command, argv: [./agent.sh]}
phases:
  - id: api
    title: Division API
    tasks:
      - id: T1
        title: divide() with zero check
        acceptance:
          - run: [go, test, ./calc/...]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pt := range plan.Tasks() {
		b := plan.TaskBudget(pt.Task)
		fmt.Printf("%s/%s: %s (%d attempts, %s)\n", pt.Phase.ID, pt.Task.ID, pt.Task.Title, b.Attempts, b.TaskTimeout)
	}
	// Output: api/T1: divide() with zero check (3 attempts, 30m0s)
}
