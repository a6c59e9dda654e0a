package temporal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// Components are what a run's activities work with, built from its plan
// for the working tree the worker serves. Executor and Verifier are
// required; the others are optional, as in [loop.Config].
type Components struct {
	Executor executor.Executor
	Verifier verify.Verifier
	Reviewer verify.Reviewer
	Debugger executor.Debugger
	// Advisor is consulted where the plan's advisor settings say; nil: none.
	Advisor   executor.Advisor
	Guardrail guardrail.Guardrail
	// Workspace reads the tree for the guardrail's audit, the reviewer's
	// and the debugger's diffs and the rollback.
	Workspace loop.Workspace
	// Closer, when set, is closed when the worker drops the components.
	Closer io.Closer
}

// Build makes the [Components] of plan for the working tree dir.
type Build func(ctx context.Context, plan *task.Plan, dir string) (*Components, error)

// Harnish builds the components as the harnish CLI does ([harnish.Components]):
// the executor, reviewer and debugger the plan names, the tasks' own
// acceptance checks, the plan's edit guardrail, and the tree's workspace.
func Harnish(hookProgram string) Build {
	return func(ctx context.Context, plan *task.Plan, dir string) (*Components, error) {
		cfg, closer, err := harnish.Components(ctx, plan, harnish.Options{Dir: dir, HookProgram: hookProgram})
		if err != nil {
			return nil, err
		}
		ws := cfg.Workspace
		if ws == nil {
			ws = &loop.GitWorkspace{Dir: cfg.WorkDir}
		}
		return &Components{Executor: cfg.Executor, Verifier: cfg.Verifier, Reviewer: cfg.Reviewer, Debugger: cfg.Debugger,
			Advisor: cfg.Advisor, Guardrail: cfg.Guardrail, Workspace: ws, Closer: closer}, nil
	}
}

// Activities carry a run's steps out on a worker: the attempt's execution
// (with the audit of its change), its verification, its review, the
// debugger, and the rollback of a failed attempt. Register it with
// worker.RegisterActivity. Its methods are safe for concurrent use.
//
// Activities find a run's plan by its digest: in the plans added with
// [Activities.AddPlan], else by asking the run's workflow (the query
// [QueryPlan]) through the worker's client. What they return is bounded
// (output tails, findings, summaries), so a run's history grows by a
// bounded amount per attempt whatever the agent prints.
type Activities struct {
	// Build makes a run's components. Nil: [Harnish]("").
	Build Build
	// HeartbeatEvery is how often a long activity tells the server it is
	// alive. Zero: 5s. The workflow's heartbeat timeout must be longer.
	HeartbeatEvery time.Duration
	// Logger receives what the activities could not report otherwise. Nil:
	// silence.
	Logger *slog.Logger
	// IdleAfter is how long a run's components and record stay open on a
	// worker after their last use when its end goes to another worker
	// (see [Activities.End]). Zero: 30 minutes.
	IdleAfter time.Duration

	mu        sync.Mutex
	plans     map[string]*task.Plan
	built     map[string]*Components // by run, plan digest and dir
	followers map[string]*follower   // the same
	used      map[string]time.Time   // the same: when last used
	fetched   map[string]bool        // plans fetched from the workflow, not added
	swept     time.Time
	now       func() time.Time // nil: time.Now; for tests
}

// AddPlan makes plan known to the activities, so they need not ask the
// workflow for it.
func (a *Activities) AddPlan(plan *task.Plan) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.plans == nil {
		a.plans = map[string]*task.Plan{}
	}
	d := policy.PlanDigest(plan)
	a.plans[d] = plan
	delete(a.fetched, d) // the host's: kept
}

// Close closes the components the activities built and the runs' records
// they keep open.
func (a *Activities) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for k, f := range a.followers {
		errs = append(errs, f.close())
		delete(a.followers, k)
	}
	for k, c := range a.built {
		if c.Closer != nil {
			errs = append(errs, c.Closer.Close())
		}
		delete(a.built, k)
	}
	return errors.Join(errs...)
}

