package verify

import (
	"context"
	"fmt"
	"runtime/debug"
)

// Sequence is a [Verifier] that runs verifiers in order and stops at the
// first that fails: its report holds the checks of every verifier that ran,
// and the fingerprint of the one that failed. It passes when all pass; an
// empty Sequence is an error wrapping [ErrNoChecks]. A verifier that panics
// is reported as an [*Error] of [KindCrashed]. A Sequence is as safe for
// concurrent use as its verifiers.
type Sequence []Verifier

// Verify runs the verifiers in order.
func (s Sequence) Verify(ctx context.Context, req *Request) (*Report, error) {
	if len(s) == 0 {
		return nil, fmt.Errorf("%w: empty sequence", ErrNoChecks)
	}
	rep := &Report{Passed: true}
	for _, v := range s {
		r, err := safeVerify(ctx, v, req)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, &Error{Kind: KindProtocol, NonRetryable: true, Err: fmt.Errorf("verifier %T returned neither a report nor an error", v)}
		}
		rep.Checks = append(rep.Checks, r.Checks...)
		if !r.Passed {
			rep.Passed, rep.Fingerprint = false, r.Fingerprint
			return rep, nil
		}
	}
	return rep, nil
}

// safeVerify calls v, turning a panic into an error: one bad verifier does
// not take the host down.
func safeVerify(ctx context.Context, v Verifier, req *Request) (rep *Report, err error) {
	defer func() {
		if p := recover(); p != nil {
			rep, err = nil, &Error{Kind: KindCrashed, Tail: string(debug.Stack()), Err: fmt.Errorf("verifier %T panicked: %v", v, p)}
		}
	}()
	return v.Verify(ctx, req)
}
