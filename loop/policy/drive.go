package policy

import (
	"context"
	"time"

	"github.com/harnish/harnish/task/model"
)

// Host carries a run's steps out for [Policy.Drive]: the CLI's loop, a
// Temporal workflow, a test's script.
type Host interface {
	// Now is the host's clock; the policy reads no clock of its own.
	Now() time.Time
	// Commit makes ts durable and applies them, in order, to the state the
	// host gave Drive, before Drive decides again. An error ends Drive: the
	// record of the run can no longer be trusted.
	Commit(ctx context.Context, ts []Transition) error
	// Take carries one step out (an attempt, the debugger, a gate) and
	// returns the transitions that record what came of it, as the Observe
	// methods of p make them. An error means the host could not carry the
	// step out: the run ends with outcome error, unless ctx was done, when
	// it ends cancelled.
	Take(ctx context.Context, s Step) ([]Transition, error)
}

// Drive runs the protocol to the run's end: Next, commit its transitions,
// take its steps and commit what each observed, until a [StepFinish], which
// it returns. ctx ending finishes the run [Cancelled] with its cause, at the
// next step. st is the host's state, changed only through h.Commit.
//
// Drive takes the steps of one decision one after another; a host that runs
// attempts side by side drives [Policy.Next] itself.
func (p *Policy) Drive(ctx context.Context, plan *model.Plan, st *RunState, h Host) (Step, error) {
	for {
		if ctx.Err() != nil && st.Outcome == "" {
			fin := Transition{Kind: TransRunFinished, Time: h.Now(), Outcome: Cancelled, Reason: context.Cause(ctx).Error()}
			if err := h.Commit(context.WithoutCancel(ctx), []Transition{fin}); err != nil {
				return Step{}, err
			}
		}
		d, err := p.Next(plan, st, h.Now())
		if err != nil {
			return Step{}, err
		}
		if err := h.Commit(ctx, d.Transitions); err != nil {
			return Step{}, err
		}
		for _, s := range d.Steps {
			if s.Kind == StepFinish {
				return s, nil
			}
			ts, err := h.Take(ctx, s)
			if err != nil && ctx.Err() != nil {
				break // cancelled: the step stays unreported, and counts on resume
			}
			if err != nil {
				ts = []Transition{{Kind: TransRunFinished, Time: h.Now(), Outcome: Errored, Reason: err.Error()}}
			}
			if err := h.Commit(ctx, ts); err != nil {
				return Step{}, err
			}
			if st.Outcome != "" {
				break // the run ended: the other steps are not taken
			}
		}
	}
}
