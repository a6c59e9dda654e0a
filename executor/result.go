package executor

import "github.com/harnish/harnish/schema"

// Result is what an attempt claims. Only the task's checks, run by the loop,
// decide that the task is done.
type Result struct {
	// Status is the claim. A result whose status is not [Status.Valid] is
	// treated as an [*Error] of kind [KindProtocol]: a failed attempt.
	Status Status
	// Reason says why the agent is blocked: what it needs from a person.
	// Required with [StatusBlocked], ignored otherwise.
	Reason string
	// Summary says in a few lines what the agent did. The loop keeps it for
	// the handoff, the audit log and the commit message.
	Summary string
	// FilesChanged lists the paths the agent says it changed, relative to the
	// working tree's root, slash-separated. It is informative: the loop audits
	// the real diff, not this list.
	FilesChanged []string
	// Transcript is the path of the agent's transcript (its event stream or
	// log), if the executor kept one. Empty means none.
	Transcript string
	// Usage is what the attempt spent, when the agent reports it. The zero
	// value means "not reported", and counts as nothing spent.
	Usage Usage
	// Violations are the guardrail decisions made while the attempt ran: by
	// the agent's own hooks (a tool call blocked or warned about), or by the
	// executor (a command the hooks never saw ran unguarded). A hard one stops
	// the run whatever the claim, as the loop's own audit would; soft ones go
	// into the next attempt's prompt.
	Violations []Violation
	// Generalizable marks a success as a reusable pattern. When the attempt is
	// the task's first and its checks pass, the loop records a pattern asset.
	Generalizable bool
	// Decisions, OpenQuestions and Blocker are what the agent leaves the
	// tasks after this one (implement_plan_micro's handoff): the choices it
	// made and why, what it left open, and what stands in the way of what
	// comes next. The loop keeps them in the task's handoff. Optional.
	Decisions     []string
	OpenQuestions []string
	Blocker       string
}

// Status is the claim an attempt ends with.
type Status string

// The claims an attempt may end with.
const (
	// StatusDone asks the loop to verify the change.
	StatusDone Status = "done"
	// StatusBlocked says the agent cannot go on without a person. It counts
	// as an attempt; the loop stops the task as blocked.
	StatusBlocked Status = "blocked"
)

// Valid reports whether s is one of the defined statuses. The zero Status is
// not valid: an executor must say what it claims.
func (s Status) Valid() bool {
	return s == StatusDone || s == StatusBlocked
}

// Usage is what an agent spent; see [schema.Usage].
type Usage = schema.Usage

// Violation is a guardrail decision made during an attempt; see
// [schema.Violation].
type Violation = schema.Violation
