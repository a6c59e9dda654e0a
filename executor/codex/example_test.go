package codex_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/task"
)

// An Executor is configured once and handed to loop.Config as its
// Executor; each Execute is one attempt. Here codex is missing, which no
// retry can fix.
func Example() {
	ex := &codex.Executor{
		Codex:    "codex-not-installed-here",
		Model:    "gpt-5-codex",
		Sandbox:  codex.SandboxWorkspaceWrite, // the default
		PlanFile: "harnish.yaml",              // handed to the hooks as --plan
		Provider: &codex.Provider{Name: "gateway", BaseURL: "https://llm.example.com/v1", EnvKey: "GATEWAY_KEY"},
	}
	_, err := ex.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, Prompt: "Add divide()."})
	fmt.Println(errors.Is(err, executor.ErrUnavailable), executor.IsRetryable(err))
	// Output: true false
}
