package policy

import (
	"context"
	"errors"
	"maps"
	"slices"
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
	// it ends cancelled. Take is called concurrently for different tasks
	// when the plan runs tasks side by side (see Drive).
	Take(ctx context.Context, s Step) ([]Transition, error)
}

// Drive runs the protocol to the run's end: Next, commit its transitions,
// take its steps and commit what each observed, until a [StepFinish], which
// it returns. ctx ending finishes the run [Cancelled] with its cause. st is
// the host's state, changed only through h.Commit.
//
// The steps of a decision are taken side by side, each in a goroutine of
// its own, and Drive decides again as soon as any one is reported, so a
// task that finishes makes room for the next at once. Take is therefore
// called concurrently (for different tasks) when the plan lets tasks run
// side by side; Commit is called from Drive's goroutine only, one call at a
// time. When the run ends while steps are in flight (a hard guardrail, a
// budget used up, a step the host could not take, ctx), Drive cancels them
// and waits for them; what they report is dropped, so their attempts count
// as cut off on resume.
func (p *Policy) Drive(ctx context.Context, plan *model.Plan, st *RunState, h Host) (Step, error) {
	type report struct {
		step Step
		ts   []Transition
		err  error
	}
	stepCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	reports := make(chan report)
	busy := map[string]bool{}
	drain := func(cause error) {
		stop(cause)
		for len(busy) > 0 {
			delete(busy, (<-reports).step.Task)
		}
	}
	defer drain(errDriveOver)
	for {
		if ctx.Err() != nil && st.Outcome == "" {
			drain(context.Cause(ctx))
			fin := Transition{Kind: TransRunFinished, Time: h.Now(), Outcome: Cancelled, Reason: context.Cause(ctx).Error()}
			if err := h.Commit(context.WithoutCancel(ctx), []Transition{fin}); err != nil {
				return Step{}, err
			}
		}
		d, err := p.Next(plan, st, h.Now(), slices.Sorted(maps.Keys(busy))...)
		if err != nil {
			return Step{}, err
		}
		if err := h.Commit(ctx, d.Transitions); err != nil {
			return Step{}, err
		}
		for _, s := range d.Steps {
			if s.Kind == StepFinish {
				drain(errRunEnded)
				return s, nil
			}
			busy[s.Task] = true
			go func() {
				ts, err := h.Take(stepCtx, s)
				reports <- report{s, ts, err}
			}()
		}
		if len(busy) == 0 {
			continue
		}
		r := <-reports
		delete(busy, r.step.Task)
		switch {
		case r.err != nil && ctx.Err() != nil:
			continue // cancelled: the step stays unreported, and counts on resume
		case r.err != nil:
			r.ts = []Transition{{Kind: TransRunFinished, Time: h.Now(), Outcome: Errored, Reason: r.err.Error()}}
		}
		if err := h.Commit(ctx, r.ts); err != nil {
			return Step{}, err
		}
	}
}

var (
	errRunEnded  = errors.New("policy: the run ended")
	errDriveOver = errors.New("policy: Drive returned")
)
