package harnish_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/loop"
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

// examplePlan is the plan ExampleOpen carries out: one task, whose agent is
// a shell command.
const examplePlan = `version: 1
name: hello
executor: {kind: command, argv: [sh, -c, "echo hello > hello.txt"]}
phases:
  - id: greet
    title: Greeting
    tasks:
      - id: T1
        title: write hello.txt
        acceptance:
          - run: [test, -f, hello.txt]
`

// Open builds and opens everything a plan's run needs, as the harnish CLI
// does; the middle of this example is the README's embedding snippet.
func ExampleOpen() {
	worktree, err := os.MkdirTemp("", "harnish-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(worktree)
	if err := os.WriteFile(filepath.Join(worktree, "plan.yaml"), []byte(examplePlan), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	plan, err := task.Load(filepath.Join(worktree, "plan.yaml")) // every problem at once, with file:line:col
	if err != nil {
		log.Fatal(err)
	}
	// One call builds what the plan names (executor, reviewer, debugger,
	// guardrail) and opens the run's state and experience in worktree/.harnish.
	r, err := harnish.Open(ctx, plan, harnish.Options{
		Dir:  worktree,
		Gate: loop.AutoApprove{}, // nil: the run waits at each milestone for r.Resume(ctx, loop.ResumeOptions{Approve: true})
	})
	if err != nil {
		log.Fatal(err) // a corrupt state names its file; nothing is overwritten
	}
	defer r.Close() // releases the state's lock, the experience store and any plugins

	res, err := r.Run(ctx) // or r.Resume(ctx, loop.ResumeOptions{}) after any stop or crash
	if res == nil {
		log.Fatal(err) // the state could not be read or written
	}
	fmt.Println(res.Outcome, res.Outcome.ExitCode())
	// Output: completed 0
}
