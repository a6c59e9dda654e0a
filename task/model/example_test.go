package model_test

import (
	"fmt"
	"time"

	"github.com/harnish/harnish/task/model"
)

// A plan built in code: the budget a task gets, and what Validate says of
// the plan.
func Example() {
	p := &model.Plan{
		Version: "1",
		Name:    "demo",
		Budget:  model.Budget{Attempts: 5, TaskTimeout: model.Duration(time.Hour)},
		Phases: []model.Phase{{ID: "build", Title: "Build", Tasks: []model.Task{
			{ID: "T1", Title: "Compile", Acceptance: []model.Check{{Run: []string{"go", "build", "./..."}}},
				Budget: model.Budget{Attempts: 2}},
			{ID: "T2", Title: "Document", DependsOn: []string{"T3"}},
		}}},
	}
	for _, pt := range p.Tasks() {
		b := p.TaskBudget(pt.Task)
		fmt.Printf("%s/%s: %d attempts in %s, %d cycles\n", pt.Phase.ID, pt.Task.ID, b.Attempts, b.TaskTimeout, b.Cycles)
	}
	problems := p.Validate()
	fmt.Println(problems)
	fmt.Println("may run:", problems.Err() == nil)
	// Output:
	// build/T1: 2 attempts in 1h0m0s, 100 cycles
	// build/T2: 5 attempts in 1h0m0s, 100 cycles
	// phases[0].tasks[1].depends_on[0]: no task "T3" in the plan
	// warning: phases[0].tasks[1].acceptance: task "T2" has no acceptance criteria; the loop will escalate it instead of starting it
	// may run: false
}
