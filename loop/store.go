package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnish/harnish/loop/policy"
)

// Store keeps the run state durable, so a run survives any crash and resumes
// where it stood. [OpenDir] is the on-disk store under .harnish/; looptest has
// an in-memory one.
//
// A Store is used by one loop at a time; its methods need not be safe for
// concurrent use.
type Store interface {
	// Load returns a copy of the recorded state, or an error wrapping
	// ErrNoState when no run was recorded.
	Load(ctx context.Context) (*policy.RunState, error)
	// Commit applies the transitions in order and returns once they are
	// durable. A transition the state rejects is an error and nothing of
	// the batch is recorded. After any other error the store's state is
	// unknown: it refuses further commits until reopened.
	Commit(ctx context.Context, ts ...policy.Transition) error
	// Close releases the store. It does not commit anything.
	Close() error
}

// Errors of stores.
var (
	// ErrNoState: nothing has been recorded yet.
	ErrNoState = errors.New("loop: no run state recorded")
	// ErrLocked: another loop holds the state directory.
	ErrLocked = errors.New("loop: state directory in use by another loop")
	// ErrCorruptState: a state file does not decode, fails its checksum, or
	// its journal has a gap. It is never overwritten.
	ErrCorruptState = errors.New("loop: corrupt state")
	// ErrNewerState: the state was written by a newer harnish.
	ErrNewerState = errors.New("loop: state schema is newer than this harnish")
	// ErrStoreFailed: an earlier commit failed; reopen the store.
	ErrStoreFailed = errors.New("loop: store failed earlier")
	// ErrStoreClosed: the store was closed.
	ErrStoreClosed = errors.New("loop: store closed")
)

// StateError reports a state file that cannot be used: which file, where in
// it, and what is wrong. Err is ErrCorruptState or ErrNewerState.
type StateError struct {
	File string
	Line int // 1-based line of a journal; 0 for a snapshot
	// Problem says what is wrong, e.g. "checksum mismatch".
	Problem string
	// Prev names the previous generation kept beside the file, when one
	// exists, for a person to restore from.
	Prev string
	Err  error
}

func (e *StateError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	msg := fmt.Sprintf("loop: state file %s: %s; it was left as it is", loc, e.Problem)
	if e.Prev != "" {
		msg += fmt.Sprintf(" (the previous generation is %s)", e.Prev)
	}
	return msg
}

func (e *StateError) Unwrap() error { return e.Err }
