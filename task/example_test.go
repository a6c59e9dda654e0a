package task_test

import (
	"errors"
	"fmt"

	"github.com/harnish/harnish/task"
)

func Example() {
	plan := []byte(`version: 1
name: demo
phases:
  - id: build
    title: Build
    tasks:
      - id: T1
        title: Compile
        acceptance:
          - run: [go, build, ./...]
        dependsOn: []
`)
	_, err := task.Parse("plan.yaml", plan)
	fmt.Println(err)

	plan = []byte(`{"version": 1, "name": "demo", "phases": [{"id": "build", "title": "Build",
  "tasks": [{"id": "T1", "title": "Compile", "acceptance": [{"run": ["go", "build", "./..."]}]}]}]}`)
	p, err := task.Parse("plan.json", plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	t := p.Phases[0].Tasks[0]
	b := p.TaskBudget(&t)
	fmt.Printf("%s: %s, %d attempts, %s\n", t.ID, t.Acceptance[0].Kind(), b.Attempts, b.TaskTimeout)

	_, err = task.Parse("v2.yaml", []byte("version: 2\nname: demo\nsteps: []\n"))
	fmt.Println(err, errors.Is(err, task.ErrUnsupportedVersion))
	// Output:
	// plan.yaml:11:9: phases[0].tasks[0].dependsOn: unknown field (did you mean "depends_on"?)
	// T1: run, 3 attempts, 30m0s
	// v2.yaml:1:10: version: plan schema version 2 is newer than this harnish reads (1.x); upgrade harnish true
}
