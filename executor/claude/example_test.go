package claude_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/claude"
	"github.com/harnish/harnish/task"
)

// An executor whose program is missing cannot run any attempt: the loop
// stops rather than retrying.
func ExampleExecutor() {
	ex := &claude.Executor{
		Claude:   "/nonexistent/claude",
		Harnish:  "harnish",
		PlanFile: "harnish.yaml",
		Env:      map[string]string{"ANTHROPIC_API_KEY": "sk-ant-..."},
	}
	_, err := ex.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, Prompt: "..."})
	fmt.Println(errors.Is(err, executor.ErrUnavailable), executor.IsRetryable(err))
	// Output: true false
}
