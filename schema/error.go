package schema

import (
	"errors"
	"strconv"
)

// ErrorKind classifies why a component (an executor, a verifier, a
// reviewer, a debugger, a plugin) could not do its work.
type ErrorKind string

// The kinds of [Error]. The zero ErrorKind is treated as [KindCrashed].
const (
	// KindCrashed: the component died (a non-zero exit, a signal, a panic,
	// a plugin process that went away).
	KindCrashed ErrorKind = "crashed"
	// KindTimeout: it did not finish in time.
	KindTimeout ErrorKind = "timeout"
	// KindProtocol: its answer does not parse, or claims nothing valid.
	KindProtocol ErrorKind = "protocol"
	// KindUnavailable: it could not start at all (a missing program, a bad
	// configuration, an incompatible plugin). Never retryable: every try
	// would fail the same way.
	KindUnavailable ErrorKind = "unavailable"
)

// Sentinel errors, one per [ErrorKind]; an [*Error] matches the one of its
// kind with errors.Is.
var (
	ErrCrashed     = errors.New("crashed")
	ErrTimeout     = errors.New("timeout")
	ErrProtocol    = errors.New("protocol error")
	ErrUnavailable = errors.New("unavailable")
)

// Error is a component that could not do its work: a fault of the agent or
// of the harness, not a failing check. Every component returns it, so one
// rule decides what is tried again: the error says whether it may be
// ([Error.Retryable]), as Temporal's ApplicationError does, and the loop
// follows it. Match it with errors.As, or its kind with errors.Is and the
// sentinel errors.
type Error struct {
	// Component names who failed, for the message ("plugin \"msvc\"");
	// empty when the caller's context says it.
	Component string
	// Kind classifies the failure; the zero value means [KindCrashed].
	Kind ErrorKind
	// NonRetryable says another try would fail the same way. An error of
	// [KindUnavailable] is never retryable whatever it says.
	NonRetryable bool
	// Check names the check that was running, if any.
	Check string
	// Tail is the end of the component's output (stderr, or an agent's
	// event stream), for the failure record and the next prompt. It may be
	// empty.
	Tail string
	// Usage is what an attempt spent before it failed, when known, so a
	// failed attempt still counts against the run's budget.
	Usage Usage
	// Violations are the guardrail decisions made before an attempt failed:
	// a hard one stops the run even so.
	Violations []Violation
	// Err is the underlying cause, if any.
	Err error
}

// Error returns the component, if named, the kind, the check, if any, and
// the cause, if any: `plugin "msvc": crashed: check "build": EOF`.
func (e *Error) Error() string {
	msg := string(e.kind())
	if e.Component != "" {
		msg = e.Component + ": " + msg
	}
	if e.Check != "" {
		msg += ": check " + strconv.Quote(e.Check)
	}
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

// Retryable reports whether another try may succeed: unless the error says
// it is not, or its kind is [KindUnavailable].
func (e *Error) Retryable() bool {
	return !e.NonRetryable && e.kind() != KindUnavailable
}

func (e *Error) kind() ErrorKind {
	if e.Kind == "" {
		return KindCrashed
	}
	return e.Kind
}

// Retryable reports whether err leaves room to try again: an [*Error]
// anywhere in err's chain decides; any other non-nil error is retryable
// when otherwise is true. A nil error is not retryable.
func Retryable(err error, otherwise bool) bool {
	if err == nil {
		return false
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Retryable()
	}
	return otherwise
}
