package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

func (l *Loop) gate(ctx context.Context, step policy.Step) ([]policy.Transition, error) {
	dec := &policy.GateDecision{Verdict: policy.Defer}
	if g := l.cfg.Gate; g != nil {
		req := NewGateRequest(l.cfg.Plan, l.st, l.phase(step.Phase), l.rec.handoff)
		var err error
		dec, err = guard(func() (*policy.GateDecision, error) { return g.Decide(ctx, req) })
		if err != nil {
			return nil, fmt.Errorf("loop: gate: %w", err)
		}
		if dec == nil {
			dec = &policy.GateDecision{Verdict: policy.Defer}
		}
	}
	return l.cfg.Policy.ObserveGate(l.st, step.Phase, *dec, l.now())
}

// NewGateRequest describes the milestone after phase ph of run st of
// plan: what its tasks' checks proved (from their handoffs, which handoff
// returns, nil for none) and the checklist a person confirms, the tasks'
// manual acceptance items among it. A host that decides gates itself (a
// workflow engine) shows a person the same checklist as the loop's gate.
func NewGateRequest(plan *task.Plan, st *policy.RunState, ph *task.Phase, handoff func(task string) *Handoff) *GateRequest {
	req := &GateRequest{Run: st.Run, Plan: plan.Name, Phase: ph.ID, Title: ph.Title}
	for i := range plan.Phases {
		if plan.Phases[i].ID == ph.ID && i+1 < len(plan.Phases) {
			req.Next = plan.Phases[i+1].ID
		}
	}
	req.Manual = policy.ManualItems(ph)
	if ph.Milestone != nil {
		req.Manual = append(req.Manual, ph.Milestone.Manual...)
	}
	var passed, files []string
	seen := map[string]bool{} // of files
	for j := range ph.Tasks {
		id := ph.Tasks[j].ID
		h := handoff(id)
		if ts := st.Tasks[id]; ts == nil || ts.Status != policy.StatusDone || h == nil {
			continue
		}
		item := id
		if len(h.Checks) > 0 {
			item += " (" + strings.Join(h.Checks, ", ") + ")"
		}
		passed = append(passed, item)
		for _, f := range h.FilesChanged {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Automated passed: %s", cmp.Or(strings.Join(passed, "; "), "nothing"))
	if len(req.Manual) > 0 {
		fmt.Fprintf(&b, "; please verify: %s", strings.Join(req.Manual, "; "))
	}
	b.WriteString(".")
	if len(files) > 0 {
		fmt.Fprintf(&b, "\nFiles changed: %s.", strings.Join(files, ", "))
	}
	req.Summary = b.String()
	return req
}

func (l *Loop) debug(ctx context.Context, step policy.Step) ([]policy.Transition, error) {
	if l.cfg.Debugger == nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.cfg.Policy.ObserveNoDebugger(l.st, step.Task, l.now())
	}
	ctx, cancel := context.WithTimeoutCause(ctx, step.TimeLeft, ErrTaskTimeout)
	defer cancel()
	l.mu.Lock()
	tr := l.runOf(step.Task, 0)
	req := &executor.DebugRequest{Task: l.tasks[step.Task], PhaseID: step.Phase, WorkDir: l.cfg.WorkDir,
		Failures: l.failuresOf(step.Task)}
	l.mu.Unlock()
	ws := l.ws
	if tr.fork != nil {
		req.WorkDir, ws = tr.fork.Dir, tr.fork.Workspace
	}
	// The two failed attempts' trees, and how the second differs.
	req.Diff, _ = l.diff(ctx, ws, tr.trees[step.Attempt-1], tr.trees[step.Attempt])
	var found executor.Diagnosis
	diag, err := guard(func() (*executor.Diagnosis, error) { return l.cfg.Debugger.Debug(ctx, req) })
	switch {
	case err != nil:
		l.log.Warn("loop: the debugger failed; treating it as no root cause", "task", step.Task, "err", err)
		if ee, ok := errors.AsType[*executor.Error](err); ok {
			found.Usage = ee.Usage // what it spent before it failed still counts
		}
	case diag != nil:
		found = *diag
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg.Policy.ObserveDiagnosis(l.st, step.Task, found, l.now())
}

// advise asks the advisor about a task at the step's point. No advisor,
// or one that fails, is no answer: the run goes on as if it had not asked.
func (l *Loop) advise(ctx context.Context, step policy.Step) ([]policy.Transition, error) {
	var adv *executor.Advice
	if a := l.cfg.Advisor; a != nil {
		ctx, cancel := context.WithTimeoutCause(ctx, step.TimeLeft, ErrTaskTimeout)
		defer cancel()
		l.mu.Lock()
		req := &executor.AdviceRequest{Task: l.tasks[step.Task], PhaseID: step.Phase, Point: step.Point,
			WorkDir: l.cfg.WorkDir, Failures: l.failuresOf(step.Task)}
		if tr := l.runs[step.Task]; tr != nil && tr.fork != nil {
			req.WorkDir = tr.fork.Dir
		}
		l.mu.Unlock()
		got, err := guard(func() (*executor.Advice, error) { return a.Advise(ctx, req) })
		switch {
		case err != nil:
			l.log.Warn("loop: the advisor failed; going on without advice", "task", step.Task, "point", step.Point, "err", err)
		case got != nil && got.Check() != nil:
			l.log.Warn("loop: the advisor's answer is not one to act on; going on without advice", "task", step.Task, "err", got.Check())
		default:
			adv = got
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg.Policy.ObserveAdvice(l.st, step, adv, l.now())
}
