package looptest_test

import (
	"context"
	"fmt"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/task"
)

// A policy test: a task that fails the same way twice gets the debugger
// before any third attempt, and with no root cause the task halts.
func Example() {
	plan := &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{{ID: "p1", Title: "P1", Tasks: []task.Task{
		{ID: "T1", Title: "divide", Acceptance: []task.Check{{Run: []string{"go", "test", "./..."}}}},
	}}}}
	// In a test, looptest.Run(t, cfg) fills in these defaults and fails t
	// on a bad config.
	rec := &looptest.Recorder{}
	l, err := loop.New(loop.Config{
		Plan:     plan,
		Executor: &looptest.Executor{}, // claims done every time
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"divzero", "divzero"}}},
		Debugger: &looptest.Debugger{}, // finds no root cause
		Store:    looptest.NewStore(),
		Observer: rec,
		Now:      (&looptest.Clock{}).Now,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := l.Run(context.Background())
	for _, line := range rec.Lines() {
		fmt.Println(line)
	}
	fmt.Println(res.Outcome, err)
	// Output:
	// run.started
	// task.started T1
	// attempt.started T1#1
	// verify.failed T1#1 test:divzero
	// attempt.finished T1#1 test:divzero
	// attempt.started T1#2
	// verify.failed T1#2 test:divzero
	// attempt.finished T1#2 test:divzero
	// debugger.invoked T1
	// fivewhys.recorded T1
	// task.halted T1
	// run.finished halted
	// halted loop: halted at task T1: task T1: the failure repeated and the debugger found no root cause
}
