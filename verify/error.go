package verify

import (
	"errors"

	"github.com/harnish/harnish/schema"
)

// ErrNoChecks is returned (wrapped) by a [Verifier] given nothing it can run:
// verification never passes vacuously.
var ErrNoChecks = errors.New("verify: no checks to run")

// ErrorKind classifies why a [Verifier] or [Reviewer] could not run; see
// [schema.ErrorKind].
type ErrorKind = schema.ErrorKind

// The kinds of [Error]. The zero ErrorKind is treated as [KindCrashed]. The
// verifiers and reviewers here mark their [KindProtocol] errors
// NonRetryable: a program that answers nonsense answers it again.
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

// Error is a verification or review that could not run: a fault of the
// harness, not a failing check; see [schema.Error].
type Error = schema.Error

// IsRetryable reports whether err, returned by a [Verifier] or [Reviewer],
// leaves room to try again. An [*Error] anywhere in err's chain decides
// ([schema.Error.Retryable]); any other error is not retryable. The default is the opposite of the
// executor's because a verifier's failure costs the agent no attempt, so
// nothing else would bound the retries.
func IsRetryable(err error) bool {
	return schema.Retryable(err, false)
}
