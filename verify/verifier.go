package verify

import (
	"context"

	"github.com/harnish/harnish/task"
)

// Verifier runs acceptance checks and reports what they found.
//
// Verify must be safe for concurrent use by multiple goroutines: the loop runs
// one verification at a time per run, but a host may share a Verifier between
// runs. It must return promptly once ctx is done, with an error that wraps
// [context.Cause], and must neither modify req nor retain it.
//
// A nil error means the checks ran: [Report.Passed] says whether they passed,
// and a failing report carries a [Fingerprint]. A verifier never passes
// vacuously: a check that ran no tests where tests were expected fails, and a
// request with nothing to run is an error wrapping [ErrNoChecks]. A check that
// could not start or ran out of its time is a failed check, with the class
// [ClassInfra] or [ClassTimeout]. A non-nil error means no report could be
// made at all; it should be an [*Error], and the loop does not count it
// against the agent's attempts: it runs the verifier again, a few times,
// while the error is retryable ([IsRetryable]), and otherwise ends the run
// for a person to fix the harness.
type Verifier interface {
	Verify(ctx context.Context, req *Request) (*Report, error)
}

// Request asks a [Verifier] to run checks.
type Request struct {
	// Task is the task whose change is verified. It must not be nil.
	Task *task.Task
	// PhaseID is the ID of the phase that holds the task.
	PhaseID string
	// Checks are the checks to run, in order. Nil means the task's
	// acceptance checks. Checks of kind "manual" are for a person at the
	// milestone; a verifier skips them and reports nothing for them.
	Checks []task.Check
	// WorkDir is the absolute path of the working tree's root; each check's Dir
	// is relative to it. Empty means the process's current directory.
	WorkDir string
	// Attempt is the number of the attempt being verified, from 1. Zero means
	// a verification outside any attempt (e.g. an agent's stop hook).
	Attempt int
}
