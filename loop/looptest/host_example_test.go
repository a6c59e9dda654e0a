package looptest_test

import (
	"context"
	"fmt"

	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// The two-strike rule, without a loop: the same failure twice brings the
// debugger; its root cause buys one more attempt, which passes.
func ExampleHost() {
	plan := &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{{ID: "p1", Tasks: []task.Task{
		{ID: "T1", Title: "divide", Acceptance: []task.Check{{Run: []string{"go", "test", "./..."}}}},
	}}}}
	h := &looptest.Host{
		Tries: map[string][]looptest.Try{"T1": {{Fingerprint: "x"}, {Fingerprint: "x"}}},
		Found: map[string]bool{"T1": true},
	}
	trace, st, err := h.Drive(context.Background(), plan, nil)
	for _, line := range trace {
		fmt.Println(line)
	}
	fmt.Println(st.Tasks["T1"].Status == policy.StatusDone, err)
	// Output:
	// attempt T1#1 fail x
	// attempt T1#2 fail x
	// debug T1 found=true
	// attempt T1#3 pass
	// finish completed
	// true <nil>
}
