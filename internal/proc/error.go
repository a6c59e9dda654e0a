package proc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind says at which point a run failed.
type Kind string

// The kinds of [Error].
const (
	// KindConfined: the directory is outside the repository root (or does
	// not exist); nothing ran.
	KindConfined Kind = "confined"
	// KindStart: the program could not be started (missing, not
	// executable, empty argv).
	KindStart Kind = "start"
	// KindExit: the program ran and exited with a status other than 0, or
	// was killed by a signal it did not get from us.
	KindExit Kind = "exit"
	// KindTimeout: the per-command timeout ran out; the tree was ended.
	KindTimeout Kind = "timeout"
	// KindCanceled: the caller's context was done first; the tree was ended.
	// The error wraps context.Cause of the caller's context.
	KindCanceled Kind = "canceled"
)

// Sentinel errors an [*Error] of the matching kind satisfies with errors.Is
// (a canceled run matches the context's cause instead).
var (
	ErrStart   = errors.New("proc: could not start")
	ErrExit    = errors.New("proc: non-zero exit")
	ErrTimeout = errors.New("proc: timed out")
)

// Error is a run that did not exit 0, with what a person needs to see why.
type Error struct {
	Kind Kind
	// Stage names what the command was for (e.g. "configure", "test").
	Stage string
	// Argv is the command with secrets masked ([MaskArgv]).
	Argv []string
	// Dir is the directory it ran (or would have run) in.
	Dir string
	// ExitCode is the exit status; -1 when it did not exit on its own.
	ExitCode int
	// Stdout and Stderr are the tails of the two streams.
	Stdout, Stderr string
	// Err is the cause.
	Err error
}

// Error returns one line: "proc: STAGE: ARGV in DIR: CAUSE".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("proc: ")
	if e.Stage != "" {
		b.WriteString(e.Stage + ": ")
	}
	b.WriteString(quoteArgv(e.Argv))
	if e.Dir != "" {
		b.WriteString(" in " + e.Dir)
	}
	switch {
	case e.Kind == KindExit && e.ExitCode >= 0:
		b.WriteString(": exit status " + strconv.Itoa(e.ExitCode))
	case e.Err != nil:
		b.WriteString(": " + strings.TrimPrefix(e.Err.Error(), "proc: "))
	default:
		b.WriteString(": " + string(e.Kind))
	}
	return b.String()
}

// Diagnostics returns the error's line followed by the tails of stderr and
// stdout, each under a heading, for a report a person reads.
func (e *Error) Diagnostics() string {
	var b strings.Builder
	b.WriteString(e.Error())
	for _, s := range []struct{ name, text string }{{"stderr", e.Stderr}, {"stdout", e.Stdout}} {
		if s.text == "" {
			continue
		}
		fmt.Fprintf(&b, "\n--- %s (tail) ---\n%s", s.name, strings.TrimRight(s.text, "\n"))
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the sentinel of e's kind.
func (e *Error) Is(target error) bool {
	switch e.Kind {
	case KindConfined:
		return target == ErrOutsideRoot
	case KindStart:
		return target == ErrStart
	case KindExit:
		return target == ErrExit
	case KindTimeout:
		return target == ErrTimeout
	}
	return false
}

func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`") {
			a = strconv.Quote(a)
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
