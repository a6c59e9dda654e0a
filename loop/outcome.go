package loop

import (
	"errors"
	"fmt"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/verify"
)

// How an attempt's parts come to a failure, by the rules of harnish's
// loop. A host that takes the steps itself (a workflow engine) uses them
// so that its attempts fail exactly as the loop's do.

// ExecutionFailure is what an attempt's execution came to, from what the
// executor returned (res, err) and the cause with which the attempt's
// context ended (nil while it lasts; [ErrTaskTimeout] when the task's time
// ran out, a [*StuckError] when the stuck rules ended it). It returns the
// attempt's failure, or void, a fault of the harness for which the
// attempt does not count (the executor cannot run at all), and what the
// execution used. Neither set: the executor claimed done, and the checks
// come next.
func ExecutionFailure(attempt int, res *executor.Result, err, cause error) (f *policy.Failure, void string, usage executor.Usage) {
	ee, _ := errors.AsType[*executor.Error](err)
	stuck, _ := cause.(*StuckError)
	switch {
	case stuck != nil:
		if ee != nil {
			usage = ee.Usage
		} else if res != nil {
			usage = res.Usage
		}
		return &policy.Failure{Attempt: attempt, Kind: policy.FailStuck, Class: "stuck",
			Fingerprint: "stuck:" + stuck.Pattern, Reason: stuck.Error()}, "", usage
	case err != nil:
		kind := executor.KindCrashed
		if ee != nil {
			usage, kind = ee.Usage, ee.Kind
		}
		if !executor.IsRetryable(err) && cause == nil {
			// The error says another attempt would fail the same way (the
			// executor cannot run at all): the agent is not to blame.
			return nil, err.Error(), usage
		}
		if errors.Is(cause, ErrTaskTimeout) {
			kind = executor.KindTimeout
		}
		f = &policy.Failure{Attempt: attempt, Kind: policy.FailExecutor, Fingerprint: "executor:" + string(kind),
			Class: string(kind), Reason: err.Error()}
		if ee != nil {
			f.OutputTail = ee.Tail
		}
		return f, "", usage
	case res == nil || !res.Status.Valid():
		return &policy.Failure{Attempt: attempt, Kind: policy.FailExecutor, Fingerprint: "executor:protocol",
			Class: string(executor.KindProtocol), Reason: "the executor claimed no valid status"}, "", usage
	case res.Status == executor.StatusBlocked:
		return &policy.Failure{Attempt: attempt, Kind: policy.FailBlocked, Reason: res.Reason}, "", res.Usage
	}
	return nil, "", res.Usage
}

// ReportedViolations are the guardrail decisions the executor says were
// made during an attempt (by the agent's hooks, or by the executor
// itself): its error's, else its result's. The first hard one stops the
// run; the soft ones go into the next attempt's prompt.
func ReportedViolations(res *executor.Result, err error) []executor.Violation {
	if ee, ok := errors.AsType[*executor.Error](err); ok {
		return ee.Violations
	}
	if err == nil && res != nil {
		return res.Violations
	}
	return nil
}

// VerifyFailure is the failure of an attempt whose checks report rep:
// nil when they passed.
func VerifyFailure(attempt int, rep *verify.Report) *policy.Failure {
	if rep.Passed {
		return nil
	}
	fp := rep.Fingerprint
	f := &policy.Failure{Attempt: attempt, Kind: policy.FailVerify, Fingerprint: fp.String(), Class: string(fp.Class), Reason: fp.Summary}
	for _, c := range rep.Checks {
		if !c.Passed {
			f.OutputTail = c.OutputTail
			break
		}
	}
	return f
}

// ReviewFailure is the failure of an attempt whose change the reviewer
// answered with rev: nil without a critical finding. Minor are the
// findings below critical, one line each, for the task's handoff.
func ReviewFailure(attempt int, rev *verify.Review) (f *policy.Failure, minor []string) {
	if rev == nil {
		return nil, nil
	}
	for _, x := range rev.Findings {
		if x.Severity != verify.SeverityCritical {
			minor = append(minor, fmt.Sprintf("[%s] %s:%d %s", x.Severity, x.File, x.Line, x.Message))
		}
	}
	if crit := rev.Critical(); len(crit) > 0 {
		f = &policy.Failure{Attempt: attempt, Kind: policy.FailReview, Keys: verify.Keys(crit),
			Reason: fmt.Sprintf("%d critical review findings", len(crit)), Findings: crit[:min(len(crit), maxKeptFindings)]}
	}
	return f, minor
}
