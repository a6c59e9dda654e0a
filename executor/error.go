package executor

import (
	"context"
	"errors"
	"fmt"
)

// ErrorKind classifies why an attempt (or an investigation) failed to run.
type ErrorKind string

// The kinds of [Error]. The zero ErrorKind is treated as [KindCrashed].
const (
	// KindCrashed: the agent exited abnormally (a non-zero exit other than the
	// blocked code, a signal, a panic, a plugin process that died). Retryable.
	KindCrashed ErrorKind = "crashed"
	// KindTimeout: the attempt ran out of time. Retryable: the loop decides
	// whether the task has time left for another attempt.
	KindTimeout ErrorKind = "timeout"
	// KindProtocol: the agent's answer does not parse, or claims nothing
	// valid. Retryable: agents are not deterministic.
	KindProtocol ErrorKind = "protocol"
	// KindUnavailable: the executor could not start at all (its program is
	// missing, its configuration is wrong, a plugin speaks an incompatible
	// protocol). Not retryable: every attempt would fail the same way.
	KindUnavailable ErrorKind = "unavailable"
)

// Sentinel errors, one per [ErrorKind]; an [*Error] matches the one of its
// kind with errors.Is.
var (
	ErrCrashed     = errors.New("executor: crashed")
	ErrTimeout     = errors.New("executor: timeout")
	ErrProtocol    = errors.New("executor: protocol error")
	ErrUnavailable = errors.New("executor: unavailable")
)

// Error is an attempt (or an investigation) that failed to run. It is the
// error an [Executor] or [Debugger] returns; match it with errors.As, or its
// kind with errors.Is and the sentinel errors.
type Error struct {
	// Kind classifies the failure; the zero value means [KindCrashed].
	Kind ErrorKind
	// Tail is the end of the agent's output (stderr, or its event stream), for
	// the failure record and the next prompt. It may be empty.
	Tail string
	// Usage is what the attempt spent before it failed, when known, so a
	// failed attempt still counts against the run's budget.
	Usage Usage
	// Violations are the guardrail decisions made before the attempt failed,
	// as in [Result.Violations]: a hard one stops the run even so.
	Violations []Violation
	// Err is the underlying cause, if any.
	Err error
}

// Error returns "executor: KIND" followed by the cause, if any.
func (e *Error) Error() string {
	msg := "executor: " + string(e.kind())
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel error of e's kind.
func (e *Error) Is(target error) bool {
	switch e.kind() {
	case KindCrashed:
		return target == ErrCrashed
	case KindTimeout:
		return target == ErrTimeout
	case KindProtocol:
		return target == ErrProtocol
	case KindUnavailable:
		return target == ErrUnavailable
	}
	return false
}

// Retryable reports whether another attempt may succeed: false only for
// [KindUnavailable].
func (e *Error) Retryable() bool {
	return e.kind() != KindUnavailable
}

func (e *Error) kind() ErrorKind {
	if e.Kind == "" {
		return KindCrashed
	}
	return e.Kind
}

// IsRetryable reports whether err, returned by an [Executor] or [Debugger],
// leaves room for another attempt. An [*Error] anywhere in err's chain decides
// by its kind; a cancellation (context.Canceled) is not retryable; any other
// non-nil error is treated as a crash and is retryable. A nil error is not.
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Retryable()
	}
	return !errors.Is(err, context.Canceled)
}

// Cancelled is the error an Executor returns for a run its caller
// cancelled: the context's cause, which also matches [context.Canceled],
// so that nothing retries it. Not an [*Error] of kind timeout: a
// cancellation is not a timeout. name prefixes the message.
func Cancelled(name string, ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) {
		return fmt.Errorf("%s: %w", name, cause)
	}
	return fmt.Errorf("%s: %w: %w", name, context.Canceled, cause)
}
