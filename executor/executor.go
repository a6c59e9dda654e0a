package executor

import "context"

// Executor carries out one attempt at a task: it runs a coding agent (or a
// program, or code) in the request's working directory and reports what the
// agent claims.
//
// The loop makes at most one call at a time per run, and never for two tasks
// at once in one working tree. Implementations must nevertheless be safe for
// concurrent use by multiple goroutines, because a host may share one value
// between runs (several loops in a process, or a Temporal worker running
// activities side by side), each with its own Request and working directory:
// keep per-attempt state in the call, not in the Executor.
//
// Execute must return promptly once ctx is done, with an error that wraps
// [context.Cause]. It must not modify req or retain it after returning.
//
// A nil error means the attempt ran and the agent made a claim, read from
// [Result.Status]: [StatusDone] is a request to verify, never proof;
// [StatusBlocked] means the agent needs a person. A non-nil error means the
// attempt itself failed to run: it counts as a failed attempt, the result is
// ignored, and the error should be an [*Error] whose [Error.Retryable] tells
// the loop whether another attempt may help. A plain error is treated as an
// [*Error] of kind [KindCrashed]; a panic is recovered by the loop and treated
// the same way.
type Executor interface {
	Execute(ctx context.Context, req *Request) (*Result, error)
}

// Func adapts a function to an [Executor]: Go code that carries a task out.
type Func func(ctx context.Context, req *Request) (*Result, error)

// Execute calls f.
func (f Func) Execute(ctx context.Context, req *Request) (*Result, error) { return f(ctx, req) }

// Debugger investigates a failure that repeated: the loop calls it when two
// attempts in a row fail with the same fingerprint. It looks for the root
// cause and the smallest fix, and says plainly when it finds none.
//
// Debug must be safe for concurrent use by multiple goroutines, return
// promptly once ctx is done, and neither modify req nor retain it.
//
// A nil error with [Diagnosis.Found] reports a root cause: the loop makes
// exactly one more attempt with the fix as input. Found false means no root
// cause: the loop records the five-whys and halts the task. An error means the
// investigation could not run; the loop treats it like Found false and records
// the error with the five-whys.
type Debugger interface {
	Debug(ctx context.Context, req *DebugRequest) (*Diagnosis, error)
}

// DebuggerFunc adapts a function to a [Debugger].
type DebuggerFunc func(ctx context.Context, req *DebugRequest) (*Diagnosis, error)

// Debug calls f.
func (f DebuggerFunc) Debug(ctx context.Context, req *DebugRequest) (*Diagnosis, error) {
	return f(ctx, req)
}
