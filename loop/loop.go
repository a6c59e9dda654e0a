package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// ErrTaskTimeout is the cause with which an attempt's context is cancelled
// when the task's time budget runs out.
var ErrTaskTimeout = errors.New("loop: the task's time budget ran out")

// Config composes a [Loop]. Plan, Executor, Verifier and Store are required;
// every other field has a useful zero value, written on its comment.
type Config struct {
	Plan *task.Plan
	// WorkDir is the working tree's root, where the executor runs and the
	// checks run. Empty means the current directory.
	WorkDir  string
	Executor executor.Executor
	Verifier verify.Verifier
	// Reviewer reviews each change whose checks pass. Nil: no review.
	Reviewer verify.Reviewer
	// Debugger investigates a failure that repeated. Nil: a two-strike
	// failure finds no root cause, and the task halts.
	Debugger executor.Debugger
	// Guardrail judges what each attempt changed, as one edit action whose
	// Diff is the unified diff of the working tree (read by the Workspace)
	// from just before the executor ran to just after, because an agent's
	// own hooks can fail to run or be absent. Every hard decision stops the
	// run at once; every soft one is reported and put in the next attempt's
	// prompt. Nil: no audit of the change. It needs a Workspace.
	Guardrail guardrail.Guardrail
	// Assets is the experience store: before each attempt the loop queries
	// it by the task's tags and phase and puts what it finds in the prompt;
	// when a task is done it records a failure that repeated and was then
	// resolved, and a first-try success the executor marks generalizable as
	// a pattern. Nil: no experience. Its errors are logged and never stop
	// the run.
	Assets asset.Store
	// Gate decides at milestones. Nil: every gate defers, and the run ends
	// awaiting approval.
	Gate  Gate
	Store Store
	// Observer receives the events. Nil: none.
	Observer Observer
	// Logger receives the events as log records too. Nil: silence.
	Logger *slog.Logger
	// Policy holds the host's budget overrides and escalation policy.
	Policy policy.Policy
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
	// RunID names a new run. Empty: one is made from the start time.
	RunID string
	// Rollback puts the working tree back as it was before an attempt that
	// failed (its checks, its review, a crash, a blocked claim), so the next
	// attempt starts from the last good tree, not from a broken one. It
	// needs a Workspace. The state directory and ignored files are left
	// alone.
	Rollback bool
	// CommitTasks commits each task done, through the History:
	// "feat(<phase>): <task id> — <title>", the executor's summary as the
	// body, and the run's metadata as trailers (Harnish-Run, Harnish-Task,
	// Harnish-Attempts). When the run ends, the records under RecordsDir
	// (handoffs, audit logs, the summary or escalation report), if it is in
	// the working tree, are one more commit of their own; the state files
	// are never committed. The repository's identity is used, or harnish's
	// own when it has none.
	CommitTasks bool
	// Workspace reads the working tree for the audit, the reviewer's and
	// debugger's diffs, and the rollback. Nil: a [GitWorkspace] when WorkDir
	// is in a git repository, else none (and then Guardrail and Rollback
	// have no change to judge or undo, an error at the first attempt).
	Workspace Workspace
	// History keeps the run's branch and commits (CommitTasks, Branch).
	// Nil: the [GitWorkspace] of WorkDir when it is in a git repository,
	// else none (nothing is committed).
	History History
	// Branch is the git branch a new run works on: the run records it,
	// creates it at HEAD, and every Run and Resume goes back to it before
	// its first step (refusing when the working tree moved to another branch
	// with changes). Empty: the run works on whatever is checked out.
	Branch string
	// RecordsDir receives handoffs/<task>.json, logs/<plan>/task-<id>.json,
	// an escalation report and the completion summary (the CLI uses the
	// state directory). Empty: nothing is written; handoffs still reach the
	// prompts of later tasks.
	RecordsDir string
	// PromptBudget is the size in bytes each prompt is trimmed to (see
	// executor.RenderWithin). Zero means executor.DefaultPromptBudget;
	// negative, no limit.
	PromptBudget int
}

// Loop drives a plan to a typed end with the components of its [Config]. It
// is a thin driver around [Policy]: the policy decides, the loop carries the
// decision out with the components, reports back, and commits every
// transition to the store before it acts on it.
//
// A Loop runs one run at a time; its methods are not safe for concurrent use.
type Loop struct {
	cfg   Config
	tasks map[string]*task.Task
	prev  map[string]string // task ID -> the task before it in the plan
	now   func() time.Time
	log   *slog.Logger
	st    *policy.RunState

	// What the next attempt of the running task should know beyond the
	// durable state: output tails, findings and the diagnosis are kept in
	// memory only, since they do not belong in a state of O(1) transitions.
	tails   map[int]string // per attempt
	trees   map[int]string // the tree each attempt left, as a git snapshot
	base    string         // the tree before the task's first attempt here
	git     *bool          // whether WorkDir is in a git repository
	ws      Workspace      // nil: none to read the tree with
	hist    History        // nil: no commits
	digest  string         // of the plan
	phaseOf map[string]string

	// Commits the state owes: done tasks not yet committed, in order; those
	// a crash may have cut off are looked for first (recovered).
	pending      []string
	recovered    map[string]bool
	commitFailed bool // a task's commit failed: no further commit this drive
	findings     []executor.Finding
	diagnosis    *executor.Diagnosis
	warnings     []executor.Warning // soft guardrail decisions, for the next attempt
	last         *executor.Result   // the last attempt's claim
	passed       []string           // names of the checks that passed last
	files        []string           // the files the task's change touches, as of its last check
	minor        []string           // review findings below critical, last round
	rec          *records
}

