package executor_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/task"
)

// An Executor is a single method; embedding code can carry out a task itself.
type scripted struct{}

func (scripted) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	if req.Attempt == 1 {
		return nil, &executor.Error{Kind: executor.KindProtocol, Tail: "{not json", Err: io.ErrUnexpectedEOF}
	}
	return &executor.Result{
		Status:  executor.StatusDone, // a request to verify, not proof
		Summary: "added the zero check",
		Usage:   executor.Usage{InputTokens: 1200, OutputTokens: 300, CostUSD: 0.02},
	}, nil
}

func Example() {
	var ex executor.Executor = scripted{}
	t := &task.Task{ID: "T1", Title: "divide() with zero check"}

	var spent executor.Usage
	for attempt := 1; attempt <= 2; attempt++ {
		res, err := ex.Execute(context.Background(), &executor.Request{Task: t, PhaseID: "api", Attempt: attempt})
		if err != nil {
			var e *executor.Error
			if errors.As(err, &e) {
				spent = spent.Add(e.Usage)
			}
			fmt.Printf("attempt %d failed: %v (protocol: %t, retry: %t)\n",
				attempt, err, errors.Is(err, executor.ErrProtocol), executor.IsRetryable(err))
			continue
		}
		spent = spent.Add(res.Usage)
		fmt.Printf("attempt %d claims %s: %s\n", attempt, res.Status, res.Summary)
	}
	fmt.Printf("spent %d tokens, $%.2f\n", spent.Tokens(), spent.CostUSD)
	// Output:
	// attempt 1 failed: protocol: unexpected EOF (protocol: true, retry: true)
	// attempt 2 claims done: added the zero check
	// spent 1500 tokens, $0.02
}

func ExampleUsage_Add() {
	a := executor.Usage{InputTokens: 1000, OutputTokens: 250, CostUSD: 0.5}
	b := executor.Usage{InputTokens: 400, OutputTokens: 50, CostUSD: 0.25}
	sum := a.Add(b)
	fmt.Println(sum.InputTokens, sum.OutputTokens, sum.Tokens(), sum.CostUSD)
	// Output: 1400 300 1700 0.75
}
