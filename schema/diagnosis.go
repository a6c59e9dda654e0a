package schema

// Diagnosis is a debugger's answer to a failure that repeated. Its JSON form
// is the one a debugger program prints. The loop keeps it in the run's
// state, so the one attempt a root cause buys is told the fix even after a
// crash.
type Diagnosis struct {
	// Found reports whether a root cause was found.
	Found bool `json:"found"`
	// RootCause says what is wrong. Set when Found.
	RootCause string `json:"root_cause,omitempty"`
	// Fix is the smallest change that addresses the root cause, as an
	// instruction for the next attempt. Set when Found.
	Fix string `json:"fix,omitempty"`
	// FiveWhys is the chain of "why?" the debugger followed, one answer each,
	// recorded when no root cause is found. It may be empty.
	FiveWhys []string `json:"five_whys,omitempty"`
	// Usage is what the investigation spent, when the debugger reports it;
	// it counts against the task's and the run's budgets.
	Usage Usage `json:"usage,omitzero"`
}
