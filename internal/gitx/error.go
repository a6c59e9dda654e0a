package gitx

import (
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/internal/proc"
)

// MaxStderr bounds the end of git's stderr an [Error] keeps.
const MaxStderr = 4 << 10

// ErrLocked is matched (errors.Is) by an [*Error] of a git that found a lock
// file already there: another git is at work, or one crashed and left it
// ([ClearStaleLocks]).
var ErrLocked = errors.New("gitx: repository locked")

// ErrDirty is wrapped by [Switch] when uncommitted changes would be carried
// to the other branch.
var ErrDirty = errors.New("gitx: uncommitted changes")

// Error is a git command that did not succeed, with what git said.
type Error struct {
	// Op is git's subcommand ("commit", "add").
	Op string
	// Stderr is the end of git's stderr, at most [MaxStderr] bytes.
	Stderr string
	// Lock is the lock file git could not create because it was already
	// there, when that is why it failed; the error then matches [ErrLocked].
	Lock string
	// Err is the run's failure, a [*proc.Error].
	Err error
}

// Error returns the run's failure followed by git's stderr on the same line.
func (e *Error) Error() string {
	msg := "gitx: " + strings.TrimPrefix(e.Err.Error(), "proc: ")
	if s := strings.Join(strings.Fields(e.Stderr), " "); s != "" {
		msg += ": " + s
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is [ErrLocked] and git failed on a lock.
func (e *Error) Is(target error) bool { return target == ErrLocked && e.Lock != "" }

// lockMessage is how git says a lock file is already there (for the index, a
// ref, packed-refs or config alike). Only git's English is recognised.
var lockMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`Unable to create '([^'\n]+\.lock)': File exists`)
}) // compiled at first use, not at every start of a program that links gitx

// newError wraps a failed run of git, whose first argument after its -c
// options is op.
func newError(op string, err error) error {
	e := &Error{Op: op, Err: err}
	var pe *proc.Error
	if errors.As(err, &pe) {
		e.Stderr = tail(pe.Stderr, MaxStderr)
		if m := lockMessage().FindStringSubmatch(pe.Stderr); m != nil {
			e.Lock = m[1]
		}
	}
	return e
}

// tail returns the last max bytes of s at most, from a line's start when one
// is in them.
func tail(s string, max int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) <= max {
		return s
	}
	s = s[len(s)-max:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return strings.ToValidUTF8(s, "")
}

// exitCode returns git's exit status from err, or -1 when it did not exit on
// its own.
func exitCode(err error) int {
	var pe *proc.Error
	if errors.As(err, &pe) && pe.Kind == proc.KindExit {
		return pe.ExitCode
	}
	return -1
}