// New checks cfg and returns a Loop.
func New(cfg Config) (*Loop, error) {
	switch {
	case cfg.Plan == nil:
		return nil, errors.New("loop: Config.Plan is nil")
	case cfg.Executor == nil:
		return nil, errors.New("loop: Config.Executor is nil")
	case cfg.Verifier == nil:
		return nil, errors.New("loop: Config.Verifier is nil")
	case cfg.Store == nil:
		return nil, errors.New("loop: Config.Store is nil")
	}
	if err := cfg.Plan.Validate().Err(); err != nil {
		return nil, fmt.Errorf("loop: the plan does not validate: %w", err)
	}
	// Components run elsewhere (plugins, programs in other directories) get
	// the tree by a path that means the same to them.
	wd, err := filepath.Abs(cmp.Or(cfg.WorkDir, "."))
	if err != nil {
		return nil, fmt.Errorf("loop: Config.WorkDir: %w", err)
	}
	cfg.WorkDir = wd
	if cfg.Workspace == nil || cfg.History == nil {
		if inGitRepo(wd) {
			g := &GitWorkspace{Dir: wd}
			cfg.Workspace, cfg.History = cmp.Or[Workspace](cfg.Workspace, g), cmp.Or[History](cfg.History, g)
		}
	}
	l := &Loop{cfg: cfg, ws: cfg.Workspace, hist: cfg.History, tasks: map[string]*task.Task{}, prev: map[string]string{}, now: cfg.Now, log: cfg.Logger,
		rec: newRecords(cfg.RecordsDir)}
	if l.now == nil {
		l.now = time.Now
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	l.digest, l.phaseOf, l.recovered = policy.PlanDigest(cfg.Plan), map[string]string{}, map[string]bool{}
	prev := ""
	for _, pt := range cfg.Plan.Tasks() {
		l.tasks[pt.Task.ID], l.prev[pt.Task.ID], prev = pt.Task, prev, pt.Task.ID
		l.phaseOf[pt.Task.ID] = pt.Phase.ID
	}
	return l, nil
}

// Result is how a run ended.
type Result struct {
	Outcome policy.Outcome
	Reason  string
	State   *policy.RunState
}

// Run starts the plan's run, or continues the one the store holds, and drives
// it until it ends. The error is nil when the run completed, an
// [*OutcomeError] when it ended otherwise (match it with errors.Is and the
// outcome sentinels), or the store's error when state could not be read or
// written. Cancelling ctx ends the run cancelled, in a state Resume continues.
func (l *Loop) Run(ctx context.Context) (*Result, error) {
	st, err := l.cfg.Store.Load(ctx)
	switch {
	case errors.Is(err, ErrNoState):
		l.st = &policy.RunState{}
		run := l.cfg.RunID
		if run == "" {
			run = l.now().UTC().Format("20060102T150405.000000000Z")
		}
		err = l.commit(ctx, []policy.Transition{{Kind: policy.TransRunStarted, Time: l.now(), Run: run, Plan: l.cfg.Plan.Name,
			PlanDigest: l.digest, Branch: l.cfg.Branch, Commits: l.cfg.CommitTasks}})
	case err == nil:
		l.st = st
		if err = l.samePlan(); err == nil && st.PlanDigest != "" && st.PlanDigest != l.digest {
			err = fmt.Errorf("loop: the plan %q changed since run %s started; Resume goes on with a changed plan", l.cfg.Plan.Name, st.Run)
		}
	}
	if err != nil {
		return nil, err
	}
	return l.drive(ctx)
}

// samePlan refuses to drive the store's run with another plan.
func (l *Loop) samePlan() error {
	if l.st.Plan != l.cfg.Plan.Name {
		return fmt.Errorf("loop: the store holds run %s of plan %q, not of plan %q", l.st.Run, l.st.Plan, l.cfg.Plan.Name)
	}
	return nil
}

// Resume reopens a run that ended without completing (cancelled, awaiting
// approval, stopped) and drives it on; approve also approves the milestone
// gate it waits at. The plan may have changed since the run started (a
// person changed a task that escalated); the change is recorded. A run that
// completed is not reopened: Resume only finishes what a crash may have cut
// off after its end (its records commit) and returns its result.
func (l *Loop) Resume(ctx context.Context, approve bool) (*Result, error) {
	st, err := l.cfg.Store.Load(ctx)
	if err != nil {
		return nil, err
	}
	l.st = st
	if err := l.samePlan(); err != nil {
		return nil, err
	}
	if st.Outcome == policy.Completed {
		return l.drive(ctx)
	}
	ts, err := l.cfg.Policy.Resume(st, approve, l.now())
	if err != nil {
		return nil, err
	}
	if st.PlanDigest != l.digest {
		ts = append(ts, policy.Transition{Kind: policy.TransPlanChanged, Time: l.now(), PlanDigest: l.digest})
	}
	if err := l.commit(ctx, ts); err != nil {
		return nil, err
	}
	return l.drive(ctx)
}

func (l *Loop) drive(ctx context.Context) (*Result, error) {
	l.repairRecords()
	if err := l.prepare(ctx); err != nil {
		return nil, err
	}
	h := (*host)(l)
	if err := h.Commit(ctx, nil); err != nil { // what a crash left owed
		return nil, err
	}
	step, err := l.cfg.Policy.Drive(ctx, l.cfg.Plan, l.st, h)
	if err != nil {
		return nil, err
	}
	return l.result(step)
}

// host is the loop as the policy's [policy.Host]: it takes each step with
// the components, and commits each transition before acting on it.
type host Loop

func (h *host) Now() time.Time { return h.now() }

// Commit commits ts, then what the state owes the world (a done task's
// commit, the records' at the end), so no step builds on a missing one; a
// commit that fails ends the run with outcome error.
func (h *host) Commit(ctx context.Context, ts []policy.Transition) error {
	l := (*Loop)(h)
	if err := l.commit(ctx, ts); err != nil {
		return err
	}
	if err := l.settle(ctx); err != nil {
		if l.st.Outcome != "" {
			l.log.Warn("loop: commit", "err", err)
			return nil
		}
		l.finish(ctx, policy.Failed, err.Error())
		if err := l.settle(ctx); err != nil {
			l.log.Warn("loop: commit", "err", err)
		}
	}
	return nil
}

func (h *host) Take(ctx context.Context, step policy.Step) ([]policy.Transition, error) {
	l := (*Loop)(h)
	switch step.Kind {
	case policy.StepGate:
		return l.gate(ctx, step)
	case policy.StepDebug:
		return l.debug(ctx, step)
	case policy.StepAttempt:
		return l.attempt(ctx, step)
	}
	return nil, fmt.Errorf("loop: step kind %q is not one this loop takes", step.Kind)
}

func (l *Loop) result(step policy.Step) (*Result, error) {
	r := &Result{Outcome: step.Outcome, Reason: step.Reason, State: l.st.Clone()}
	if step.Outcome == policy.Completed {
		return r, nil
	}
	oe := &policy.OutcomeError{Outcome: step.Outcome, Phase: l.st.AwaitingGate, Reason: step.Reason}
	for _, pt := range l.cfg.Plan.Tasks() {
		if ts := l.st.Tasks[pt.Task.ID]; ts != nil && ts.Status != policy.StatusDone {
			oe.Task = pt.Task.ID
			break
		}
	}
	return r, oe
}

// finish ends the run; a failure to record it surfaces at the next commit.
func (l *Loop) finish(ctx context.Context, o policy.Outcome, reason string) {
	err := l.commit(ctx, []policy.Transition{{Kind: policy.TransRunFinished, Time: l.now(), Outcome: o, Reason: reason}})
	if err != nil {
		l.log.Error("loop: record the end of the run", "outcome", o, "err", err)
	}
}

// commit makes ts durable, then applies them to the loop's copy of the state
// and reports them as events. Cancellation does not stop a commit: the run's
// record must say where it stopped.
func (l *Loop) commit(ctx context.Context, ts []policy.Transition) error {
	if len(ts) == 0 {
		return nil
	}
	if err := l.cfg.Store.Commit(context.WithoutCancel(ctx), ts...); err != nil {
		return err
	}
	for _, t := range ts {
		if err := l.st.Apply(t); err != nil {
			return err // the store accepted what the state rejects: a store bug
		}
		for _, e := range eventsOf(l.st.Run, t) {
			l.emit(e)
		}
		if t.Kind == policy.TransTaskFinished && t.Status == policy.StatusDone && l.commits() && l.st.Tasks[t.Task].Attempts > 0 {
			l.pending = append(l.pending, t.Task) // its commit is owed
		}
		if err := l.record(context.WithoutCancel(ctx), t); err != nil {
			l.log.Warn("loop: write records", "dir", l.cfg.RecordsDir, "err", err)
		}
	}
	if err := l.rec.flush(); err != nil {
		l.log.Warn("loop: write records", "dir", l.cfg.RecordsDir, "err", err)
	}
	return nil
}

// record keeps the audit log, handoffs and reports in step with a
// transition. Records are for people and prompts; failing to write one is
// logged and does not stop the run.
func (l *Loop) record(ctx context.Context, t policy.Transition) error {
	plan := l.cfg.Plan.Name
	switch t.Kind {
	case policy.TransAttemptFinished:
		tk := l.tasks[t.Task]
		a := l.rec.audit(plan, l.st.Run, l.st.Phase, t.Task, tk.Title)
		a.Attempts = append(a.Attempts, AuditAttempt{Attempt: t.Attempt, Elapsed: t.Elapsed, Tokens: t.Tokens, CostUSD: t.CostUSD, Failure: t.Failure})
		for _, f := range l.findings {
			a.Findings = append(a.Findings, fmt.Sprintf("attempt %d: [%s] %s:%d %s", t.Attempt, f.Severity, f.File, f.Line, f.Message))
		}
		for _, f := range l.minor {
			a.Findings = append(a.Findings, fmt.Sprintf("attempt %d: %s", t.Attempt, f))
		}
		return l.rec.saveAudit(a)
	case policy.TransAttemptVoided:
		a := l.rec.audit(plan, l.st.Run, l.st.Phase, t.Task, l.tasks[t.Task].Title)
		a.Attempts = append(a.Attempts, AuditAttempt{Attempt: t.Attempt, Voided: t.Reason})
		return l.rec.saveAudit(a)
	case policy.TransDebuggerFinished:
		if t.NoDebugger {
			return nil
		}
		a := l.rec.audit(plan, l.st.Run, l.st.Phase, t.Task, l.tasks[t.Task].Title)
		a.Debugger = &AuditDebugger{AfterAttempt: l.st.Tasks[t.Task].DebuggedAt, Found: t.Found}
		if d := l.diagnosis; d != nil && t.Found {
			a.Debugger.RootCause, a.Debugger.Fix = d.RootCause, d.Fix
		} else if d != nil {
			a.Debugger.FiveWhys = d.FiveWhys
		}
		return l.rec.saveAudit(a)
	case policy.TransTaskFinished:
		ts := l.st.Tasks[t.Task]
		a := l.rec.audit(plan, l.st.Run, l.st.Phase, t.Task, l.tasks[t.Task].Title)
		a.Status, a.Reason, a.Escalated = t.Status, t.Reason, t.Status != policy.StatusDone
		if err := l.rec.saveAudit(a); err != nil {
			return err
		}
		l.learn(ctx, t.Task)
		if t.Status != policy.StatusDone {
			return nil
		}
		h := &Handoff{Task: t.Task, Phase: l.st.Phase, Status: t.Status, Attempts: ts.Attempts, Checks: l.passed, Findings: l.minor, FilesChanged: l.files}
		if l.last != nil {
			h.Summary = l.last.Summary
		}
		l.last, l.passed, l.minor, l.files = nil, nil, nil, nil
		return l.rec.saveHandoff(h)
	case policy.TransRunFinished:
		switch {
		case t.Outcome == policy.Completed:
			var hs []*Handoff
			for _, pt := range l.cfg.Plan.Tasks() {
				if h := l.rec.handoff(pt.Task.ID); h != nil {
					hs = append(hs, h)
				}
			}
			return l.rec.writeText(summaryFile, completionSummary(l.st, hs))
		case t.Outcome == policy.StoppedByGuardrail || t.Outcome.NeedsPerson() && t.Outcome != policy.AwaitingApproval:
			// The task that ended the run: the one that did not get done, or
			// the one a guardrail stopped while it ran.
			for _, pt := range l.cfg.Plan.Tasks() {
				if ts := l.st.Tasks[pt.Task.ID]; ts != nil && (ts.Status == policy.StatusRunning || ts.Status.Terminal() && ts.Status != policy.StatusDone) {
					a := l.rec.audit(plan, l.st.Run, pt.Phase.ID, pt.Task.ID, pt.Task.Title)
					return l.rec.writeText(fmt.Sprintf(escalationFn, pt.Task.ID, l.st.Seq), escalationReport(l.st, a))
				}
			}
		}
	}
	return nil
}

// repairRecords writes what a crash kept the records from holding: records
// follow the state's commits, so a crash between the two leaves the state
// ahead. Each task's audit log gets the attempts and end the state knows
// of, a done task its handoff (what only the lost process knew, like the
// executor's summary, stays lost), and a completed run its summary.
func (l *Loop) repairRecords() {
	if l.cfg.RecordsDir == "" {
		return
	}
	plan := l.cfg.Plan.Name
	for _, pt := range l.cfg.Plan.Tasks() {
		id := pt.Task.ID
		ts := l.st.Tasks[id]
		if ts == nil || ts.Attempts == 0 {
			continue
		}
		a := l.rec.audit(plan, l.st.Run, pt.Phase.ID, id, pt.Task.Title)
		if a.repair(ts) {
			l.rec.saveAudit(a)
		}
		if ts.Status == policy.StatusDone && l.rec.handoff(id) == nil {
			l.rec.saveHandoff(&Handoff{Task: id, Phase: pt.Phase.ID, Status: ts.Status, Attempts: ts.Attempts})
		}
	}
	if err := l.rec.flush(); err != nil {
		l.log.Warn("loop: write records", "dir", l.cfg.RecordsDir, "err", err)
	}
	if l.st.Outcome == policy.Completed {
		var hs []*Handoff
		for _, pt := range l.cfg.Plan.Tasks() {
			if h := l.rec.handoff(pt.Task.ID); h != nil {
				hs = append(hs, h)
			}
		}
		if err := l.rec.writeText(summaryFile, completionSummary(l.st, hs)); err != nil {
			l.log.Warn("loop: write records", "dir", l.cfg.RecordsDir, "err", err)
		}
	}
}

func (l *Loop) emit(e Event) {
	if e.Run == "" {
		e.Run = l.st.Run
	}
	if e.Time.IsZero() {
		e.Time = l.now()
	}
	l.log.Info(string(e.Type), "run", e.Run, "phase", e.Phase, "task", e.Task, "attempt", e.Attempt, "msg", e.Message)
	if l.cfg.Observer != nil {
		func() {
			defer func() { recover() }() // observers cannot fail the run
			l.cfg.Observer.Observe(e)
		}()
	}
}

func (l *Loop) gate(ctx context.Context, step policy.Step) ([]policy.Transition, error) {
	dec := &policy.GateDecision{Verdict: policy.Defer}
	if g := l.cfg.Gate; g != nil {
		req := l.gateRequest(l.phase(step.Phase))
		var err error
		dec, err = guard(func() (*policy.GateDecision, error) { return g.Approve(ctx, req) })
		if err != nil {
			return nil, fmt.Errorf("loop: gate: %w", err)
		}
		if dec == nil {
			dec = &policy.GateDecision{Verdict: policy.Defer}
		}
	}
	return l.cfg.Policy.ObserveGate(l.st, step.Phase, *dec, l.now())
}

// gateRequest describes the milestone after ph: what its tasks' checks
// proved, and the checklist a person confirms, the tasks' manual acceptance
// items among it.
func (l *Loop) gateRequest(ph *task.Phase) *GateRequest {
	req := &GateRequest{Run: l.st.Run, Plan: l.cfg.Plan.Name, Phase: ph.ID, Title: ph.Title, Next: l.nextPhase(ph.ID)}
	req.Manual = policy.ManualItems(ph)
	if ph.Milestone != nil {
		req.Manual = append(req.Manual, ph.Milestone.Manual...)
	}
	var passed, files []string
	for j := range ph.Tasks {
		id := ph.Tasks[j].ID
		h := l.rec.handoff(id)
		if ts := l.st.Tasks[id]; ts == nil || ts.Status != policy.StatusDone || h == nil {
			continue
		}
		item := id
		if len(h.Checks) > 0 {
			item += " (" + strings.Join(h.Checks, ", ") + ")"
		}
		passed = append(passed, item)
		for _, f := range h.FilesChanged {
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Automated passed: %s", cmpOr(strings.Join(passed, "; "), "nothing"))
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
	found := false
	if l.cfg.Debugger == nil {
		return l.cfg.Policy.ObserveNoDebugger(l.st, step.Task, l.now())
	}
	if d := l.cfg.Debugger; d != nil {
		ctx, cancel := context.WithTimeoutCause(ctx, step.TimeLeft, ErrTaskTimeout)
		defer cancel()
		req := &executor.DebugRequest{Task: l.tasks[step.Task], PhaseID: step.Phase, WorkDir: l.cfg.WorkDir,
			Failures: l.failuresOf(step.Task)}
		// The two failed attempts' trees, and how the second differs.
		req.Diff, _ = l.diff(ctx, l.trees[step.Attempt-1], l.trees[step.Attempt])
		diag, err := guard(func() (*executor.Diagnosis, error) { return d.Debug(ctx, req) })
		switch {
		case err != nil:
			l.log.Warn("loop: the debugger failed; treating it as no root cause", "task", step.Task, "err", err)
		case diag != nil:
			found, l.diagnosis = diag.Found, diag
		}
	}
	return l.cfg.Policy.ObserveDiagnosis(l.st, step.Task, found, l.now())
}

func (l *Loop) attempt(ctx context.Context, step policy.Step) ([]policy.Transition, error) {
	t := l.tasks[step.Task]
	if step.Attempt == 1 || l.tails == nil {
		l.tails, l.trees, l.findings, l.diagnosis, l.warnings, l.base = map[int]string{}, map[int]string{}, nil, nil, nil, ""
	}
	start := l.now()
	actx, cancel := context.WithTimeoutCause(ctx, step.TimeLeft, ErrTaskTimeout)
	defer cancel()
	// The prompt is assembled first: asking the assets marks them accessed,
	// a write of harnish's own that must not fall inside the agent's change.
	parts := executor.PromptParts{Spec: executor.Spec(t), Prohibitions: executor.Prohibitions(l.cfg.Plan.Guardrails), Handoffs: l.handoffsFor(t), Failures: l.failuresOf(t.ID),
		Findings: l.findings, Diagnosis: l.diagnosis, Warnings: l.warnings, Assets: l.experience(ctx, t, step.Phase)}
	req := &executor.Request{Task: t, PhaseID: step.Phase, Attempt: step.Attempt, WorkDir: l.cfg.WorkDir,
		Prompt: executor.RenderWithin(parts, cmp.Or(l.cfg.PromptBudget, executor.DefaultPromptBudget)), Parts: parts}
	l.findings, l.minor, l.last, l.warnings = nil, nil, nil, nil // this attempt's own come from check and the audit
	if dl, ok := actx.Deadline(); ok {
		req.Limits.Deadline = dl
	}
	req.Limits.Tokens, req.Limits.CostUSD = step.TokensLeft, step.CostLeft
	// The agent's change is what the tree gained between these two
	// snapshots, and nothing of harnish's runs between them.
	before, err := l.snapshot(ctx, "before", step)
	if err != nil {
		return nil, err
	}
	if l.base == "" {
		l.base = before
	}
	res, err := guard(func() (*executor.Result, error) { return l.cfg.Executor.Execute(actx, req) })
	if ctx.Err() != nil {
		return nil, context.Cause(ctx) // cancelled: the attempt stays unreported and counts on resume
	}
	after, serr := l.snapshot(context.WithoutCancel(ctx), "after", step)
	if serr != nil {
		return nil, serr
	}
	l.trees[step.Attempt] = after
	r := policy.AttemptReport{Task: t.ID, Attempt: step.Attempt}
	if l.cfg.Guardrail != nil {
		stop, gerr := l.auditChange(context.WithoutCancel(actx), step, before, after)
		if gerr != nil {
			return nil, gerr
		}
		r.Stop = stop
	}
	l.hookViolations(step, res, err, &r)
	var usage executor.Usage
	switch {
	case r.Stop != nil:
		if res != nil {
			usage = res.Usage
		}
	case err != nil:
		var ee *executor.Error
		kind := executor.KindCrashed
		if errors.As(err, &ee) {
			usage, kind = ee.Usage, ee.Kind
		}
		if kind == executor.KindUnavailable {
			// The executor cannot run at all; another attempt would fail the
			// same way, and the agent is not to blame.
			return l.cfg.Policy.ObserveVoid(l.st, t.ID, step.Attempt, err.Error(), l.now())
		}
		if errors.Is(context.Cause(actx), ErrTaskTimeout) {
			kind = executor.KindTimeout
		}
		r.Failure = &policy.Failure{Attempt: step.Attempt, Kind: policy.FailExecutor, Fingerprint: "executor:" + string(kind),
			Class: string(kind), Reason: err.Error()}
		if ee != nil && ee.Tail != "" {
			l.tails[step.Attempt] = ee.Tail
		}
	case res == nil || !res.Status.Valid():
		r.Failure = &policy.Failure{Attempt: step.Attempt, Kind: policy.FailExecutor, Fingerprint: "executor:protocol",
			Class: string(executor.KindProtocol), Reason: "the executor claimed no valid status"}
	case res.Status == executor.StatusBlocked:
		usage = res.Usage
		r.Failure = &policy.Failure{Attempt: step.Attempt, Kind: policy.FailBlocked, Reason: res.Reason}
	default:
		usage, l.last = res.Usage, res
		if err := l.check(actx, t, step, after, &r); err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			// The checks could not run: a fault of the harness, not of the
			// agent's change, so the attempt does not count.
			return l.cfg.Policy.ObserveVoid(l.st, t.ID, step.Attempt, err.Error(), l.now())
		}
	}
	r.Elapsed, r.Tokens, r.CostUSD = l.now().Sub(start), usage.Tokens(), usage.CostUSD
	if l.cfg.Rollback && r.Failure != nil && r.Stop == nil {
		l.rollback(ctx, step, before)
	}
	return l.cfg.Policy.ObserveAttempt(l.st, r, l.now())
}

// snapshot reads the working tree as a git tree, when anything needs it: the
// audit and the rollback cannot go without it (an error), while the
// reviewer's and debugger's diffs are given when it can be had ("" when not).
func (l *Loop) snapshot(ctx context.Context, when string, step policy.Step) (string, error) {
	required := l.cfg.Guardrail != nil || l.cfg.Rollback
	switch {
	case l.ws == nil && required:
		return "", fmt.Errorf("loop: the guardrail's audit and the rollback need a Workspace, and %s is not a git working tree", l.workDir())
	case l.ws == nil, !required && l.cfg.Reviewer == nil && l.cfg.Debugger == nil:
		return "", nil
	}
	tree, err := l.ws.Snapshot(ctx)
	if err != nil && required {
		return "", fmt.Errorf("loop: read the working tree %s attempt %d of %s: %w", when, step.Attempt, step.Task, err)
	}
	if err != nil {
		l.log.Warn("loop: read the working tree", "task", step.Task, "attempt", step.Attempt, "err", err)
	}
	return tree, nil
}

// inGitRepo reports whether dir is in a git repository.
func inGitRepo(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}

// diff returns the change from one snapshot to another and the paths it
// touches; empty when either is unknown or reading it fails.
func (l *Loop) diff(ctx context.Context, from, to string) (string, []string) {
	if from == "" || to == "" || from == to {
		return "", nil
	}
	d, err := l.ws.Diff(ctx, from, to)
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
// during the attempt (by the agent's hooks, or by the executor itself), and
// stops the run on the first hard one unless the audit already did.
func (l *Loop) hookViolations(step policy.Step, res *executor.Result, err error, r *policy.AttemptReport) {
	var vs []executor.Violation
	if ee, ok := errors.AsType[*executor.Error](err); ok {
		vs = ee.Violations
	} else if err == nil && res != nil {
		vs = res.Violations
	}
	for _, v := range vs {
		level := "soft"
		if v.Hard {
			level = "hard"
		}
		l.emit(Event{Type: GuardrailViolated, Phase: step.Phase, Task: step.Task, Attempt: step.Attempt,
			Level: level, Rule: v.Rule, Message: v.Reason})
		switch {
		case !v.Hard:
			l.warnings = append(l.warnings, executor.Warning{Rule: v.Rule, Reason: v.Reason})
		case r.Stop == nil:
			r.Stop = &policy.GuardrailStop{Rule: v.Rule, Reason: v.Reason}
		}
	}
}

// auditChange passes what the attempt changed through the guardrail. The
// first hard decision is returned as the stop; every soft one is reported and
// kept for the next attempt's prompt.
func (l *Loop) auditChange(ctx context.Context, step policy.Step, before, after string) (*policy.GuardrailStop, error) {
	if after == before {
		return nil, nil
	}
	diff, err := l.ws.Diff(ctx, before, after)
	if err != nil {
		return nil, fmt.Errorf("loop: diff of attempt %d of %s: %w", step.Attempt, step.Task, err)
	}
	var stop *policy.GuardrailStop
	for _, d := range guardrail.EvaluateAll(ctx, l.cfg.Guardrail, guardrail.Action{Kind: guardrail.KindEdit, Diff: diff, Task: step.Task}) {
		l.emit(Event{Type: GuardrailViolated, Phase: step.Phase, Task: step.Task, Attempt: step.Attempt,
			Level: d.Level.String(), Rule: d.Rule, Message: d.Reason})
		switch {
		case d.Level == guardrail.Soft:
			l.warnings = append(l.warnings, executor.Warning{Rule: d.Rule, Reason: d.Reason})
		case stop == nil:
			stop = &policy.GuardrailStop{Rule: d.Rule, Reason: d.Reason}
		}
	}
	return stop, nil
}

// rollback restores the tree of before a failed attempt. A failure to is
// logged: the next attempt then starts from the tree as it is.
func (l *Loop) rollback(ctx context.Context, step policy.Step, before string) {
	ctx = context.WithoutCancel(ctx)
	after, err := l.ws.Snapshot(ctx)
	if err == nil && after != before {
		err = l.ws.Restore(ctx, before, after)
	}
	if err != nil {
		l.log.Warn("loop: roll back a failed attempt", "task", step.Task, "attempt", step.Attempt, "err", err)
	}
}

func (l *Loop) workDir() string {
	if l.cfg.WorkDir == "" {
		return "."
	}
	return l.cfg.WorkDir
}

// check runs the verifier and, when it passes, the reviewer, and records what
// they found in r and for the next attempt's prompt.
func (l *Loop) check(ctx context.Context, t *task.Task, step policy.Step, after string, r *policy.AttemptReport) error {
	rep, err := guard(func() (*verify.Report, error) {
		return l.cfg.Verifier.Verify(ctx, &verify.Request{Task: t, PhaseID: step.Phase, WorkDir: l.cfg.WorkDir, Attempt: step.Attempt})
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
	if !rep.Passed {
		fp := rep.Fingerprint
		l.emit(Event{Type: VerifyFailed, Phase: step.Phase, Task: t.ID, Attempt: step.Attempt, Fingerprint: fp.String(), Message: fp.Summary})
		r.Failure = &policy.Failure{Attempt: step.Attempt, Kind: policy.FailVerify, Fingerprint: fp.String(), Class: string(fp.Class), Reason: fp.Summary}
		for _, c := range rep.Checks {
			if !c.Passed {
				l.tails[step.Attempt] = c.OutputTail
				break
			}
		}
		return nil
	}
	l.emit(Event{Type: VerifyPassed, Phase: step.Phase, Task: t.ID, Attempt: step.Attempt})
	l.passed = l.passed[:0]
	for _, c := range rep.Checks {
		l.passed = append(l.passed, c.Name)
	}
	// The task's change so far: from the tree before its first attempt.
	diff, files := l.diff(ctx, l.base, after)
	if files == nil && l.last != nil {
		files = l.last.FilesChanged // no git: the executor's word is all there is
	}
	l.files = files
	if l.cfg.Reviewer == nil {
		return nil
	}
	req := &verify.ReviewRequest{Task: t, PhaseID: step.Phase, WorkDir: l.cfg.WorkDir, Attempt: step.Attempt, Diff: diff, Files: files}
	rev, err := guard(func() (*verify.Review, error) { return l.cfg.Reviewer.Review(ctx, req) })
	if err != nil {
		return fmt.Errorf("loop: review task %s: %w", t.ID, err)
	}
	if rev == nil {
		rev = &verify.Review{} // nothing to say
	}
	if len(rev.Findings) > 0 {
		l.emit(Event{Type: ReviewFindings, Phase: step.Phase, Task: t.ID, Attempt: step.Attempt,
			Message: fmt.Sprintf("%d finding(s), %d critical", len(rev.Findings), len(rev.Critical()))})
	}
	l.minor = nil
	for _, f := range rev.Findings {
		if f.Severity != verify.SeverityCritical {
			l.minor = append(l.minor, fmt.Sprintf("[%s] %s:%d %s", f.Severity, f.File, f.Line, f.Message))
		}
	}
	if crit := rev.Critical(); len(crit) > 0 {
		r.Failure = &policy.Failure{Attempt: step.Attempt, Kind: policy.FailReview, Keys: verify.Keys(crit),
			Reason: fmt.Sprintf("%d critical review findings", len(crit))}
		for _, f := range crit {
			l.findings = append(l.findings, executor.Finding{Severity: f.Severity.String(), File: f.File, Line: f.Line, Message: f.Message, Rule: f.Rule})
		}
	}
	return nil
}

func hasManual(t *task.Task) bool {
	for _, c := range t.Acceptance {
		if c.Manual != "" {
			return true
		}
	}
	return false
}

// maxAssetText bounds the experience put into one prompt.
const maxAssetText = 4000

// experience returns the assets for t's tags and phase, rendered for a
// prompt within maxAssetText characters.
func (l *Loop) experience(ctx context.Context, t *task.Task, phase string) []executor.Asset {
	if l.cfg.Assets == nil {
		return nil
	}
	q := asset.Query{Tags: append(slices.Clone(t.Tags), phase), Limit: 5, MarkAccessed: true}
	found, err := guard(func() ([]*asset.Asset, error) { return l.cfg.Assets.Query(ctx, q) })
	if err != nil {
		l.log.Warn("loop: query the assets", "task", t.ID, "err", err)
		return nil
	}
	texts := asset.Render(found, maxAssetText)
	out := make([]executor.Asset, len(texts))
	for i, text := range texts {
		a := found[i]
		out[i] = executor.Asset{Type: string(a.Type), Slug: a.Slug, Title: a.Title, Text: text}
	}
	return out
}

// learn records what a finished task taught: a failure mode that repeated
// and was then resolved, or a first-try success the executor marks as
// generalizable.
func (l *Loop) learn(ctx context.Context, id string) {
	if l.cfg.Assets == nil {
		return
	}
	t, ts := l.tasks[id], l.st.Tasks[id]
	tags := append(slices.Clone(t.Tags), l.st.Phase)
	var a *asset.Asset
	switch {
	case ts.Status != policy.StatusDone:
		// A task that ended for a person after failing teaches the next run
		// what did not work, as the engine records failures on escalation.
		n := len(ts.Failures)
		if n == 0 || ts.Failures[n-1].Attempt <= ts.Base || ts.Status == policy.StatusBlocked {
			return
		}
		last := ts.Failures[n-1]
		resolved := false
		a = &asset.Asset{Type: asset.TypeFailure, Title: t.Title + ": " + last.Describe(), Tags: tags, Resolved: &resolved,
			Context: fmt.Sprintf("plan %s, task %s %s after %d attempts, fingerprint %s", l.cfg.Plan.Name, id, ts.Status, ts.Attempts-ts.Base, last.Fingerprint),
			Body:    "Unresolved: " + ts.Reason}
		if d := l.diagnosis; d != nil && len(d.FiveWhys) > 0 {
			a.Body += "\nFive whys:\n- " + strings.Join(d.FiveWhys, "\n- ")
		}
	case ts.DebuggedAt > 0 && ts.RootCause:
		var repeated policy.Failure
		for _, f := range ts.Failures {
			if f.Attempt == ts.DebuggedAt {
				repeated = f
			}
		}
		resolved := true
		a = &asset.Asset{Type: asset.TypeFailure, Title: t.Title + ": " + repeated.Describe(), Tags: tags, Resolved: &resolved,
			Context: fmt.Sprintf("plan %s, task %s, fingerprint %s", l.cfg.Plan.Name, id, repeated.Fingerprint)}
		if d := l.diagnosis; d != nil {
			a.Body = fmt.Sprintf("Root cause: %s\nFix: %s", d.RootCause, d.Fix)
		}
	case ts.Attempts == 1 && l.last != nil && l.last.Generalizable:
		a = &asset.Asset{Type: asset.TypePattern, Title: t.Title, Tags: tags, Body: l.last.Summary,
			Context: fmt.Sprintf("plan %s, task %s, first try", l.cfg.Plan.Name, id)}
	default:
		return
	}
	a.Session = l.st.Run
	if _, err := guard(func() (struct{}, error) { return struct{}{}, l.cfg.Assets.Record(ctx, a) }); err != nil {
		l.log.Warn("loop: record an asset", "task", id, "err", err)
	}
}

// handoffsFor returns the handoffs of t's dependencies, or, for a task that
// depends on nothing, of the task before it in the plan.
func (l *Loop) handoffsFor(t *task.Task) []executor.Handoff {
	ids := t.DependsOn
	if len(ids) == 0 && l.prev[t.ID] != "" {
		ids = []string{l.prev[t.ID]}
	}
	var out []executor.Handoff
	for _, id := range ids {
		if h := l.rec.handoff(id); h != nil {
			out = append(out, executor.Handoff{TaskID: id, Text: h.Text()})
		}
	}
	return out
}

// failuresOf returns the task's failed attempts, from the durable state,
// with the output tails this process saw.
func (l *Loop) failuresOf(id string) []executor.Failure {
	ts := l.st.Tasks[id]
	if ts == nil {
		return nil
	}
	out := make([]executor.Failure, 0, len(ts.Failures))
	for _, f := range ts.Failures {
		class := f.Class
		if class == "" {
			class = string(f.Kind)
		}
		out = append(out, executor.Failure{Attempt: f.Attempt, Class: class, Fingerprint: f.Fingerprint,
			Summary: f.Describe(), OutputTail: l.tails[f.Attempt]})
	}
	return out
}

func (l *Loop) phase(id string) *task.Phase {
	for i := range l.cfg.Plan.Phases {
		if l.cfg.Plan.Phases[i].ID == id {
			return &l.cfg.Plan.Phases[i]
		}
	}
	return &task.Phase{ID: id}
}

func (l *Loop) nextPhase(id string) string {
	ps := l.cfg.Plan.Phases
	for i := range ps {
		if ps[i].ID == id && i+1 < len(ps) {
			return ps[i+1].ID
		}
	}
	return ""
}

// guard calls user code and turns a panic into an error, so one bad
// component never takes the host down.
func guard[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p}
		}
	}()
	return f()
}

// PanicError is a panic inside a component, recovered by the loop.
type PanicError struct{ Value any }

func (e *PanicError) Error() string { return fmt.Sprintf("loop: a component panicked: %v", e.Value) }

// eventsOf returns the events a transition stands for.
func eventsOf(run string, t policy.Transition) []Event {
	e := Event{Time: t.Time, Run: run, Phase: t.Phase, Task: t.Task, Attempt: t.Attempt, Message: t.Reason}
	switch t.Kind {
	case policy.TransRunStarted:
		e.Type = RunStarted
	case policy.TransTaskStarted:
		e.Type = TaskStarted
	case policy.TransAttemptStarted:
		e.Type = AttemptStarted
	case policy.TransAttemptFinished:
		e.Type, e.Tokens, e.CostUSD = AttemptFinished, t.Tokens, t.CostUSD
		if f := t.Failure; f != nil {
			e.Fingerprint, e.Message = f.Fingerprint, string(f.Kind)+" failure"
			if f.Reason != "" {
				e.Message += ": " + f.Why()
			}
		}
	case policy.TransAttemptVoided:
		e.Type, e.Message = AttemptFinished, "voided: "+t.Reason
	case policy.TransDebuggerFinished:
		if t.NoDebugger {
			return nil // no debugger ran; the task's halt says why
		}
		e.Type, e.Message = DebuggerInvoked, "root cause found"
		if !t.Found {
			e.Message = "no root cause"
			return []Event{e, {Time: t.Time, Type: FiveWhysRecorded, Run: run, Task: t.Task}}
		}
	case policy.TransTaskFinished:
		e.Type = map[policy.TaskStatus]EventType{policy.StatusDone: TaskDone, policy.StatusEscalated: TaskEscalated, policy.StatusHalted: TaskHalted, policy.StatusBlocked: TaskBlocked}[t.Status]
	case policy.TransGateReached:
		e.Type = MilestoneReached
	case policy.TransGateApproved:
		e.Type = MilestoneApproved
	case policy.TransRunFinished:
		e.Type, e.Outcome = RunFinished, t.Outcome
	default:
		return nil
	}
	return []Event{e}
}
