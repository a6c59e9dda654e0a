package executor

import "github.com/harnish/harnish/task"

// DebugRequest asks a [Debugger] why a task keeps failing the same way.
type DebugRequest struct {
	// Task is the failing task. It must not be nil.
	Task *task.Task
	// PhaseID is the ID of the phase that holds the task.
	PhaseID string
	// WorkDir is the absolute path of the working tree's root, left as the last
	// attempt left it. Empty means the process's current directory.
	WorkDir string
	// Failures are the task's failed attempts, oldest first, with their
	// output tails where the loop saw them; the last two share a fingerprint.
	Failures []Failure
	// Diff is how the tree the last attempt left differs from the one the
	// attempt before it left (a unified diff, as git diff prints it): what
	// changed between two attempts that failed the same way. Empty when the
	// working tree is not a git tree or the two trees are the same.
	Diff string
}

// Diagnosis is a [Debugger]'s answer. Its JSON form is the one a debugger
// program prints.
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
	// Usage is what the investigation spent, when the debugger reports it.
	Usage Usage `json:"usage,omitzero"`
}
