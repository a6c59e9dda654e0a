package agent

import (
	"context"
	"errors"
	"fmt"
)

// Cancelled returns the error of a run its caller cancelled: the context's
// cause, which also matches [context.Canceled] so that nothing retries it.
// Not an [*executor.Error] of kind timeout: a cancellation is not a timeout.
func Cancelled(name string, ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) {
		return fmt.Errorf("%s: %w", name, cause)
	}
	return fmt.Errorf("%s: %w: %w", name, context.Canceled, cause)
}
