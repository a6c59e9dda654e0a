package policy

import (
	"errors"
	"fmt"
)

// Outcome is how a run ended. Every way the loop ends is one of these.
type Outcome string

// The outcomes of a run.
const (
	// Completed: every task is verified done.
	Completed Outcome = "completed"
	// Escalated: a task ran out of attempts or time, had no acceptance
	// criteria, or plateaued under review; a person decides what next.
	Escalated Outcome = "escalated"
	// Halted: a failure repeated, and the debugger found no root cause or its
	// fix failed too (the two-strike rule).
	Halted Outcome = "halted"
	// Blocked: the executor said it cannot go on without a person.
	Blocked Outcome = "blocked"
	// BudgetExceeded: a run-wide cap (cycles, time, tokens, cost) ran out.
	BudgetExceeded Outcome = "budget-exceeded"
	// StoppedByGuardrail: a hard guardrail stopped the run.
	StoppedByGuardrail Outcome = "stopped-by-guardrail"
	// AwaitingApproval: the run reached a milestone gate that nobody has
	// approved yet; resume with approval to go on.
	AwaitingApproval Outcome = "awaiting-approval"
	// Cancelled: the caller cancelled the run; it resumes where it stood.
	Cancelled Outcome = "cancelled"
	// Errored: an internal error ended the run (outcome "error"): a
	// component or the harness failed, not the agent's work.
	Errored Outcome = "error"
)

// Outcomes lists every outcome, in the order above.
var Outcomes = []Outcome{Completed, Escalated, Halted, Blocked, BudgetExceeded,
	StoppedByGuardrail, AwaitingApproval, Cancelled, Errored}

// ExitCode is the CLI's exit code for the outcome: 0 completed; 1 error;
// 2 needs a person (escalated, halted, blocked, awaiting approval); 3 stopped
// by a hard guardrail; 4 budget exceeded. A cancelled run exits 130, as a
// shell does after Ctrl-C.
func (o Outcome) ExitCode() int {
	switch o {
	case Completed:
		return 0
	case Escalated, Halted, Blocked, AwaitingApproval:
		return 2
	case StoppedByGuardrail:
		return 3
	case BudgetExceeded:
		return 4
	case Cancelled:
		return 130
	}
	return 1
}

// NeedsPerson reports whether a person must act before the run can go on.
func (o Outcome) NeedsPerson() bool { return o.ExitCode() == 2 }

// Err returns the sentinel error for the outcome, nil for Completed.
func (o Outcome) Err() error {
	switch o {
	case Completed:
		return nil
	case Escalated:
		return ErrEscalated
	case Halted:
		return ErrHalted
	case Blocked:
		return ErrBlocked
	case BudgetExceeded:
		return ErrBudgetExceeded
	case StoppedByGuardrail:
		return ErrStoppedByGuardrail
	case AwaitingApproval:
		return ErrAwaitingApproval
	case Cancelled:
		return ErrCancelled
	}
	return ErrErrored
}

// Sentinels for the outcomes that are not Completed, for errors.Is on the
// error a run returns.
var (
	ErrEscalated          = errors.New("loop: escalated")
	ErrHalted             = errors.New("loop: halted")
	ErrBlocked            = errors.New("loop: blocked")
	ErrBudgetExceeded     = errors.New("loop: budget exceeded")
	ErrStoppedByGuardrail = errors.New("loop: stopped by guardrail")
	ErrAwaitingApproval   = errors.New("loop: awaiting approval")
	ErrCancelled          = errors.New("loop: cancelled")
	ErrErrored            = errors.New("loop: error")
)

// OutcomeError is the error of a run that did not complete: the outcome, the
// task it stopped at (if any) and why. errors.Is matches the outcome's sentinel.
type OutcomeError struct {
	Outcome Outcome
	Phase   string
	Task    string
	Reason  string
	Err     error // the underlying cause, if any
}

func (e *OutcomeError) Error() string {
	msg := "loop: " + string(e.Outcome)
	if e.Task != "" {
		msg += fmt.Sprintf(" at task %s", e.Task)
	} else if e.Phase != "" {
		msg += fmt.Sprintf(" at phase %s", e.Phase)
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is matches the sentinel of the outcome.
func (e *OutcomeError) Is(target error) bool { return target == e.Outcome.Err() }

// Unwrap returns the underlying cause.
func (e *OutcomeError) Unwrap() error { return e.Err }
