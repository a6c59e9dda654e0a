package guardrail

import (
	"context"
	"fmt"
	"strings"
)

// RuleError is the rule of the hard decision [Evaluate] makes when a guardrail
// fails: it returned an error, panicked, or answered with an invalid level.
const RuleError = "guardrail.error"

// Evaluate asks g about a and never fails: a guardrail that returns an error,
// panics, or returns a level that is not [Allow], [Soft] or [Hard] yields a
// [Hard] decision with the rule [RuleError] and the failure as its reason.
// Guardrails fail closed. A nil g fails the same way.
//
// Every caller of user guardrails (the loop, the hooks, the CLI) calls them
// through Evaluate, so one bad rule cannot take the host down or wave an
// action through.
func Evaluate(ctx context.Context, g Guardrail, a Action) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Decision{Level: Hard, Rule: RuleError, Reason: fmt.Sprintf("guardrail: panic: %v", r)}
		}
	}()
	d, err := g.Check(ctx, a)
	switch {
	case err != nil:
		return Decision{Level: Hard, Rule: RuleError, Reason: prefixed(err.Error())}
	case !d.Level.Valid():
		return Decision{Level: Hard, Rule: RuleError,
			Reason: fmt.Sprintf("guardrail: rule %q returned invalid %v", d.Rule, d.Level)}
	}
	return d
}

// prefixed adds the package prefix to a message that lacks it.
func prefixed(msg string) string {
	const p = "guardrail: "
	if strings.HasPrefix(msg, p) {
		return msg
	}
	return p + msg
}
