package schema

// Violation is a guardrail decision made during an attempt, as a record: by
// the agent's hooks, by the executor (a command no hook saw), or by the
// loop's audit of the change. A hard one stops the run; a soft one is a
// warning the next attempt's prompt repeats.
type Violation struct {
	// Hard stops the run; otherwise the decision was a warning.
	Hard bool `json:"hard,omitempty"`
	// Rule is the guardrail's stable rule ID.
	Rule   string `json:"rule"`
	Reason string `json:"reason,omitempty"`
	// Action is what was judged: the command or the path; empty when the
	// decision was about the change as a whole.
	Action string `json:"action,omitempty"`
}
