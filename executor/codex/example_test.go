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

// Where Codex's sandbox cannot start (bubblewrap may not create user
// namespaces), Execute fails with an unavailable executor, not retried,
// whose cause says why; a host that tells its user what to fix looks for it.
func ExampleSandboxError() {
	report := func(err error) {
		if se, ok := errors.AsType[*codex.SandboxError](err); ok {
			fmt.Printf("no %s sandbox here (%s); retry: %v\n", se.Mode, se.Message, executor.IsRetryable(err))
		}
	}
	// What Execute returned where a command could not start in the sandbox:
	report(&executor.Error{Kind: executor.KindUnavailable, Err: &codex.SandboxError{Mode: codex.SandboxWorkspaceWrite,
		Command: "go test ./...", Message: "bwrap: No permissions to create a new namespace"}})
	// Output: no workspace-write sandbox here (bwrap: No permissions to create a new namespace); retry: false
}
