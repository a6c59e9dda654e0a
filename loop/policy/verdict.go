package policy

// Verdict is a gate's answer.
type Verdict string

// The verdicts.
const (
	// Approve: go on to the next phase.
	Approve Verdict = "approve"
	// Reject: stop the run here; it ends escalated.
	Reject Verdict = "reject"
	// Defer: nobody can answer now; the run ends awaiting approval and a
	// later resume with approval goes on.
	Defer Verdict = "defer"
)

// GateDecision is the gate's answer. The zero value defers.
type GateDecision struct {
	Verdict Verdict
	By      string // who decided, for the audit log
	Note    string
}
