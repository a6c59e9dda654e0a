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

// MultiChecker is a [Guardrail] that can give every decision it makes about
// an action, not only the most severe: the loop tells the agent each
// warning, not the first with a count of the rest.
type MultiChecker interface {
	Guardrail
	// CheckAll returns every decision that is not [Allow], in the
	// guardrail's own order; nil when it allows the action.
	CheckAll(ctx context.Context, a Action) ([]Decision, error)
}

// EvaluateAll is [Evaluate] for every decision: a [MultiChecker] gives all
// of its decisions, any other guardrail its one. It fails closed as Evaluate
// does; the result holds no [Allow] decision, and is nil when a is allowed.
func EvaluateAll(ctx context.Context, g Guardrail, a Action) (ds []Decision) {
	m, ok := g.(MultiChecker)
	if !ok {
		if d := Evaluate(ctx, g, a); d.Level != Allow {
			return []Decision{d}
		}
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			ds = []Decision{{Level: Hard, Rule: RuleError, Reason: fmt.Sprintf("guardrail: panic: %v", r)}}
		}
	}()
	all, err := m.CheckAll(ctx, a)
	if err != nil {
		return []Decision{{Level: Hard, Rule: RuleError, Reason: prefixed(err.Error())}}
	}
	for _, d := range all {
		switch {
		case !d.Level.Valid():
			return []Decision{{Level: Hard, Rule: RuleError,
				Reason: fmt.Sprintf("guardrail: rule %q returned invalid %v", d.Rule, d.Level)}}
		case d.Level != Allow:
			ds = append(ds, d)
		}
	}
	return ds
}
