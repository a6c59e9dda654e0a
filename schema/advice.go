package schema

import "fmt"

// Verdict is an advisor's kind of answer.
type Verdict string

// The advisor's verdicts.
const (
	// AdvisePlan is advice for the next attempt: how to go about the task.
	// The loop puts it first in the next prompt.
	AdvisePlan Verdict = "PLAN"
	// AdviseCorrection is a local fix for a re-run: what to change in what
	// the last attempt did. The loop gives it to the next attempt.
	AdviseCorrection Verdict = "CORRECTION"
	// AdviseStop stops the loop with the advisor's reason, as an escalation.
	AdviseStop Verdict = "STOP"
)

// AdvicePoint names the moment an advisor is consulted.
type AdvicePoint string

// The points at which the loop consults an advisor.
const (
	// AtHighRisk: before the first attempt of a task the plan marks
	// high-risk.
	AtHighRisk AdvicePoint = "high-risk"
	// AtRepeat: after the second failure with the same cause, alongside or
	// instead of the debugger.
	AtRepeat AdvicePoint = "repeat"
	// AtPlateau: just before a review plateau would escalate the task.
	AtPlateau AdvicePoint = "plateau"
)

// Valid reports whether p is one of the points.
func (p AdvicePoint) Valid() bool {
	return p == AtHighRisk || p == AtRepeat || p == AtPlateau
}

// Advice is an advisor's answer. Its JSON form is the one an advisor
// program prints: {"verdict": "PLAN", "advice": "..."}.
type Advice struct {
	Verdict Verdict `json:"verdict"`
	// Text is the advice, the correction or the reason to stop.
	Text string `json:"advice"`
	// Usage is what the advisor spent, when it reports it; it counts against
	// the task's and the run's budgets.
	Usage Usage `json:"usage,omitzero"`
}

// MaxAdvice bounds an advice's text, in bytes: it goes into a prompt and
// into the run's state.
const MaxAdvice = 16 << 10

// Check reports whether a is an answer the loop can act on.
func (a *Advice) Check() error {
	switch a.Verdict {
	case AdvisePlan, AdviseCorrection, AdviseStop:
	default:
		return fmt.Errorf("advice verdict %q is not PLAN, CORRECTION or STOP", a.Verdict)
	}
	switch {
	case a.Text == "":
		return fmt.Errorf("advice %s has no text", a.Verdict)
	case len(a.Text) > MaxAdvice:
		return fmt.Errorf("advice text is %d bytes, more than %d", len(a.Text), MaxAdvice)
	}
	return nil
}
