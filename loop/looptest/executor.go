package looptest

import (
	"context"
	"errors"
	"sync"

	"github.com/harnish/harnish/executor"
)

// Act scripts one attempt of the [Executor]. The zero Act claims done.
type Act struct {
	// Blocked claims blocked with this reason.
	Blocked string
	// Crash fails the attempt with an *executor.Error of kind crashed and
	// this message.
	Crash string
	// Err fails the attempt with this error as it is, e.g. an
	// *executor.Error that says it cannot be retried.
	Err error
	// Panic panics inside Execute.
	Panic bool
	// Hang blocks until the attempt's context ends, as an agent that never
	// finishes.
	Hang bool
	// Do runs before the claim, e.g. to edit files in the request's WorkDir.
	// Its error fails the attempt as a crash.
	Do func(req *executor.Request) error
	// Usage is what the attempt reports it spent.
	Usage executor.Usage
	// Generalizable marks the claimed success as a reusable pattern.
	Generalizable bool
	// Violations are guardrail decisions the attempt reports, as an agent's
	// hooks would have made them; with Crash, Hang or Blocked they travel on
	// the error or the blocked result.
	Violations []executor.Violation
}

// Executor is a scripted [executor.Executor]: per task ID, one [Act] per
// attempt; attempts past the script claim done. It records every request.
// It is safe for concurrent use.
type Executor struct {
	Script map[string][]Act

	mu       sync.Mutex
	requests []*executor.Request
}

// Execute plays the scripted act of req's task and attempt.
func (e *Executor) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	e.mu.Lock()
	e.requests = append(e.requests, req)
	var act Act
	if s := e.Script[req.Task.ID]; req.Attempt >= 1 && req.Attempt <= len(s) {
		act = s[req.Attempt-1]
	}
	e.mu.Unlock()
	if act.Do != nil {
		if err := act.Do(req); err != nil {
			return nil, &executor.Error{Kind: executor.KindCrashed, Err: err}
		}
	}
	switch {
	case act.Panic:
		panic("looptest: scripted executor panic")
	case act.Hang:
		<-ctx.Done()
		return nil, &executor.Error{Kind: executor.KindTimeout, Usage: act.Usage, Violations: act.Violations, Err: context.Cause(ctx)}
	case act.Err != nil:
		return nil, act.Err
	case act.Crash != "":
		return nil, &executor.Error{Kind: executor.KindCrashed, Usage: act.Usage, Violations: act.Violations, Err: errors.New(act.Crash)}
	case act.Blocked != "":
		return &executor.Result{Status: executor.StatusBlocked, Reason: act.Blocked, Usage: act.Usage, Violations: act.Violations}, nil
	}
	return &executor.Result{Status: executor.StatusDone, Summary: "scripted", Usage: act.Usage,
		Violations: act.Violations, Generalizable: act.Generalizable}, nil
}

// Requests returns the requests Execute received, in order.
func (e *Executor) Requests() []*executor.Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*executor.Request(nil), e.requests...)
}

// Debugger is a scripted [executor.Debugger]: Found says, per task ID,
// whether it finds a root cause. It records the requests.
type Debugger struct {
	Found map[string]bool
	// Panic panics inside Debug.
	Panic bool

	mu       sync.Mutex
	requests []*executor.DebugRequest
}

// Debug answers as scripted.
func (d *Debugger) Debug(ctx context.Context, req *executor.DebugRequest) (*executor.Diagnosis, error) {
	d.mu.Lock()
	d.requests = append(d.requests, req)
	d.mu.Unlock()
	if d.Panic {
		panic("looptest: scripted debugger panic")
	}
	if d.Found[req.Task.ID] {
		return &executor.Diagnosis{Found: true, RootCause: "scripted root cause", Fix: "scripted fix"}, nil
	}
	return &executor.Diagnosis{FiveWhys: []string{"scripted: no root cause"}}, nil
}

// Requests returns the requests Debug received, in order.
func (d *Debugger) Requests() []*executor.DebugRequest {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*executor.DebugRequest(nil), d.requests...)
}

// Advisor is a scripted [executor.Advisor]: Script holds, per task ID, its
// answers in order; past them, or for an answer with no verdict, it
// answers nothing (an error, which the loop takes as no answer). It
// records the requests.
type Advisor struct {
	Script map[string][]executor.Advice

	mu       sync.Mutex
	requests []*executor.AdviceRequest
	asked    map[string]int
}

// Advise answers as scripted.
func (a *Advisor) Advise(ctx context.Context, req *executor.AdviceRequest) (*executor.Advice, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, req)
	if a.asked == nil {
		a.asked = map[string]int{}
	}
	n := a.asked[req.Task.ID]
	a.asked[req.Task.ID]++
	if s := a.Script[req.Task.ID]; n < len(s) && s[n].Verdict != "" {
		adv := s[n]
		return &adv, nil
	}
	return nil, errors.New("looptest: the script has no advice here")
}

// Requests returns the requests Advise received, in order.
func (a *Advisor) Requests() []*executor.AdviceRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*executor.AdviceRequest(nil), a.requests...)
}
