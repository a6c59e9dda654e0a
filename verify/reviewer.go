package verify

import (
	"context"

	"github.com/harnish/harnish/task"
)

// Reviewer reviews the change of a task whose checks passed.
//
// Review must be safe for concurrent use by multiple goroutines, return
// promptly once ctx is done, and neither modify req nor retain it.
//
// A nil error means the review ran; no findings means nothing to object to.
// A [SeverityCritical] finding sends the task back to the executor (it counts
// as an attempt); lesser findings are recorded. A non-nil error means the
// review could not run (e.g. the reviewer program's answer does not parse);
// it should be an [*Error] with the reviewer's output tail.
type Reviewer interface {
	Review(ctx context.Context, req *ReviewRequest) (*Review, error)
}

// ReviewRequest asks a [Reviewer] to review a task's change.
type ReviewRequest struct {
	// Task is the task whose change is reviewed. It must not be nil.
	Task *task.Task
	// PhaseID is the ID of the phase that holds the task.
	PhaseID string
	// WorkDir is the absolute path of the working tree's root, with the change
	// applied. Empty means the process's current directory.
	WorkDir string
	// Attempt is the number of the attempt whose change is reviewed, from 1.
	Attempt int
	// Diff is the change as a unified diff (as git diff prints it) against the
	// tree before the task started.
	Diff string
	// Files lists the paths the change touches, relative to the working tree's
	// root, slash-separated.
	Files []string
}

// Review is a [Reviewer]'s answer. Its JSON form is the one a reviewer program
// prints.
type Review struct {
	Findings []Finding `json:"findings"`
}

// Critical returns the findings of [SeverityCritical], in order; nil when there
// are none or r is nil.
func (r *Review) Critical() []Finding {
	if r == nil {
		return nil
	}
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity == SeverityCritical {
			out = append(out, f)
		}
	}
	return out
}
