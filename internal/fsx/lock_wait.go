package fsx

import (
	"context"
	"errors"
	"time"
)

// LockContext takes the lock on path like TryLock, waiting while another
// process holds it until ctx is done; then it returns an error wrapping
// context.Cause(ctx). It polls, with a backoff from 100µs to 10ms, so that
// the wait can be cancelled on every platform.
func LockContext(ctx context.Context, path string) (*Lock, error) {
	wait := 100 * time.Microsecond
	for {
		l, err := TryLock(path)
		if !errors.Is(err, ErrLocked) {
			return l, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, context.Cause(ctx)
		case <-t.C:
		}
		wait = min(2*wait, 10*time.Millisecond)
	}
}
