package preflight_test

import (
	"context"
	"fmt"
	"os"

	"github.com/harnish/harnish/preflight"
	"github.com/harnish/harnish/task"
)

// A task that says it modifies a file the tree does not have is asked
// about before the agent improvises.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "preflight-example-")
	defer os.RemoveAll(dir)
	plan := &task.Plan{Version: "1", Name: "p", Budget: task.Budget{CostUSD: 5}, Phases: []task.Phase{{ID: "a", Title: "A", Tasks: []task.Task{
		{ID: "T1", Title: "Retry", Objective: "Modify cache/client.go so lookups retry.", Acceptance: []task.Check{{Sh: "test -f cache/client.go"}}},
	}}}}
	r, err := preflight.Run(context.Background(), preflight.Config{Plan: plan, Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range r.Findings {
		fmt.Println(f)
	}
	fmt.Println("blocking:", r.Blocking())
	// Output:
	// Expected: cache/client.go exists (task T1: "Modify cache/client.go")
	// Found: no such file
	// How should I proceed?
	// blocking: true
}
