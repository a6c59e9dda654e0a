package executor

import (
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
)

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
	// Env holds variables the host adds to the debugger's environment for
	// this call, as [Request.Env] does for an attempt. Nil: none.
	Env map[string]string
}

// Diagnosis is a [Debugger]'s answer; see [schema.Diagnosis].
type Diagnosis = schema.Diagnosis
