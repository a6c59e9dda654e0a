package loop

import (
	"time"

	"github.com/harnish/harnish/loop/policy"
)

// EventType names an event of the run's stream. The names are stable: the
// CLI prints them in --json mode and scripts match on them.
type EventType string

// The event types. Those that report a transition of the run state take
// its kind's name, from the one place it is defined.
const (
	RunStarted                 = EventType(policy.TransRunStarted)
	TaskStarted                = EventType(policy.TransTaskStarted)
	AttemptStarted             = EventType(policy.TransAttemptStarted)
	AttemptFinished            = EventType(policy.TransAttemptFinished)
	VerifyPassed     EventType = "verify.passed"
	VerifyFailed     EventType = "verify.failed"
	ReviewFindings   EventType = "review.findings"
	DebuggerInvoked  EventType = "debugger.invoked"
	FiveWhysRecorded EventType = "fivewhys.recorded"
	// AdvisorConsulted: the advisor answered, or gave no answer, at a
	// point; Message says which and what.
	AdvisorConsulted            = EventType(policy.TransAdvised)
	TaskDone          EventType = "task.done"
	TaskEscalated     EventType = "task.escalated"
	TaskHalted        EventType = "task.halted"
	TaskBlocked       EventType = "task.blocked"
	MilestoneReached  EventType = "milestone.reached"
	MilestoneApproved EventType = "milestone.approved"
	GuardrailViolated EventType = "guardrail.violation"
	// CauseShared: tasks side by side failed the same way; the phase stops.
	CauseShared = EventType(policy.TransCauseShared)
	RunFinished = EventType(policy.TransRunFinished)
)

// Event is one entry of the run's stream. Fields that do not apply to a type
// are zero and left out of its JSON.
type Event struct {
	Time    time.Time `json:"time"`
	Type    EventType `json:"type"`
	Run     string    `json:"run"`
	Phase   string    `json:"phase,omitempty"`
	Task    string    `json:"task,omitempty"`
	Attempt int       `json:"attempt,omitempty"`
	// Fingerprint identifies a failure mode, on verify.failed.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Failure and Class are the kind and class of a failed attempt's
	// failure, on attempt.finished ("voided" for an attempt a fault of the
	// harness cut short); empty for one that passed.
	Failure string `json:"failure,omitempty"`
	Class   string `json:"class,omitempty"`
	// Level and Rule describe a guardrail violation: "soft" or "hard", and the
	// rule's stable ID.
	Level string `json:"level,omitempty"`
	Rule  string `json:"rule,omitempty"`
	// Tokens and CostUSD are what an attempt spent, on attempt.finished.
	Tokens  int64   `json:"tokens,omitempty"`
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Outcome is set on run.finished.
	Outcome policy.Outcome `json:"outcome,omitempty"`
	// Message says what happened in words.
	Message string `json:"message,omitempty"`
}

// Observer receives the run's events in order. Observe is called from the
// loop's goroutine and must not block for long; it need not be safe for
// concurrent use. Observers cannot fail the run.
type Observer interface {
	Observe(Event)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }
