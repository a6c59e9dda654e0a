package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// attemptCtx is one attempt's step, the task's taskRun, and the working
// tree it works in: the run's, or the task's own fork.
type attemptCtx struct {
	step policy.Step
	tr   *taskRun
	ws   Workspace // nil: none to read the tree with
	dir  string
	// integrated says the attempt reached the merge queue: its fork may
	// hold the branch's changes now, which no rollback may undo.
	integrated bool
}

func (l *Loop) attempt(ctx context.Context, step policy.Step) ([]policy.Transition, error) {
	t := l.tasks[step.Task]
	start := l.now()
	actx, cancel := context.WithTimeoutCause(ctx, step.TimeLeft, ErrTaskTimeout)
	defer cancel()
	actx, stop := context.WithCancelCause(actx)
	defer stop(nil)
	l.mu.Lock()
	a := &attemptCtx{step: step, tr: l.runOf(t.ID, step.Attempt), ws: l.ws, dir: l.cfg.WorkDir}
	parts := l.promptParts(ctx, t, step)
	l.mu.Unlock()
	if err := l.fork(ctx, a); err != nil {
		return nil, err
	}
	// The project's context as the attempt's own tree has it.
	parts.Context, _ = executor.ReadContext(os.DirFS(a.dir), l.cfg.Plan.Context)
	req := &executor.Request{Task: t, PhaseID: step.Phase, Attempt: step.Attempt, WorkDir: a.dir,
		Prompt: executor.RenderWithin(parts, cmp.Or(l.cfg.PromptBudget, executor.DefaultPromptBudget)), Parts: parts}
	if l.cfg.TranscriptDir != "" {
		req.Transcript = TranscriptPath(l.cfg.TranscriptDir, t.ID, step.Attempt)
	}
	a.tr.minor, a.tr.last = nil, nil // this attempt's own come from check
	if dl, ok := actx.Deadline(); ok {
		req.Limits.Deadline = dl
	}
	req.Limits.Tokens, req.Limits.CostUSD = step.TokensLeft, step.CostLeft
	if th := l.cfg.Policy.Stuck; !th.Off {
		req.Watch = StuckWatch(*th, stop)
	}
	// The agent's change is what the tree gained between these two
	// snapshots, and nothing of harnish's runs between them.
	before, err := l.snapshot(ctx, "before", a)
	if err != nil {
		return nil, err
	}
	if a.tr.base == "" {
		a.tr.base = before
	}
	res, err := guard(func() (*executor.Result, error) { return l.cfg.Executor.Execute(actx, req) })
	if ctx.Err() != nil {
		return nil, context.Cause(ctx) // cancelled: the attempt stays unreported and counts on resume
	}
	after, serr := l.snapshot(context.WithoutCancel(ctx), "after", a)
	if serr != nil {
		return nil, serr
	}
	a.tr.trees[step.Attempt] = after
	r := policy.AttemptReport{Task: t.ID, Attempt: step.Attempt}
	var warnings []executor.Violation // soft guardrail decisions, for the next attempt
	if l.cfg.Guardrail != nil {
		stop, soft, gerr := l.auditChange(context.WithoutCancel(actx), a, before, after)
		if gerr != nil {
			return nil, gerr
		}
		r.Stop, warnings = stop, soft
	}
	warnings = append(warnings, l.hookViolations(step, res, err, &r)...)
	var usage executor.Usage
	var void string // a fault of the harness cut the attempt short
	if r.Stop != nil {
		if res != nil {
			usage = res.Usage
		}
	} else if r.Failure, void, usage = ExecutionFailure(step.Attempt, res, err, context.Cause(actx)); r.Failure == nil && void == "" {
		a.tr.last = res // it claimed done: the checks come next
		err := l.check(actx, t, a, after, &r)
		if err == nil && r.Failure == nil && a.tr.fork != nil {
			err = l.integrate(actx, t, a, &r)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			// The checks could not run: a fault of the harness, not of the
			// agent's change, so the attempt does not count.
			void = err.Error()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if void != "" {
		return l.cfg.Policy.ObserveVoid(l.st, t.ID, step.Attempt, void, l.now())
	}
	if r.Failure != nil {
		r.Failure.Warnings = warnings
		r.Failure.Unchanged = before != "" && before == after
	}
	r.Elapsed, r.Tokens, r.CostUSD = l.now().Sub(start), usage.Tokens(), usage.CostUSD
	if l.cfg.Rollback && r.Failure != nil && r.Stop == nil && !a.integrated {
		l.rollback(ctx, a, before)
	}
	return l.cfg.Policy.ObserveAttempt(l.st, r, l.now())
}

// promptParts assembles what the attempt is told; l.mu must be held. It
// comes before the agent runs: asking the assets marks them accessed, a
// write of harnish's own that must not fall inside the agent's change.
func (l *Loop) promptParts(ctx context.Context, t *task.Task, step policy.Step) executor.PromptParts {
	failures := l.failuresOf(t.ID)
	parts := executor.PromptParts{Spec: executor.Spec(t), Prohibitions: executor.Prohibitions(l.cfg.Plan.Guardrails), Handoffs: l.handoffsFor(t), Failures: failures,
		Assets: l.experience(ctx, t, step.Phase)}
	parts.Progress, parts.Done = l.progress(t)
	if ts := l.st.Tasks[t.ID]; ts != nil {
		if ts.RootCause {
			parts.Diagnosis = ts.Diagnosis // for the one attempt the root cause buys
		}
		// The advisor's PLAN or CORRECTION, given just before this attempt.
		for _, a := range ts.Advice {
			if a.Attempt == step.Attempt-1 && a.Guides() {
				parts.Advice = &executor.Advice{Verdict: a.Verdict, Text: a.Text}
			}
		}
	}
	// The findings and warnings are the last finished attempt's: one a crash
	// cut off found nothing.
	for i := len(failures) - 1; i >= 0; i-- {
		if f := failures[i]; f.Kind != policy.FailInterrupted {
			parts.Findings, parts.Warnings = f.Findings, f.Warnings
			break
		}
	}
	return parts
}

// snapshot reads the working tree as a git tree, when anything needs it: the
// audit and the rollback cannot go without it (an error), while the
// reviewer's and debugger's diffs are given when it can be had ("" when not).
func (l *Loop) snapshot(ctx context.Context, when string, a *attemptCtx) (string, error) {
	required := l.cfg.Guardrail != nil || l.cfg.Rollback
	step := a.step
	switch {
	case a.ws == nil && required:
		return "", fmt.Errorf("loop: the guardrail's audit and the rollback need a Workspace, and %s is not a git working tree", l.workDir())
	case a.ws == nil, !required && l.cfg.Reviewer == nil && l.cfg.Debugger == nil && l.cfg.Policy.Stuck.Off:
		// (The stuck rules need to know an attempt that changed nothing.)
		return "", nil
	}
	tree, err := a.ws.Snapshot(ctx)
	if err != nil && required {
		return "", fmt.Errorf("loop: read the working tree %s attempt %d of %s: %w", when, step.Attempt, step.Task, err)
	}
	if err != nil {
		l.log.Warn("loop: read the working tree", "task", step.Task, "attempt", step.Attempt, "err", err)
	}
	return tree, nil
}

// diff returns the change from one snapshot to another and the paths it
// touches; empty when either is unknown or reading it fails.
func (l *Loop) diff(ctx context.Context, ws Workspace, from, to string) (string, []string) {
	if ws == nil || from == "" || to == "" || from == to {
		return "", nil
	}
	d, err := ws.Diff(ctx, from, to)
	if err != nil {
		l.log.Warn("loop: diff", "err", err)
		return "", nil
	}
	fds, _ := guardrail.ParseDiff(d)
	files := make([]string, 0, len(fds))
	for _, f := range fds {
		files = append(files, f.Path)
	}
	return d, files
}

// hookViolations reports the guardrail decisions the executor says were made
// during the attempt (by the agent's hooks, or by the executor itself), stops
// the run on the first hard one unless the audit already did, and returns the
// soft ones.
func (l *Loop) hookViolations(step policy.Step, res *executor.Result, err error, r *policy.AttemptReport) (soft []executor.Violation) {
	for _, v := range ReportedViolations(res, err) {
		level := "soft"
		if v.Hard {
			level = "hard"
		}
		l.emit(Event{Type: GuardrailViolated, Phase: step.Phase, Task: step.Task, Attempt: step.Attempt,
			Level: level, Rule: v.Rule, Message: v.Reason})
		switch {
		case !v.Hard:
			soft = append(soft, v)
		case r.Stop == nil:
			r.Stop = &policy.GuardrailStop{Rule: v.Rule, Reason: v.Reason}
		}
	}
	return soft
}

// auditChange passes what the attempt changed through the guardrail. The
// first hard decision is returned as the stop; every soft one is reported and
// returned, for the next attempt's prompt.
func (l *Loop) auditChange(ctx context.Context, a *attemptCtx, before, after string) (stop *policy.GuardrailStop, soft []executor.Violation, err error) {
	step := a.step
	if after == before {
		return nil, nil, nil
	}
	diff, err := a.ws.Diff(ctx, before, after)
	if err != nil {
		return nil, nil, fmt.Errorf("loop: diff of attempt %d of %s: %w", step.Attempt, step.Task, err)
	}
	for _, d := range guardrail.EvaluateAll(ctx, l.cfg.Guardrail, guardrail.Action{Kind: guardrail.KindEdit, Diff: diff, Task: step.Task}) {
		l.emit(Event{Type: GuardrailViolated, Phase: step.Phase, Task: step.Task, Attempt: step.Attempt,
			Level: d.Level.String(), Rule: d.Rule, Message: d.Reason})
		switch {
		case d.Level == guardrail.Soft:
			soft = append(soft, executor.Violation{Rule: d.Rule, Reason: d.Reason})
		case stop == nil:
			stop = &policy.GuardrailStop{Rule: d.Rule, Reason: d.Reason}
		}
	}
	return stop, soft, nil
}

// rollback restores the tree of before a failed attempt. A failure to is
// logged: the next attempt then starts from the tree as it is.
func (l *Loop) rollback(ctx context.Context, a *attemptCtx, before string) {
	step := a.step
	ctx = context.WithoutCancel(ctx)
	after, err := a.ws.Snapshot(ctx)
	if err == nil && after != before {
		err = a.ws.Restore(ctx, before, after)
	}
	if err != nil {
		l.log.Warn("loop: roll back a failed attempt", "task", step.Task, "attempt", step.Attempt, "err", err)
	}
}

// check runs the verifier and, when it passes, the reviewer, and records what
// they found in r and for the next attempt's prompt.
func (l *Loop) check(ctx context.Context, t *task.Task, a *attemptCtx, after string, r *policy.AttemptReport) error {
	step := a.step
	rep, err := retryCheck(ctx, l, step, "verify", func() (*verify.Report, error) {
		return l.cfg.Verifier.Verify(ctx, &verify.Request{Task: t, PhaseID: step.Phase, WorkDir: a.dir, Attempt: step.Attempt})
	})
	if errors.Is(err, verify.ErrNoChecks) && hasManual(t) {
		// Only a person can check this task: at the phase's gate.
		rep, err = &verify.Report{Passed: true}, nil
	}
	if err != nil {
		return fmt.Errorf("loop: verify task %s: %w", t.ID, err)
	}
	if rep == nil {
		return fmt.Errorf("loop: verify task %s: the verifier returned no report", t.ID)
	}
	if r.Failure = VerifyFailure(step.Attempt, rep); r.Failure != nil {
		fp := rep.Fingerprint
		l.emit(Event{Type: VerifyFailed, Phase: step.Phase, Task: t.ID, Attempt: step.Attempt, Fingerprint: fp.String(), Message: fp.Summary})
		return nil
	}
	l.emit(Event{Type: VerifyPassed, Phase: step.Phase, Task: t.ID, Attempt: step.Attempt})
	a.tr.passed = a.tr.passed[:0]
	for _, c := range rep.Checks {
		a.tr.passed = append(a.tr.passed, c.Name)
	}
	// The task's change so far: from the tree before its first attempt.
	diff, files := l.diff(ctx, a.ws, a.tr.base, after)
	a.tr.filesFrom = "diff"
	if files == nil && a.tr.last != nil {
		files, a.tr.filesFrom = a.tr.last.FilesChanged, "executor" // no git: the executor's word is all there is
	}
	a.tr.files = files
	if l.cfg.Reviewer == nil {
		return nil
	}
	req := &verify.ReviewRequest{Task: t, PhaseID: step.Phase, WorkDir: a.dir, Attempt: step.Attempt, Diff: diff, Files: files}
	rev, err := retryCheck(ctx, l, step, "review", func() (*verify.Review, error) { return l.cfg.Reviewer.Review(ctx, req) })
	if err != nil {
		return fmt.Errorf("loop: review task %s: %w", t.ID, err)
	}
	if rev != nil && len(rev.Findings) > 0 {
		l.emit(Event{Type: ReviewFindings, Phase: step.Phase, Task: t.ID, Attempt: step.Attempt,
			Message: fmt.Sprintf("%d finding(s), %d critical", len(rev.Findings), len(rev.Critical()))})
	}
	r.Failure, a.tr.minor = ReviewFailure(step.Attempt, rev)
	return nil
}

// checkTries bounds how often a verifier or reviewer whose error says it
// may be tried again ([verify.IsRetryable]: it crashed or timed out) is
// run within one attempt; checkBackoff is the first wait between tries,
// doubled each time. Such a fault costs the agent no attempt, so nothing
// else would bound the tries; past them, the run ends for a person.
const (
	checkTries   = 3
	checkBackoff = 100 * time.Millisecond
)

// retryCheck runs f, a verification or review, again while its error says it
// may succeed, up to checkTries times and while ctx lasts.
func retryCheck[T any](ctx context.Context, l *Loop, step policy.Step, what string, f func() (T, error)) (T, error) {
	wait := checkBackoff
	for try := 1; ; try++ {
		v, err := guard(f)
		if err == nil || try == checkTries || !verify.IsRetryable(err) {
			return v, err
		}
		l.log.Warn("loop: "+what+" could not run; trying again", "task", step.Task, "attempt", step.Attempt, "try", try, "err", err)
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// maxKeptFindings bounds the findings a review failure keeps in the state
// (their keys are all kept): enough for the next prompt, not a journal that
// grows with a reviewer's verbosity.
const maxKeptFindings = 50

func hasManual(t *task.Task) bool {
	for _, c := range t.Acceptance {
		if c.Manual != "" {
			return true
		}
	}
	return false
}
