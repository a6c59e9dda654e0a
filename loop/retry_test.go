package loop_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/verify"
)

// TestLoopHonoursRetryable: whether a component that could not do its work
// is tried again is the error's to say. A verifier or reviewer that crashed
// or timed out is run again within the attempt (it costs the agent nothing);
// one whose error says another try would fail the same way ends the run at
// once, as does one that keeps failing; an executor's error is a failed
// attempt unless it says it cannot be retried.
func TestLoopHonoursRetryable(t *testing.T) {
	crashed := &verify.Error{Kind: verify.KindCrashed}
	nonsense := &verify.Error{Kind: verify.KindProtocol, NonRetryable: true}
	tests := []struct {
		name string
		// errs are the verifier's (or reviewer's) errors, call by call; past
		// them it passes.
		errs     []error
		review   bool
		exec     error // the first attempt's executor error, if any
		calls    int
		outcome  policy.Outcome
		attempts int
	}{
		{"verifier crashes once", []error{crashed}, false, nil, 2, policy.Completed, 1},
		{"verifier crashes twice", []error{crashed, crashed}, false, nil, 3, policy.Completed, 1},
		{"verifier keeps crashing", []error{crashed, crashed, crashed}, false, nil, 3, policy.Errored, 1},
		{"verifier answers nonsense", []error{nonsense}, false, nil, 1, policy.Errored, 1},
		{"a plain verifier error is not retried", []error{errors.New("boom")}, false, nil, 1, policy.Errored, 1},
		{"reviewer times out once", []error{&verify.Error{Kind: verify.KindTimeout}}, true, nil, 2, policy.Completed, 1},
		{"reviewer answers nonsense", []error{nonsense}, true, nil, 1, policy.Errored, 1},
		{"executor protocol error is an attempt", nil, false, &executor.Error{Kind: executor.KindProtocol}, 1, policy.Completed, 2},
		{"executor says not retryable", nil, false, &executor.Error{Kind: executor.KindCrashed, NonRetryable: true}, 0, policy.Errored, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			next := func() error {
				n := int(calls.Add(1))
				if n <= len(tt.errs) {
					return tt.errs[n-1]
				}
				return nil
			}
			cfg := loop.Config{Plan: onePhase(check("T1")), Verifier: &looptest.Verifier{}}
			if tt.review {
				cfg.Reviewer = reviewerFunc(func(context.Context, *verify.ReviewRequest) (*verify.Review, error) { return &verify.Review{}, next() })
			} else {
				cfg.Verifier = verifyFunc(func(context.Context, *verify.Request) (*verify.Report, error) {
					if err := next(); err != nil {
						return nil, err
					}
					return &verify.Report{Passed: true}, nil
				})
			}
			acts := []looptest.Act{{}}
			if tt.exec != nil {
				acts = []looptest.Act{{Err: tt.exec}, {}}
			}
			cfg.Executor = &looptest.Executor{Script: map[string][]looptest.Act{"T1": acts}}
			res, _, _ := looptest.Run(t, cfg)
			if res.Outcome != tt.outcome || int(calls.Load()) != tt.calls || res.State.Tasks["T1"].Attempts != tt.attempts {
				t.Errorf("outcome %s after %d calls and %d attempts, want %s after %d and %d",
					res.Outcome, calls.Load(), res.State.Tasks["T1"].Attempts, tt.outcome, tt.calls, tt.attempts)
			}
		})
	}
}
