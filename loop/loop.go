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
	"sync"
	"time"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/gitx"
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
	// Advisor is consulted where Policy.Advisor, else the plan's advisor
	// settings, say: before a high-risk task, at a repeated failure, before
	// a review plateau escalates. With neither set, at all three, beside
	// the debugger. Nil: no advisor; a plan that names one goes on as if it
	// had no answer.
	Advisor executor.Advisor
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
	Assets asset.Experience
	// Gate decides at milestones. Nil: every gate defers, and the run ends
	// awaiting approval.
	Gate  Gate
	Store Store
	// Observer receives the events. Nil: none.
	Observer Observer
	// Logger receives the events as log records too. Nil: silence.
	Logger *slog.Logger
	// Policy holds the host's budget overrides, its cap on tasks side by
	// side and its escalation policy. The plan's parallel phases run their
	// tasks side by side only when the Workspace is a [Forker] and the run
	// commits its tasks (CommitTasks, a History): each task then works in a
	// fork of its own, and the merge queue brings its change onto the
	// run's branch. Otherwise the Loop takes one task at a time.
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
	// have no change to judge or undo, an error at the first attempt). A
	// tree without git can have a [DirWorkspace].
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
	// TranscriptDir keeps each attempt's transcript (the agent's raw
	// stream, its exit code and stderr) as <task>-<attempt>.jsonl
	// ([TranscriptPath]): the loop names the file in the executor's request
	// (executor.Request.Transcript), and the audit log names it too. Empty:
	// the loop asks for none.
	TranscriptDir string
	// SessionNotes is asked, once when the run completes, whether and where
	// to save its completion summary in the working tree (see
	// [SaveSessionNotes]); it needs RecordsDir. Nil: the summary stays in
	// RecordsDir alone.
	SessionNotes SessionNotes
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

	ws     Workspace // nil: none to read the tree with
	hist   History   // nil: no commits
	forker Forker    // nil: tasks run one at a time, in the tree
	// maxParallel is the host's cap on tasks side by side (Policy.MaxParallel).
	maxParallel int
	digest      string // of the plan
	phaseOf     map[string]string
	order       []string       // the plan's task IDs in order
	index       map[string]int // task ID -> its position in order

	// mu guards the state, the records, the commits owed and runs while
	// steps of tasks side by side are taken concurrently: host.Commit holds
	// it, and a step holds it only to read what it needs and to report.
	mu sync.Mutex
	// emu keeps the observer's calls one at a time; it is taken after mu.
	emu sync.Mutex
	// queue is the merge queue: forked tasks are integrated one at a time,
	// in the order their checks passed.
	queue sync.Mutex
	// qmu guards waiting, the tasks in the queue or being integrated.
	qmu     sync.Mutex
	waiting []string
	// runs holds what a task's next step should know beyond the durable
	// state, per task.
	runs map[string]*taskRun

	// Commits the state owes: done tasks not yet committed, in order.
	pending      []owedCommit
	commitFailed bool // a task's commit failed: no further commit this drive
	// followed says Follow readied the tree in this process (repair, prepare).
	followed bool
	rec      *records
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
		if gitx.InRepo(wd) {
			g := &GitWorkspace{Dir: wd}
			cfg.Workspace, cfg.History = cmp.Or[Workspace](cfg.Workspace, g), cmp.Or[History](cfg.History, g)
		}
	}
	if cfg.Advisor != nil && cfg.Policy.Advisor == nil && cfg.Plan.Advisor == nil {
		cfg.Policy.Advisor = &task.Advisor{}
	}
	if cfg.Policy.Stuck == nil {
		cfg.Policy.Stuck = &cfg.Plan.Stuck
	}
	l := &Loop{cfg: cfg, ws: cfg.Workspace, hist: cfg.History, tasks: map[string]*task.Task{}, prev: map[string]string{}, now: cfg.Now, log: cfg.Logger,
		runs: map[string]*taskRun{}, maxParallel: cfg.Policy.MaxParallel,
		rec: newRecords(cfg.RecordsDir)}
	if l.now == nil {
		l.now = time.Now
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	l.digest, l.phaseOf, l.index = policy.PlanDigest(cfg.Plan), map[string]string{}, map[string]int{}
	prev := ""
	for _, pt := range cfg.Plan.Tasks() {
		l.tasks[pt.Task.ID], l.prev[pt.Task.ID], prev = pt.Task, prev, pt.Task.ID
		l.phaseOf[pt.Task.ID] = pt.Phase.ID
		l.index[pt.Task.ID] = len(l.order)
		l.order = append(l.order, pt.Task.ID)
	}
	return l, nil
}

