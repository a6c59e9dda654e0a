package looptest

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task/model"
)

// Try scripts one attempt for a [Host]. The zero value passes.
type Try struct {
	// Fingerprint fails the checks with this fingerprint (class test).
	Fingerprint string
	// Critical has the review find critical findings with these keys.
	Critical []string
	// Blocked has the executor claim it is blocked, for this reason.
	Blocked string
	// Stop has a hard guardrail stop the run, by this rule.
	Stop string
	// Unchanged has the failed attempt leave the tree as it found it.
	Unchanged bool
	// What the attempt spent.
	Elapsed time.Duration
	Tokens  int64
	CostUSD float64
}

// Host is a scripted [policy.Host]: it drives the decision core alone, with
// no loop, components or store, and writes one line of trace a step, so a
// test of a policy reads as the run it describes:
//
//	attempt T1#1 fail x
//	debug T1 found=true
//	gate p1 approve
//	finish completed
//
// Its clock starts at Start and moves one second a call. A Host drives
// one run at a time; when the plan runs tasks side by side, Drive takes
// their steps concurrently, and the trace lists them in the order they were
// answered.
type Host struct {
	// Policy is the policy under test; nil means the zero Policy.
	Policy *policy.Policy
	// Tries scripts each task's attempts, in order; past the script an
	// attempt passes.
	Tries map[string][]Try
	// Found says, per task, whether the debugger finds a root cause.
	Found map[string]bool
	// Advice scripts the advisor's answers, per task, in order; an answer
	// with no verdict, or a consultation past the script, is no answer.
	// The policy consults an advisor only where its settings (the plan's,
	// or Policy.Advisor) say.
	Advice map[string][]schema.Advice
	// Verdicts are the gates' answers, in order; past them a gate defers.
	Verdicts []policy.Verdict
	// Start is the time of the first step.
	Start time.Time
	// MaxSteps bounds the steps taken, so a policy that never ends fails;
	// zero means 1000.
	MaxSteps int

	mu      sync.Mutex // Take runs concurrently for tasks side by side
	st      *policy.RunState
	now     time.Time
	gate    int
	advised map[string]int
	steps   int
	trace   []string
}

// Drive runs plan from st, or from a new run when st is nil, to its end, and
// returns the trace (with a last line "finish OUTCOME: REASON", or "finish
// completed") and the
// state it left.
func (h *Host) Drive(ctx context.Context, plan *model.Plan, st *policy.RunState) ([]string, *policy.RunState, error) {
	if h.Policy == nil {
		h.Policy = &policy.Policy{}
	}
	h.now, h.trace, h.steps, h.gate, h.advised = h.Start, nil, 0, 0, map[string]int{}
	if st == nil {
		var err error
		if st, err = policy.Replay(policy.Transition{Kind: policy.TransRunStarted, Time: h.Start, Run: "r", Plan: plan.Name}); err != nil {
			return nil, nil, err
		}
	}
	h.st = st
	end, err := h.Policy.Drive(ctx, plan, st, h)
	if err != nil {
		return h.trace, st, err
	}
	line := "finish " + string(end.Outcome)
	if end.Reason != "" {
		line += ": " + end.Reason
	}
	return append(h.trace, line), st, nil
}

// Now moves the clock one second on.
func (h *Host) Now() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tick()
}

func (h *Host) tick() time.Time {
	h.now = h.now.Add(time.Second)
	return h.now
}

// Commit applies ts to the state being driven.
func (h *Host) Commit(_ context.Context, ts []policy.Transition) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range ts {
		if err := h.st.Apply(t); err != nil {
			return err
		}
	}
	return nil
}

// Take answers a step as scripted.
func (h *Host) Take(_ context.Context, step policy.Step) ([]policy.Transition, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.steps++; h.steps > cmp.Or(h.MaxSteps, 1000) {
		return nil, fmt.Errorf("looptest: the run did not end in %d steps", h.steps-1)
	}
	p := h.Policy
	switch step.Kind {
	case policy.StepGate:
		v := policy.Defer
		if h.gate < len(h.Verdicts) {
			v = h.Verdicts[h.gate]
		}
		h.gate++
		h.trace = append(h.trace, fmt.Sprintf("gate %s %s", step.Phase, v))
		return p.ObserveGate(h.st, step.Phase, policy.GateDecision{Verdict: v}, h.now)
	case policy.StepDebug:
		found := h.Found[step.Task]
		h.trace = append(h.trace, fmt.Sprintf("debug %s found=%v", step.Task, found))
		return p.ObserveDiagnosis(h.st, step.Task, policy.Diagnosis{Found: found}, h.now)
	case policy.StepAdvise:
		var adv *schema.Advice
		if as, n := h.Advice[step.Task], h.advised[step.Task]; n < len(as) && as[n].Verdict != "" {
			adv = &as[n]
		}
		h.advised[step.Task]++
		line := fmt.Sprintf("advise %s %s none", step.Task, step.Point)
		if adv != nil {
			line = fmt.Sprintf("advise %s %s %s", step.Task, step.Point, adv.Verdict)
		}
		h.trace = append(h.trace, line)
		return p.ObserveAdvice(h.st, step, adv, h.now)
	case policy.StepAttempt:
		r, line := h.report(step)
		ts, err := p.ObserveAttempt(h.st, r, h.now)
		if err == nil && ts[0].Failure != nil && ts[0].Failure.Kind == policy.FailStuck {
			line += " → " + ts[0].Failure.Fingerprint
		}
		h.trace = append(h.trace, line)
		return ts, err
	}
	return nil, fmt.Errorf("looptest: step kind %q", step.Kind)
}

// Report is what the script makes of an attempt, for a test that steps the
// policy by hand.
func (h *Host) Report(step policy.Step) policy.AttemptReport {
	r, _ := h.report(step)
	return r
}

// report is what the scripted components make of an attempt, and its line.
func (h *Host) report(step policy.Step) (policy.AttemptReport, string) {
	var tr Try
	if tries := h.Tries[step.Task]; step.Attempt <= len(tries) {
		tr = tries[step.Attempt-1]
	}
	r := policy.AttemptReport{Task: step.Task, Attempt: step.Attempt, Elapsed: tr.Elapsed, Tokens: tr.Tokens, CostUSD: tr.CostUSD}
	line := fmt.Sprintf("attempt %s#%d", step.Task, step.Attempt)
	switch {
	case tr.Stop != "":
		r.Stop = &policy.GuardrailStop{Rule: tr.Stop, Reason: "no"}
		line += " stop " + tr.Stop
	case tr.Fingerprint != "":
		r.Failure = &policy.Failure{Attempt: step.Attempt, Kind: policy.FailVerify, Fingerprint: tr.Fingerprint, Class: "test"}
		line += " fail " + tr.Fingerprint
	case tr.Critical != nil:
		r.Failure = &policy.Failure{Attempt: step.Attempt, Kind: policy.FailReview, Keys: tr.Critical}
		line += " critical " + strings.Join(tr.Critical, ",")
	case tr.Blocked != "":
		r.Failure = &policy.Failure{Attempt: step.Attempt, Kind: policy.FailBlocked, Reason: tr.Blocked}
		line += " blocked"
	default:
		line += " pass"
	}
	if tr.Unchanged && r.Failure != nil {
		r.Failure.Unchanged = true
		line += " unchanged"
	}
	return r, line
}
