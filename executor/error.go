package executor

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnish/harnish/schema"
)

// ErrorKind classifies why an attempt (or an investigation) failed to run;
// see [schema.ErrorKind].
type ErrorKind = schema.ErrorKind

// The kinds of [Error]. The zero ErrorKind is treated as [KindCrashed]. An
// executor's [KindProtocol] error is retryable unless it says otherwise:
// agents are not deterministic.
const (
	KindCrashed     = schema.KindCrashed
	KindTimeout     = schema.KindTimeout
	KindProtocol    = schema.KindProtocol
	KindUnavailable = schema.KindUnavailable
)

// Sentinel errors, one per [ErrorKind]; an [*Error] matches the one of its
// kind with errors.Is.
var (
	ErrCrashed     = schema.ErrCrashed
	ErrTimeout     = schema.ErrTimeout
	ErrProtocol    = schema.ErrProtocol
	ErrUnavailable = schema.ErrUnavailable
)

// Error is an attempt (or an investigation) that failed to run: the error an
// [Executor] or [Debugger] returns; see [schema.Error].
type Error = schema.Error

// IsRetryable reports whether err, returned by an [Executor] or [Debugger],
// leaves room for another attempt. An [*Error] anywhere in err's chain decides
// by its kind; a cancellation (context.Canceled) is not retryable; any other
// non-nil error is treated as a crash and is retryable. A nil error is not.
func IsRetryable(err error) bool {
	return schema.Retryable(err, !errors.Is(err, context.Canceled))
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
