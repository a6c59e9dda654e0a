package executor

import (
	"context"
	"fmt"

	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
)

// Advisor is consulted when a task is risky or struggles: before the first
// attempt of a high-risk task, after the second failure with the same
// cause, and just before a review plateau would escalate. It answers PLAN
// (advice put first in the next prompt), CORRECTION (a local fix for a
// re-run) or STOP (the loop stops with its reason).
//
// Advise must be safe for concurrent use by multiple goroutines, return
// promptly once ctx is done, and neither modify req nor retain it. An error
// means no answer: the loop goes on as if it had not asked, and records it.
type Advisor interface {
	Advise(ctx context.Context, req *AdviceRequest) (*Advice, error)
}

// AdvisorFunc adapts a function to an [Advisor].
type AdvisorFunc func(ctx context.Context, req *AdviceRequest) (*Advice, error)

// Advise calls f.
func (f AdvisorFunc) Advise(ctx context.Context, req *AdviceRequest) (*Advice, error) {
	return f(ctx, req)
}

// Advice is an advisor's answer; see [schema.Advice].
type Advice = schema.Advice

// AdvicePoint names where the advisor is consulted; see [schema.AdvicePoint].
type AdvicePoint = schema.AdvicePoint

// AdviceRequest asks an [Advisor] about a task at a point.
type AdviceRequest struct {
	// Task is the task. It must not be nil.
	Task *task.Task
	// PhaseID is the ID of the phase that holds the task.
	PhaseID string
	// Point is where the loop stands: [schema.AtHighRisk], [schema.AtRepeat]
	// or [schema.AtPlateau].
	Point AdvicePoint
	// WorkDir is the absolute path of the working tree's root, as the last
	// attempt left it.
	WorkDir string
	// Failures are the task's failed attempts, oldest first; none before
	// the first attempt.
	Failures []Failure
}

// CommandAdvisor is the advisor of kind "command": it runs a program in the
// working tree with the task, the point and the failed attempts as JSON on
// stdin, and reads its answer from stdout: {"verdict": "PLAN" |
// "CORRECTION" | "STOP", "advice": "..."}. An answer that does not parse
// is a protocol error with the program's output tail.
type CommandAdvisor struct {
	Argv []string
	Env  map[string]string
}

// adviceInput is what a command advisor reads on stdin.
type adviceInput struct {
	Task     any         `json:"task"`
	Phase    string      `json:"phase"`
	Point    AdvicePoint `json:"point"`
	Failures []Failure   `json:"failures"`
}

// Advise runs the program and parses its answer.
func (a *CommandAdvisor) Advise(ctx context.Context, req *AdviceRequest) (*Advice, error) {
	var adv Advice
	in := adviceInput{Task: req.Task, Phase: req.PhaseID, Point: req.Point, Failures: req.Failures}
	tail, err := runJSON(ctx, "advisor", a.Argv, sortedEnv(a.Env), req.WorkDir, in, &adv)
	if err != nil {
		return nil, err
	}
	if err := adv.Check(); err != nil {
		return nil, &Error{Kind: KindProtocol, Tail: tail, Err: fmt.Errorf("advisor answer: %w", err)}
	}
	return &adv, nil
}
