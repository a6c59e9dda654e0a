package guardrail

import "context"

// Guardrail judges actions.
//
// Check must be safe for concurrent use by multiple goroutines: an agent may
// make tool calls in parallel, and the loop audits a diff while hooks answer.
// It must not modify a, and should return promptly once ctx is done.
//
// Check is for a guardrail's own logic; callers go through [Evaluate], which
// turns an error or a panic into a hard decision. A guardrail that cannot
// decide returns an error rather than [Allow].
type Guardrail interface {
	Check(ctx context.Context, a Action) (Decision, error)
}

// Func adapts a function to a [Guardrail].
type Func func(ctx context.Context, a Action) (Decision, error)

// Check calls f.
func (f Func) Check(ctx context.Context, a Action) (Decision, error) { return f(ctx, a) }