// taskRun is what a task's steps carry from one to the next in this
// process: a crash loses it, and nothing the rules decide depends on it.
type taskRun struct {
	trees  map[int]string   // the tree each attempt left, for the debugger's diff
	base   string           // the tree before the task's first attempt here
	last   *executor.Result // the last attempt's claim
	passed []string         // names of the checks that passed last
	files  []string         // the files the task's change touches, as of its last check
	minor  []string         // review findings below critical, last round
	fork   *Fork            // the task's working copy, when it runs beside others

	filesFrom string // where files came from: "diff", or "executor"
}

// runOf returns the task's taskRun, made anew at its first attempt. l.mu
// must be held.
func (l *Loop) runOf(id string, attempt int) *taskRun {
	tr := l.runs[id]
	if tr == nil || attempt == 1 {
		tr = &taskRun{trees: map[int]string{}}
		l.runs[id] = tr
	}
	return tr
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

// ResumeOptions say how [Loop.Resume] reopens a run. The zero value reopens
// it as it stood.
type ResumeOptions struct {
	// Approve approves the milestone gate the run waits at, as a person
	// does who has gone through its checklist.
	Approve bool
}

// Resume reopens a run that ended without completing (cancelled, awaiting
// approval, stopped) and drives it on, as opts say. The plan may have changed since the run started (a
// person changed a task that escalated); the change is recorded. A run that
// completed is not reopened: Resume only finishes what a crash may have cut
// off after its end (its records commit) and returns its result.
func (l *Loop) Resume(ctx context.Context, opts ResumeOptions) (*Result, error) {
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
	ts, err := l.cfg.Policy.Resume(st, opts.Approve, l.now())
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
	// Tasks run side by side only in forks of their own, whose changes the
	// merge queue commits; without, one at a time in the tree.
	l.forker, l.cfg.Policy.MaxParallel = nil, 1
	if fk, ok := l.ws.(Forker); ok && l.commits() {
		l.forker, l.cfg.Policy.MaxParallel = fk, l.maxParallel
	}
	l.repairRecords(ctx)
	if l.cfg.RecordsDir != "" {
		os.Remove(filepath.Join(l.cfg.RecordsDir, QueueFile)) // a crash's; the queue is empty at the start
	}
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
	if err := h.commitLocked(ctx, ts); err != nil {
		return err
	}
	(*Loop)(h).pace(ctx, ts)
	return nil
}

// pace waits the plan's pacing after a task ended, before the next is
// decided, unless the run is over or no task is left; cancelling ctx cuts the wait short. The
// wait comes before any attempt is recorded, so a stop during it costs
// nothing, and a resume simply goes on.
func (l *Loop) pace(ctx context.Context, ts []policy.Transition) {
	wait := l.cfg.Plan.Pacing.Std()
	if wait <= 0 || l.st.Outcome != "" || !slices.ContainsFunc(ts, func(t policy.Transition) bool { return t.Kind == policy.TransTaskFinished }) {
		return
	}
	if l.st.Running == 0 && l.allEnded() {
		return // no task is left to wait for
	}
	l.log.Info("loop: pacing before the next task", "wait", wait)
	select {
	case <-ctx.Done():
	case <-time.After(wait):
	}
}

// allEnded reports whether every task of the plan has ended.
func (l *Loop) allEnded() bool {
	for i := range l.cfg.Plan.Phases {
		for _, t := range l.cfg.Plan.Phases[i].Tasks {
			if ts := l.st.Tasks[t.ID]; ts == nil || !ts.Status.Terminal() {
				return false
			}
		}
	}
	return true
}

func (h *host) commitLocked(ctx context.Context, ts []policy.Transition) error {
	l := (*Loop)(h)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.commit(ctx, ts); err != nil {
		return err
	}
	if err := l.settle(ctx); err != nil {
		if l.st.Outcome != "" {
			l.log.Warn("loop: commit", "err", err)
			return nil
		}
		l.finish(ctx, policy.Errored, err.Error())
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
	case policy.StepAdvise:
		return l.advise(ctx, step)
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

func (l *Loop) workDir() string {
	if l.cfg.WorkDir == "" {
		return "."
	}
	return l.cfg.WorkDir
}

func (l *Loop) phase(id string) *task.Phase {
	for i := range l.cfg.Plan.Phases {
		if l.cfg.Plan.Phases[i].ID == id {
			return &l.cfg.Plan.Phases[i]
		}
	}
	return &task.Phase{ID: id}
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
