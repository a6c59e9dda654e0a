package temporal_test

import (
	"context"
	"fmt"
	"log/slog"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	temporal "github.com/harnish/harnish/contrib/temporal"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/task"
)

// A plan run as a workflow in the SDK's offline test environment, with
// scripted components: the checks fail once, the second attempt passes.
// On a real server the workflow and the activities are registered the same
// way (temporal.Register) on a worker, and a run is started with
// temporal.Start.
func Example() {
	plan := &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{{ID: "p1", Tasks: []task.Task{
		{ID: "T1", Title: "divide", Acceptance: []task.Check{{Run: []string{"go", "test", "./..."}}}},
	}}}}
	a := &temporal.Activities{Build: func(context.Context, *task.Plan, string) (*temporal.Components, error) {
		return &temporal.Components{Executor: &looptest.Executor{},
			Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"division-by-zero"}}}}, nil
	}}
	a.AddPlan(plan)

	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	temporal.Register(env, a)
	env.ExecuteWorkflow(temporal.WorkflowName, temporal.RunInput{Plan: plan, Dir: "/src/demo"})

	var res temporal.RunResult
	if err := env.GetWorkflowResult(&res); err != nil {
		fmt.Println(err)
		return
	}
	t1 := res.State.Tasks["T1"]
	fmt.Printf("%s after %d attempts; the first failed with %s\n", res.Outcome, t1.Attempts, t1.Failures[0].Fingerprint)
	// Output: completed after 2 attempts; the first failed with test:division-by-zero
}
