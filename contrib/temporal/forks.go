package temporal

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/verify"
)

// Tasks side by side with commits. As in the CLI's loop, a task of a
// phase that runs several at once works in a fork of the tree of its own
// (Ref.Fork), where its checks and review run too; a change that passed
// them joins the run's branch through the merge queue, one task at a
// time, by the Integrate activity (loop.IntegrateFork): the fork takes in
// what the branch gained since it forked, the checks run again when that
// changed it, and the change becomes the task's commit, with the CLI's
// message and trailers, found by them when a worker died before it was
// recorded.

// IntegrateInput brings a task's fork onto the run's branch.
type IntegrateInput struct {
	Ref
	Deadline time.Time `json:"deadline"`
	// Summary is the executor's, for the commit's body.
	Summary string `json:"summary,omitempty"`
}

// IntegrateOutput is the task's commit, or why the attempt failed (a
// conflict, the checks on the integrated tree), or Void: the queue could
// not run (a fault of the harness).
type IntegrateOutput struct {
	Commit  string          `json:"commit,omitempty"`
	Failure *policy.Failure `json:"failure,omitempty"`
	Void    string          `json:"void,omitempty"`
}

// Integrate runs a task's fork through the merge queue (the workflow takes
// one task at a time through it) and, once its change is on the branch,
// removes the fork. It is idempotent: tried again after a worker died, it
// finds the commit by its trailers rather than make it twice.
func (a *Activities) Integrate(ctx context.Context, in IntegrateInput) (*IntegrateOutput, error) {
	c, _, t, err := a.components(ctx, in.Ref)
	if err != nil {
		return nil, err
	}
	fk, ok := c.Workspace.(loop.Forker)
	if !ok || in.Fork == "" {
		return nil, nonRetryable(fmt.Errorf("temporal: task %s has no fork to integrate", in.Task))
	}
	defer a.heartbeat(ctx, in.Ref)()
	ctx = context.WithoutCancel(ctx) // the queue's git work is not cut half done
	f, err := fk.Fork(ctx, in.Fork)
	if err != nil {
		return nil, fmt.Errorf("temporal: the working copy of task %s: %w", in.Task, err)
	}
	req := loop.TaskCommit(in.Run, in.Phase, t, in.Attempt, in.Summary)
	hash, fail, err := loop.IntegrateFork(ctx, fk, f, req, in.Attempt, func(ctx context.Context) (*verify.Report, error) {
		ctx, cancel := context.WithDeadlineCause(ctx, in.Deadline, loop.ErrTaskTimeout)
		defer cancel()
		return retry(ctx, func() (*verify.Report, error) {
			return c.Verifier.Verify(ctx, &verify.Request{Task: t, PhaseID: in.Phase, WorkDir: f.Dir, Attempt: in.Attempt})
		})
	})
	switch {
	case err != nil:
		return &IntegrateOutput{Void: bound(fmt.Sprintf("integrate task %s: %v", in.Task, err), maxText)}, nil
	case fail != nil:
		fail.Reason, fail.OutputTail = bound(fail.Reason, maxText), tail(fail.OutputTail, maxTail)
		return &IntegrateOutput{Failure: fail}, nil
	}
	if err := fk.Discard(ctx, f); err != nil {
		a.log().Warn("temporal: remove a working copy", "task", in.Task, "dir", f.Dir, "err", err)
	}
	return &IntegrateOutput{Commit: hash}, nil
}

// forkOf names the fork task id works in, or "" when it works in the tree:
// with commits, a task of a phase that runs several at once.
func (r *runner) forkOf(phase, id string) string {
	if !r.in.SideBySide || !r.in.CommitTasks {
		return ""
	}
	for i := range r.plan.Phases {
		if ph := &r.plan.Phases[i]; ph.ID == phase && r.plan.Parallelism(ph) > 1 {
			return r.st.Run + "-" + id
		}
	}
	return ""
}

// integrate takes the attempt's fork through the merge queue, one task at
// a time, and fills rep; it returns a void reason when the queue could
// not run.
func (r *runner) integrate(ctx workflow.Context, ref Ref, deadline time.Time, summary string, rep *policy.AttemptReport) (string, error) {
	if err := workflow.Await(ctx, func() bool { return !r.merging }); err != nil {
		return "", err
	}
	r.merging = true
	defer func() { r.merging = false }()
	var out IntegrateOutput
	left := max(deadline.Sub(workflow.Now(ctx)), time.Minute)
	err := workflow.ExecuteActivity(r.options(ctx, left, 3), ActivityIntegrate, IntegrateInput{Ref: ref, Deadline: deadline, Summary: summary}).Get(ctx, &out)
	if err != nil {
		return "", err
	}
	rep.Failure = out.Failure
	return out.Void, nil
}
