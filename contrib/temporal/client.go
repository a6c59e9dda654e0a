package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/harnish/harnish/loop/policy"
)

// Start starts a run of in.Plan as the workflow id on the task queue, after
// checking the plan as the CLI does. The run's activities go to
// in.ActivityQueue, or queue when it is empty.
func Start(ctx context.Context, c client.Client, id, queue string, in RunInput) (client.WorkflowRun, error) {
	switch {
	case in.Plan == nil:
		return nil, errors.New("temporal: no plan")
	case in.Dir == "":
		return nil, errors.New("temporal: no working tree (RunInput.Dir)")
	}
	if err := in.Plan.Validate().Err(); err != nil {
		return nil, fmt.Errorf("temporal: the plan does not validate: %w", err)
	}
	// A server too busy to answer in time is asked again: starting the
	// same workflow ID twice is safe, since the second start of a running
	// workflow returns the run the first one made.
	for wait := 200 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, WorkflowName, in)
		if err == nil || !busy(err) || ctx.Err() != nil {
			return run, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
	}
}

// busy reports whether err says the server did not answer in time or
// could not take the call now, which a later call may get past.
func busy(err error) bool {
	_, deadline := errors.AsType[*serviceerror.DeadlineExceeded](err)
	_, unavailable := errors.AsType[*serviceerror.Unavailable](err)
	_, exhausted := errors.AsType[*serviceerror.ResourceExhausted](err)
	return deadline || unavailable || exhausted || errors.Is(err, context.DeadlineExceeded)
}

// Wait waits for the run to end, following it as it continues as new, and
// returns how it ended; a cancelled run is a result with outcome
// cancelled, not an error.
func Wait(ctx context.Context, c client.Client, id string) (*RunResult, error) {
	var res RunResult
	err := c.GetWorkflow(ctx, id, "").Get(ctx, &res)
	if ce, ok := errors.AsType[*sdktemporal.CanceledError](err); ok {
		// The workflow ends cancelled with its result as the details: the
		// state and the tasks' memos (their handoffs), for a resume.
		if ce.HasDetails() && ce.Details(&res) == nil && res.State != nil {
			return &res, nil
		}
		st, qerr := Status(ctx, c, id)
		if qerr != nil {
			st = nil
		}
		res := &RunResult{Outcome: policy.Cancelled, Reason: "the workflow was cancelled", ExitCode: policy.Cancelled.ExitCode(), State: st}
		if st != nil {
			res.Carry = &Carry{State: st} // cancelled before it could say more: no handoffs
		}
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// Resume reopens the run that ended as the workflow id (escalated, halted,
// blocked, awaiting approval, cancelled) as a new run of the same ID, with
// in.Plan (the run's, or one changed since): each task that did not get done
// gets a fresh budget, and approveGate approves the gate it waits at, as
// "harnish resume [--approve]" does. in gives the options (Dir, Approve,
// queues); its Carry and Resume are set here. The run must have
// ended: Resume waits for its result.
func Resume(ctx context.Context, c client.Client, id, queue string, in RunInput, approveGate bool) (client.WorkflowRun, error) {
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return nil, err
	}
	if d.WorkflowExecutionInfo.CloseTime == nil {
		return nil, fmt.Errorf("temporal: run %s is still going", id)
	}
	prev, err := Wait(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if prev.Carry == nil {
		return nil, fmt.Errorf("temporal: run %s left no state to resume from", id)
	}
	in.Carry, in.Resume, in.ApproveGate = prev.Carry, true, approveGate
	return Start(ctx, c, id, queue, in)
}

// Status asks the run's workflow for its state: the document
// "harnish status --json" prints.
func Status(ctx context.Context, c client.Client, id string) (*policy.RunState, error) {
	v, err := c.QueryWorkflow(ctx, id, "", QueryStatus)
	if err != nil {
		return nil, err
	}
	st := &policy.RunState{}
	if err := v.Get(st); err != nil {
		return nil, err
	}
	return st, nil
}

// WaitingChecklist asks the run's workflow for the milestone gate it waits
// at; nil when it waits at none.
func WaitingChecklist(ctx context.Context, c client.Client, id string) (*Checklist, error) {
	v, err := c.QueryWorkflow(ctx, id, "", QueryChecklist)
	if err != nil {
		return nil, err
	}
	var cl *Checklist
	if err := v.Get(&cl); err != nil {
		return nil, err
	}
	return cl, nil
}

// Approve answers the milestone gate of the run's workflow.
func Approve(ctx context.Context, c client.Client, id string, a Approval) error {
	return c.SignalWorkflow(ctx, id, "", SignalApprove, a)
}
