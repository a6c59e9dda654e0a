package guardrail

// Violation is a [Hard] decision as an error, for code that runs actions
// itself (a tool wrapper in an embedding host) and must refuse one. It is never
// retryable: the same action, however spelled, must not be tried again. Match
// it with errors.As.
type Violation struct {
	Action   Action
	Decision Decision
}

// Error returns "guardrail: RULE: REASON".
func (v *Violation) Error() string {
	msg := "guardrail: " + v.Decision.Rule
	if v.Decision.Reason != "" {
		msg += ": " + v.Decision.Reason
	}
	return msg
}

// Err returns a [*Violation] of a by d when d is [Hard], and nil otherwise.
func (d Decision) Err(a Action) error {
	if d.Level != Hard {
		return nil
	}
	return &Violation{Action: a, Decision: d}
}