// Ref names what an activity works on: the run, its plan, the tree, the
// task and the attempt.
type Ref struct {
	Run        string `json:"run"`
	PlanDigest string `json:"plan_digest"`
	Dir        string `json:"dir"`
	Phase      string `json:"phase,omitempty"`
	Task       string `json:"task,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	// Fork names the task's working copy of its own (a loop.Forker's fork
	// of Dir, made at its first use), when it runs beside others; empty:
	// the task works in Dir.
	Fork string `json:"fork,omitempty"`
}

// place returns where the step works: the tree, or the task's fork, and
// the workspace that reads it.
func (a *Activities) place(ctx context.Context, c *Components, ref Ref) (string, loop.Workspace, error) {
	if ref.Fork == "" {
		return ref.Dir, c.Workspace, nil
	}
	fk, ok := c.Workspace.(loop.Forker)
	if !ok {
		return "", nil, nonRetryable(fmt.Errorf("temporal: task %s runs in a fork, and the workspace of %s cannot fork", ref.Task, ref.Dir))
	}
	f, err := fk.Fork(ctx, ref.Fork)
	if err != nil {
		return "", nil, fmt.Errorf("temporal: the working copy of task %s: %w", ref.Task, err)
	}
	return f.Dir, f.Workspace, nil
}

// components returns the run's components and its task, building them once
// per run, plan and tree.
func (a *Activities) components(ctx context.Context, ref Ref) (*Components, *task.Plan, *task.Task, error) {
	plan, err := a.plan(ctx, ref.PlanDigest)
	if err != nil {
		return nil, nil, nil, err
	}
	key := runKey(ref)
	a.touch(key)
	a.mu.Lock()
	c := a.built[key]
	a.mu.Unlock()
	if c == nil {
		build := a.Build
		if build == nil {
			build = Harnish("")
		}
		if c, err = build(ctx, plan, ref.Dir); err != nil {
			return nil, nil, nil, nonRetryable(fmt.Errorf("temporal: the components of plan %s: %w", plan.Name, err))
		}
		a.mu.Lock()
		if a.built == nil {
			a.built = map[string]*Components{}
		}
		if old := a.built[key]; old != nil {
			if c.Closer != nil {
				c.Closer.Close()
			}
			c = old
		} else {
			a.built[key] = c
		}
		a.mu.Unlock()
	}
	var t *task.Task
	for _, pt := range plan.Tasks() {
		if pt.Task.ID == ref.Task {
			t = pt.Task
		}
	}
	if t == nil && ref.Task != "" {
		return nil, nil, nil, nonRetryable(fmt.Errorf("temporal: plan %s has no task %q", plan.Name, ref.Task))
	}
	return c, plan, t, nil
}

func (a *Activities) plan(ctx context.Context, digest string) (*task.Plan, error) {
	a.mu.Lock()
	p := a.plans[digest]
	a.mu.Unlock()
	if p != nil {
		return p, nil
	}
	info := activity.GetInfo(ctx)
	v, err := activity.GetClient(ctx).QueryWorkflow(ctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, QueryPlan)
	if err != nil {
		return nil, fmt.Errorf("temporal: ask workflow %s for its plan: %w", info.WorkflowExecution.ID, err)
	}
	p = &task.Plan{}
	if err := v.Get(p); err != nil {
		return nil, fmt.Errorf("temporal: the plan of workflow %s: %w", info.WorkflowExecution.ID, err)
	}
	if got := policy.PlanDigest(p); got != digest {
		return nil, nonRetryable(fmt.Errorf("temporal: workflow %s holds plan %s, not %s", info.WorkflowExecution.ID, got, digest))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.plans == nil {
		a.plans, a.fetched = map[string]*task.Plan{}, map[string]bool{}
	}
	if a.fetched == nil {
		a.fetched = map[string]bool{}
	}
	if a.plans[digest] == nil {
		a.plans[digest], a.fetched[digest] = p, true
	}
	return a.plans[digest], nil
}

// heartbeat records a heartbeat now and every HeartbeatEvery until the
// returned stop is called, and keeps the run's components from going idle.
func (a *Activities) heartbeat(ctx context.Context, ref Ref) (stop func()) {
	activity.RecordHeartbeat(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(cmp.Or(a.HeartbeatEvery, 5*time.Second))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
				a.touch(runKey(ref)) // in use: not idle
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

func (a *Activities) log() *slog.Logger {
	if a.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.Logger
}

// Bounds on what an activity returns, so that history grows by a bounded
// amount per attempt.
const (
	maxTail     = 4 << 10
	maxText     = 2 << 10
	maxFindings = 50
	maxFiles    = 200
	maxNotes    = 20
)

// ExecuteInput is one attempt's execution.
type ExecuteInput struct {
	Ref
	// Deadline is when the task's time runs out.
	Deadline time.Time `json:"deadline"`
	// TokensLeft and CostLeft are the run's budgets left; zero: no cap.
	TokensLeft int64   `json:"tokens_left,omitempty"`
	CostLeft   float64 `json:"cost_left,omitempty"`
	// Parts are the prompt's parts the workflow knows (failures, findings,
	// warnings, the diagnosis, handoffs); the worker adds the task's spec
	// and the plan's prohibitions.
	Parts executor.PromptParts `json:"parts"`
	// Snapshot says the tree is read before and after the agent runs (for
	// the audit, the diffs and the rollback).
	Snapshot bool `json:"snapshot,omitempty"`
	// Records says the run keeps its record in the tree (RunInput.Records):
	// the prompt is then made from that record by the loop's own code, as
	// the CLI makes it (Parts is not used; the prompt says where the task
	// stands, what was done before it, and what the experience store
	// holds), and the agent's transcript is kept where the CLI keeps it
	// (loop.TranscriptsDir), for the audit log. CommitTasks and Branch are
	// the run's.
	Records     bool   `json:"records,omitempty"`
	CommitTasks bool   `json:"commit_tasks,omitempty"`
	Branch      string `json:"branch,omitempty"`
}

// ExecuteOutput is what came of the execution. Exactly one of Void,
// Failure and Stop is set when the attempt did not claim done with a
// change the guardrails let through; with none set the checks come next.
type ExecuteOutput struct {
	// Before and After are the tree's snapshots around the agent; empty
	// when not read.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Void says a fault of the harness cut the attempt short.
	Void    string                `json:"void,omitempty"`
	Failure *policy.Failure       `json:"failure,omitempty"`
	Stop    *policy.GuardrailStop `json:"stop,omitempty"`
	Usage   executor.Usage        `json:"usage"`
	Soft    []executor.Violation  `json:"soft,omitempty"`
	Summary string                `json:"summary,omitempty"`
	Files   []string              `json:"files,omitempty"`
	// Decisions, OpenQuestions, Blocker and Generalizable are the
	// executor's notes, for the handoff and the experience store.
	Decisions     []string `json:"decisions,omitempty"`
	OpenQuestions []string `json:"open_questions,omitempty"`
	Blocker       string   `json:"blocker,omitempty"`
	Generalizable bool     `json:"generalizable,omitempty"`
	// Transcript is where the agent's transcript is kept, on the worker.
	Transcript string `json:"transcript,omitempty"`
}

// Execute runs the executor on the task, between two snapshots of the tree,
// and audits the change with the guardrail; it heartbeats while the agent
// works. The task's time running out ends the agent (a failed attempt, as
// in the CLI). An error is a fault of the worker: the components cannot be
// built or the tree cannot be read.
func (a *Activities) Execute(ctx context.Context, in ExecuteInput) (*ExecuteOutput, error) {
	c, plan, t, err := a.components(ctx, in.Ref)
	if err != nil {
		return nil, err
	}
	dir, ws, err := a.place(ctx, c, in.Ref)
	if err != nil {
		return nil, err
	}
	defer a.heartbeat(ctx, in.Ref)()
	actx, cancel := context.WithDeadlineCause(ctx, in.Deadline, loop.ErrTaskTimeout)
	defer cancel()
	actx, stop := context.WithCancelCause(actx)
	defer stop(nil)
	parts := in.Parts
	parts.Spec, parts.Prohibitions = executor.Spec(t), executor.Prohibitions(plan.Guardrails)
	if in.Records {
		if parts, err = a.prompt(ctx, in); err != nil {
			return nil, err
		}
	}
	parts.Context, _ = executor.ReadContext(os.DirFS(dir), plan.Context) // as the attempt's own tree has it
	req := &executor.Request{Task: t, PhaseID: in.Phase, Attempt: in.Attempt, WorkDir: dir, Parts: parts,
		Prompt: executor.RenderWithin(parts, executor.DefaultPromptBudget)}
	req.Limits.Deadline, req.Limits.Tokens, req.Limits.CostUSD = in.Deadline, in.TokensLeft, in.CostLeft
	if th := plan.Stuck; !th.Off {
		req.Watch = loop.StuckWatch(th, stop) // the plan's stuck rules, as the CLI's loop watches
	}
	if in.Records {
		req.Transcript = loop.TranscriptPath(filepath.Join(in.Dir, loop.TranscriptsDir), in.Task, in.Attempt)
	}
	out := &ExecuteOutput{}
	snap := in.Snapshot && ws != nil
	if snap {
		if out.Before, err = ws.Snapshot(ctx); err != nil {
			return nil, fmt.Errorf("temporal: read the tree before attempt %d of %s: %w", in.Attempt, in.Task, err)
		}
	}
	res, err := guard(func() (*executor.Result, error) { return c.Executor.Execute(actx, req) })
	if ctx.Err() != nil {
		return nil, ctx.Err() // cancelled: the workflow counts the attempt as cut off
	}
	if snap {
		var serr error
		if out.After, serr = ws.Snapshot(ctx); serr != nil {
			return nil, fmt.Errorf("temporal: read the tree after attempt %d of %s: %w", in.Attempt, in.Task, serr)
		}
	}
	if snap && c.Guardrail != nil && out.Before != out.After {
		diff, derr := ws.Diff(ctx, out.Before, out.After)
		if derr != nil {
			return nil, fmt.Errorf("temporal: diff of attempt %d of %s: %w", in.Attempt, in.Task, derr)
		}
		for _, d := range guardrail.EvaluateAll(ctx, c.Guardrail, guardrail.Action{Kind: guardrail.KindEdit, Diff: diff, Task: in.Task}) {
			switch {
			case d.Level == guardrail.Soft:
				out.Soft = append(out.Soft, executor.Violation{Rule: d.Rule, Reason: d.Reason})
			case out.Stop == nil:
				out.Stop = &policy.GuardrailStop{Rule: d.Rule, Reason: d.Reason}
			}
		}
	}
	// What the agent's hooks decided during the attempt.
	for _, v := range loop.ReportedViolations(res, err) {
		switch {
		case !v.Hard:
			out.Soft = append(out.Soft, v)
		case out.Stop == nil:
			out.Stop = &policy.GuardrailStop{Rule: v.Rule, Reason: v.Reason}
		}
	}
	if out.Stop != nil {
		if res != nil {
			out.Usage = res.Usage
		}
	} else {
		var void string
		out.Failure, void, out.Usage = loop.ExecutionFailure(in.Attempt, res, err, context.Cause(actx))
		out.Void = bound(void, maxText)
		if f := out.Failure; f != nil {
			f.Reason, f.OutputTail = bound(f.Reason, maxText), tail(f.OutputTail, maxTail)
		}
	}
	if res != nil {
		out.Summary, out.Transcript = bound(res.Summary, maxText), res.Transcript
		out.Files = res.FilesChanged[:min(len(res.FilesChanged), maxFiles)]
		out.Decisions, out.OpenQuestions = boundAll(res.Decisions), boundAll(res.OpenQuestions)
		out.Blocker, out.Generalizable = bound(res.Blocker, maxText), res.Generalizable
	}
	return out, nil
}

// CheckInput is a verification or review of an attempt.
type CheckInput struct {
	Ref
	Deadline time.Time `json:"deadline"`
	// Base and After are the snapshots of the tree before the task's first
	// attempt and after this one, for the reviewer's diff; empty: none.
	Base  string `json:"base,omitempty"`
	After string `json:"after,omitempty"`
	// Files are the files the executor says it changed, for a tree with no
	// snapshots.
	Files []string `json:"files,omitempty"`
}

// CheckOutput is what a verification or review found. Void says the
// checks could not run (a fault of the harness, not of the change).
type CheckOutput struct {
	Failure *policy.Failure `json:"failure,omitempty"`
	Void    string          `json:"void,omitempty"`
	// Passed names the checks that passed.
	Passed []string `json:"passed,omitempty"`
	// Files are the files the task's change touches, as FilesFrom says
	// ("diff", or "executor" when the tree has no snapshots); Minor, the
	// review's findings below critical, for the handoff.
	Files     []string `json:"files,omitempty"`
	FilesFrom string   `json:"files_from,omitempty"`
	Minor     []string `json:"minor,omitempty"`
}

// Verify runs the task's checks, trying a check that could not run (its
// error says it may be tried again) up to three times, as the CLI does.
func (a *Activities) Verify(ctx context.Context, in CheckInput) (*CheckOutput, error) {
	c, _, t, err := a.components(ctx, in.Ref)
	if err != nil {
		return nil, err
	}
	dir, ws, err := a.place(ctx, c, in.Ref)
	if err != nil {
		return nil, err
	}
	defer a.heartbeat(ctx, in.Ref)()
	ctx, cancel := context.WithDeadlineCause(ctx, in.Deadline, loop.ErrTaskTimeout)
	defer cancel()
	rep, err := retry(ctx, func() (*verify.Report, error) {
		return c.Verifier.Verify(ctx, &verify.Request{Task: t, PhaseID: in.Phase, WorkDir: dir, Attempt: in.Attempt})
	})
	if errors.Is(err, verify.ErrNoChecks) && hasManual(t) {
		rep, err = &verify.Report{Passed: true}, nil // only a person can check it, at the gate
	}
	out := &CheckOutput{}
	switch {
	case err != nil:
		out.Void = bound(fmt.Sprintf("verify task %s: %v", t.ID, err), maxText)
		return out, nil
	case rep == nil:
		out.Void = fmt.Sprintf("verify task %s: the verifier returned no report", t.ID)
		return out, nil
	}
	if out.Failure = loop.VerifyFailure(in.Attempt, rep); out.Failure != nil {
		out.Failure.Reason, out.Failure.OutputTail = bound(out.Failure.Reason, maxText), tail(out.Failure.OutputTail, maxTail)
		return out, nil
	}
	for _, ch := range rep.Checks {
		out.Passed = append(out.Passed, ch.Name)
	}
	// The task's change so far: from the tree before its first attempt.
	_, files := a.diff(ctx, ws, in.Base, in.After)
	out.FilesFrom = "diff"
	if files == nil && in.Files != nil {
		files, out.FilesFrom = in.Files, "executor" // no snapshots: the executor's word is all there is
	}
	out.Files = files[:min(len(files), maxFiles)]
	return out, nil
}

// Review has the reviewer look at the task's change so far (from the tree
// before its first attempt to the tree after this one); a critical finding
// fails the attempt.
func (a *Activities) Review(ctx context.Context, in CheckInput) (*CheckOutput, error) {
	c, _, t, err := a.components(ctx, in.Ref)
	if err != nil {
		return nil, err
	}
	dir, ws, err := a.place(ctx, c, in.Ref)
	if err != nil {
		return nil, err
	}
	defer a.heartbeat(ctx, in.Ref)()
	ctx, cancel := context.WithDeadlineCause(ctx, in.Deadline, loop.ErrTaskTimeout)
	defer cancel()
	diff, files := a.diff(ctx, ws, in.Base, in.After)
	if files == nil {
		files = in.Files // no snapshots: the executor's word is all there is
	}
	out := &CheckOutput{Files: files[:min(len(files), maxFiles)]}
	if c.Reviewer == nil {
		return out, nil
	}
	req := &verify.ReviewRequest{Task: t, PhaseID: in.Phase, WorkDir: dir, Attempt: in.Attempt, Diff: diff, Files: files}
	rev, err := retry(ctx, func() (*verify.Review, error) { return c.Reviewer.Review(ctx, req) })
	if err != nil {
		out.Void = bound(fmt.Sprintf("review task %s: %v", t.ID, err), maxText)
		return out, nil
	}
	f, minor := loop.ReviewFailure(in.Attempt, rev)
	for _, m := range minor[:min(len(minor), maxFindings)] {
		out.Minor = append(out.Minor, bound(m, 300))
	}
	if f != nil {
		for i := range f.Findings { // loop.ReviewFailure keeps at most 50
			f.Findings[i].Message = bound(f.Findings[i].Message, 500)
		}
		out.Failure = f
	}
	return out, nil
}

// DebugInput asks the debugger about a repeated failure.
type DebugInput struct {
	Ref
	Deadline time.Time        `json:"deadline"`
	Failures []policy.Failure `json:"failures"`
	// From and To are the trees the two failed attempts left.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Debug asks the debugger for a root cause. A debugger that fails found
// none, and what it spent before it failed still counts; with no debugger,
// NoDebugger is set.
func (a *Activities) Debug(ctx context.Context, in DebugInput) (*DebugOutput, error) {
	c, _, t, err := a.components(ctx, in.Ref)
	if err != nil {
		return nil, err
	}
	if c.Debugger == nil {
		return &DebugOutput{NoDebugger: true}, nil
	}
	dir, ws, err := a.place(ctx, c, in.Ref)
	if err != nil {
		return nil, err
	}
	defer a.heartbeat(ctx, in.Ref)()
	ctx, cancel := context.WithDeadlineCause(ctx, in.Deadline, loop.ErrTaskTimeout)
	defer cancel()
	req := &executor.DebugRequest{Task: t, PhaseID: in.Phase, WorkDir: dir, Failures: in.Failures}
	req.Diff, _ = a.diff(ctx, ws, in.From, in.To)
	out := &DebugOutput{}
	diag, err := guard(func() (*executor.Diagnosis, error) { return c.Debugger.Debug(ctx, req) })
	switch {
	case err != nil:
		a.log().Warn("temporal: the debugger failed; treating it as no root cause", "task", t.ID, "err", err)
		if ee, ok := errors.AsType[*executor.Error](err); ok {
			out.Diagnosis.Usage = ee.Usage
		}
	case diag != nil:
		out.Diagnosis = *diag
		out.Diagnosis.RootCause = bound(diag.RootCause, maxText)
		out.Diagnosis.Fix = bound(diag.Fix, maxText)
	}
	return out, nil
}

// DebugOutput is the debugger's answer.
type DebugOutput struct {
	Diagnosis  policy.Diagnosis `json:"diagnosis"`
	NoDebugger bool             `json:"no_debugger,omitempty"`
}

// AdviseInput asks the advisor about a task at a point.
type AdviseInput struct {
	Ref
	Deadline time.Time          `json:"deadline"`
	Point    schema.AdvicePoint `json:"point"`
	Failures []policy.Failure   `json:"failures"`
}

// AdviseOutput is the advisor's answer; nil for none.
type AdviseOutput struct {
	Advice *schema.Advice `json:"advice,omitempty"`
}

// Advise asks the advisor. No advisor, one that fails, or an answer not to
// act on is no answer, as in the CLI's loop.
func (a *Activities) Advise(ctx context.Context, in AdviseInput) (*AdviseOutput, error) {
	c, _, t, err := a.components(ctx, in.Ref)
	if err != nil {
		return nil, err
	}
	if c.Advisor == nil {
		return &AdviseOutput{}, nil
	}
	defer a.heartbeat(ctx, in.Ref)()
	ctx, cancel := context.WithDeadlineCause(ctx, in.Deadline, loop.ErrTaskTimeout)
	defer cancel()
	req := &executor.AdviceRequest{Task: t, PhaseID: in.Phase, Point: in.Point, WorkDir: in.Dir, Failures: in.Failures}
	adv, err := guard(func() (*executor.Advice, error) { return c.Advisor.Advise(ctx, req) })
	switch {
	case err != nil:
		a.log().Warn("temporal: the advisor failed; going on without advice", "task", t.ID, "err", err)
		return &AdviseOutput{}, nil
	case adv == nil || adv.Check() != nil:
		return &AdviseOutput{}, nil
	}
	return &AdviseOutput{Advice: adv}, nil
}

// RestoreInput puts the tree back as it was before a failed attempt.
type RestoreInput struct {
	Ref
	Before string `json:"before"`
}

// Restore rolls a failed attempt's change back. A failure to is logged, as
// in the CLI: the next attempt then starts from the tree as it is.
func (a *Activities) Restore(ctx context.Context, in RestoreInput) error {
	c, _, _, err := a.components(ctx, in.Ref)
	if err != nil {
		return err
	}
	_, ws, err := a.place(ctx, c, in.Ref)
	if err != nil {
		return err
	}
	if ws == nil || in.Before == "" {
		return nil
	}
	after, err := ws.Snapshot(ctx)
	if err == nil && after != in.Before {
		err = ws.Restore(ctx, in.Before, after)
	}
	if err != nil {
		a.log().Warn("temporal: roll back a failed attempt", "task", in.Task, "attempt", in.Attempt, "err", err)
	}
	return nil
}

// diff returns the change between two snapshots and the paths it touches;
// empty when either is unknown or reading it fails.
func (a *Activities) diff(ctx context.Context, ws loop.Workspace, from, to string) (string, []string) {
	if ws == nil || from == "" || to == "" || from == to {
		return "", nil
	}
	d, err := ws.Diff(ctx, from, to)
	if err != nil {
		a.log().Warn("temporal: diff", "err", err)
		return "", nil
	}
	fds, _ := guardrail.ParseDiff(d)
	files := make([]string, 0, len(fds))
	for _, f := range fds {
		files = append(files, f.Path)
	}
	return d, files
}

// retry runs a check again while its error says it may succeed: three
// tries, 100ms then 200ms apart, as the CLI's loop does.
func retry[T any](ctx context.Context, f func() (T, error)) (T, error) {
	wait := 100 * time.Millisecond
	for try := 1; ; try++ {
		v, err := guard(f)
		if err == nil || try == 3 || !verify.IsRetryable(err) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// guard calls a component and turns its panic into an error.
func guard[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &loop.PanicError{Value: p}
		}
	}()
	return f()
}

func nonRetryable(err error) error {
	return sdktemporal.NewNonRetryableApplicationError(err.Error(), "harnish.config", err)
}

func hasManual(t *task.Task) bool {
	for _, c := range t.Acceptance {
		if c.Manual != "" {
			return true
		}
	}
	return false
}

// bound cuts s to at most n bytes, on a rune boundary.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// tail keeps the last n bytes of s, on a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8Start(s[i]) {
		i++
	}
	return "…" + s[i:]
}

// boundAll keeps at most maxNotes notes, each bounded.
func boundAll(notes []string) []string {
	out := make([]string, 0, min(len(notes), maxNotes))
	for _, n := range notes[:min(len(notes), maxNotes)] {
		out = append(out, bound(n, 500))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
