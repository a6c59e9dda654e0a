//go:build !linux

package proc

import (
	"context"
	"errors"
	"fmt"
)

// KillStrays needs /proc; elsewhere it returns an error wrapping
// errors.ErrUnsupported.
func KillStrays(ctx context.Context, name, value string) ([]int, error) {
	return nil, fmt.Errorf("proc: finding stray processes: %w", errors.ErrUnsupported)
}
