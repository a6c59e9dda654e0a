package verify

import (
	"errors"
	"strconv"
)

// ErrNoChecks is returned (wrapped) by a [Verifier] given nothing it can run:
// verification never passes vacuously.
var ErrNoChecks = errors.New("verify: no checks to run")

// ErrorKind classifies why a [Verifier] or [Reviewer] could not run.
type ErrorKind string

// The kinds of [Error]. The zero ErrorKind is treated as [KindCrashed].
const (
	// KindCrashed: the verifier or reviewer itself died (a panic, a plugin
	// process that exited). Retryable.
	KindCrashed ErrorKind = "crashed"
	// KindTimeout: the verifier or reviewer did not answer in time. (A check
	// that runs out of its own time is a failed check, not this.) Retryable.
	KindTimeout ErrorKind = "timeout"
	// KindProtocol: its answer does not parse. Not retryable.
	KindProtocol ErrorKind = "protocol"
	// KindUnavailable: it could not start (a missing program, a bad
	// configuration, an incompatible plugin). Not retryable.
	KindUnavailable ErrorKind = "unavailable"
)

// Sentinel errors, one per [ErrorKind]; an [*Error] matches the one of its
// kind with errors.Is.
var (
	ErrCrashed     = errors.New("verify: crashed")
	ErrTimeout     = errors.New("verify: timeout")
	ErrProtocol    = errors.New("verify: protocol error")
	ErrUnavailable = errors.New("verify: unavailable")
)

// Error is a verification or review that could not run: a fault of the
// harness, not a failing check. Match it with errors.As, or its kind with
// errors.Is and the sentinel errors.
type Error struct {
	// Kind classifies the failure; the zero value means [KindCrashed].
	Kind ErrorKind
	// Check names the check that was running, if any.
	Check string
	// Tail is the end of the component's output, for the error report. It may
	// be empty.
	Tail string
	// Err is the underlying cause, if any.
	Err error
}

// Error returns "verify: KIND", the check's name if any, and the cause if any.
func (e *Error) Error() string {
	msg := "verify: " + string(e.kind())
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

// Retryable reports whether running the verification again may succeed:
// true for [KindCrashed] and [KindTimeout].
func (e *Error) Retryable() bool {
	k := e.kind()
	return k == KindCrashed || k == KindTimeout
}

func (e *Error) kind() ErrorKind {
	if e.Kind == "" {
		return KindCrashed
	}
	return e.Kind
}

// IsRetryable reports whether err, returned by a [Verifier] or [Reviewer],
// leaves room to try again. An [*Error] anywhere in err's chain decides by its
// kind; any other error is not retryable. The default is the opposite of the
// executor's because a verifier's failure costs the agent no attempt, so
// nothing else would bound the retries.
func IsRetryable(err error) bool {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Retryable()
	}
	return false
}
