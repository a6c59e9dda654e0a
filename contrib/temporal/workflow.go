package temporal

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.temporal.io/sdk/activity"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// Names a client uses to reach a run's workflow.
const (
	// WorkflowName is the registered name of [Run].
	WorkflowName = "harnish.run"
	// QueryStatus answers the run's state, *policy.RunState: the document
	// "harnish status --json" prints for a run of the CLI.
	QueryStatus = "status"
	// QueryChecklist answers the milestone gate the run waits at, a
	// *Checklist, or null when it waits at none.
	QueryChecklist = "checklist"
	// QueryPlan answers the run's plan; the activities ask it.
	QueryPlan = "plan"
	// SignalApprove carries an [Approval] for a milestone gate.
	SignalApprove = "approve"
)

// The registered names of the activities.
const (
	ActivityExecute   = "harnish.execute"
	ActivityVerify    = "harnish.verify"
	ActivityReview    = "harnish.review"
	ActivityDebug     = "harnish.debug"
	ActivityAdvise    = "harnish.advise"
	ActivityRestore   = "harnish.restore"
	ActivityRecord    = "harnish.record"
	ActivityEnd       = "harnish.end"
	ActivityIntegrate = "harnish.integrate"
)

// Register registers the workflow and a's activities with a worker.
func Register(r worker.Registry, a *Activities) {
	r.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivityWithOptions(a.Execute, activity.RegisterOptions{Name: ActivityExecute})
	r.RegisterActivityWithOptions(a.Verify, activity.RegisterOptions{Name: ActivityVerify})
	r.RegisterActivityWithOptions(a.Review, activity.RegisterOptions{Name: ActivityReview})
	r.RegisterActivityWithOptions(a.Debug, activity.RegisterOptions{Name: ActivityDebug})
	r.RegisterActivityWithOptions(a.Advise, activity.RegisterOptions{Name: ActivityAdvise})
	r.RegisterActivityWithOptions(a.Restore, activity.RegisterOptions{Name: ActivityRestore})
	r.RegisterActivityWithOptions(a.Record, activity.RegisterOptions{Name: ActivityRecord})
	r.RegisterActivityWithOptions(a.End, activity.RegisterOptions{Name: ActivityEnd})
	r.RegisterActivityWithOptions(a.Integrate, activity.RegisterOptions{Name: ActivityIntegrate})
}

// RunInput starts a run of a plan. Plan and Dir are required.
type RunInput struct {
	Plan *task.Plan `json:"plan"`
	// Dir is the working tree on the workers that serve ActivityQueue.
	Dir string `json:"dir"`
	// RunID names the run. Empty: the workflow's ID.
	RunID string `json:"run_id,omitempty"`
	// ActivityQueue is the task queue of the run's activities: the workers
	// that have the working tree. Empty: the workflow's own queue.
	ActivityQueue string `json:"activity_queue,omitempty"`
	// Budget overrides the plan's budget field by field (a host's limits,
	// as harnish run --cycles).
	Budget task.Budget `json:"budget,omitzero"`
	// ContinueIndependent lets the run go on past a task that did not get
	// done with the tasks that do not depend on it (see policy.Policy).
	ContinueIndependent bool `json:"continue_independent,omitempty"`
	// SideBySide runs a phase's tasks as many at once as the plan allows,
	// up to MaxParallel (zero: the plan's limit), each as its own
	// activities. With CommitTasks each such task works in a fork of the
	// tree of its own, and the merge queue brings its change onto the
	// branch, as the CLI's loop does; without, the tasks share the working
	// tree, so it is for executors that keep out of each other's way. The
	// default takes one task at a time.
	SideBySide  bool `json:"side_by_side,omitempty"`
	MaxParallel int  `json:"max_parallel,omitempty"`
	// Rollback undoes a failed attempt's change before the next attempt.
	Rollback bool `json:"rollback,omitempty"`
	// Records keeps the run's record in the working tree as the CLI does,
	// by an activity after each commit of the workflow ([Activities.Record]):
	// its state and journal in Dir/.harnish (which "harnish status" reads),
	// the audit logs, handoffs, reports and completion summary, the
	// attempts' transcripts and the experience store; the attempts' prompts
	// are made from it, as the CLI makes them. The worker process that
	// keeps the record holds the state's lock, as harnish run does: serve
	// a tree's ActivityQueue with one worker process (another is refused
	// the lock until the first is gone).
	Records bool `json:"records,omitempty"`
	// CommitTasks, with Records, commits each task done and the run's
	// records at its end, as "harnish run" does: the same messages and
	// trailers, on Branch (made at HEAD when the run starts; empty: the
	// branch checked out). Tasks side by side then work in forks (see
	// SideBySide); the tree must be a git working tree.
	CommitTasks bool   `json:"commit_tasks,omitempty"`
	Branch      string `json:"branch,omitempty"`
	// Approve approves every milestone gate, as harnish run --yes.
	Approve bool `json:"approve,omitempty"`
	// GateTimeout is how long a gate waits for an [Approval] before the run
	// ends awaiting approval. Zero: it waits until one comes.
	GateTimeout time.Duration `json:"gate_timeout,omitempty"`
	// HeartbeatTimeout is how long a worker may go silent in an activity
	// before the attempt counts as cut off and the next goes to another
	// worker. Zero: 30s.
	HeartbeatTimeout time.Duration `json:"heartbeat_timeout,omitempty"`
	// ContinueAfter is the history length (events) past which the run
	// continues as new, when no step is in flight. Zero: 10000, or sooner
	// when the server suggests it. A run also continues as new at each
	// milestone gate approved, so each phase has a history of its own.
	ContinueAfter int `json:"continue_after,omitempty"`
	// Carry is what a run that continued as new carries over; nil for a
	// new run.
	Carry *Carry `json:"carry,omitempty"`
	// Resume reopens the carried run, which ended without completing
	// (escalated, halted, blocked, awaiting approval, cancelled), as
	// "harnish resume" does: each task that did not get done gets a fresh
	// budget, Approve approves the gate the run waits at, and a plan that
	// changed since is recorded. It needs Carry, from the ended run's
	// [RunResult].
	Resume bool `json:"resume,omitempty"`
	// ApproveGate, with Resume, approves the gate the carried run waits
	// at, as "harnish resume --approve" does.
	ApproveGate bool `json:"approve_gate,omitempty"`
}

// Carry is a run's state across continue-as-new.
type Carry struct {
	State *policy.RunState `json:"state"`
	// Records says the run keeps its record in the tree (RunInput.Records):
	// a resume goes on keeping it, and commits where the run did.
	Records   bool                 `json:"records,omitempty"`
	Tasks     map[string]*TaskMemo `json:"tasks,omitempty"`
	Approvals map[string]Approval  `json:"approvals,omitempty"`
}

// TaskMemo is what a task's next step needs beyond the durable state: the
// trees the attempts left, what the last one said and passed, and, once
// the task is done, its handoff for the tasks after it.
type TaskMemo struct {
	Base  string         `json:"base,omitempty"`  // the tree before the first attempt
	Trees map[int]string `json:"trees,omitempty"` // per attempt, the last two
	// TaskNotes are what the last attempt said, passed and touched.
	loop.TaskNotes
	Handoff *loop.Handoff `json:"handoff,omitempty"`
}

// Approval is a person's answer at a milestone gate. Phase empty: the gate
// the run waits at. Verdict empty: approve.
type Approval struct {
	Phase   string         `json:"phase,omitempty"`
	Verdict policy.Verdict `json:"verdict,omitempty"`
	By      string         `json:"by,omitempty"`
	Note    string         `json:"note,omitempty"`
}

// Checklist is the milestone gate a run waits at: what the phase's checks
// proved and what a person must verify by hand before approving.
type Checklist struct {
	Phase   string   `json:"phase"`
	Title   string   `json:"title,omitempty"`
	Next    string   `json:"next,omitempty"`
	Manual  []string `json:"manual,omitempty"`
	Summary string   `json:"summary"`
}

// RunResult is how a run ended. A run that did not complete is a result
// too, not a failed workflow: Outcome says how, and ExitCode is the CLI's.
type RunResult struct {
	Outcome  policy.Outcome   `json:"outcome"`
	Reason   string           `json:"reason,omitempty"`
	Task     string           `json:"task,omitempty"` // the first task not done, when the run did not complete
	ExitCode int              `json:"exit_code"`
	State    *policy.RunState `json:"state"`
	// Carry is what a resumed run needs ([RunInput.Resume]).
	Carry *Carry `json:"carry,omitempty"`
}

// Run is the workflow: it drives the plan with the decision core
// ([policy.Policy.Next]) as the CLI's loop does, taking each step as
// activities, until the run ends. It reads time only from the workflow's
// clock and does no I/O of its own. Cancelling the workflow ends the run
// cancelled.
func Run(ctx workflow.Context, in RunInput) (*RunResult, error) {
	switch {
	case in.Plan == nil || in.Dir == "":
		return nil, sdktemporal.NewNonRetryableApplicationError("temporal: RunInput needs a plan and a dir", "harnish.input", nil)
	case (in.CommitTasks || in.Branch != "") && !in.Records:
		return nil, sdktemporal.NewNonRetryableApplicationError("temporal: RunInput.CommitTasks and Branch need Records", "harnish.input", nil)
	}
	if c := in.Carry; in.Resume && c != nil && c.State != nil {
		// A resumed run keeps its record and commits as it did.
		in.Records = in.Records || c.Records || c.State.Commits
		in.CommitTasks = in.CommitTasks || c.State.Commits
		in.Branch = cmp.Or(in.Branch, c.State.Branch)
	}
	r := &runner{in: in, plan: in.Plan, digest: policy.PlanDigest(in.Plan), memo: map[string]*TaskMemo{},
		approvals: map[string]Approval{}, prev: map[string]string{}}
	r.p = policy.Policy{Budget: in.Budget, ContinueIndependent: in.ContinueIndependent, MaxParallel: 1}
	if in.SideBySide {
		r.p.MaxParallel = in.MaxParallel
	}
	prev := ""
	for _, pt := range in.Plan.Tasks() {
		r.prev[pt.Task.ID], prev = prev, pt.Task.ID
	}
	if c := in.Carry; c != nil && c.State != nil {
		r.st = c.State
		if c.Tasks != nil {
			r.memo = c.Tasks
		}
		if c.Approvals != nil {
			r.approvals = c.Approvals
		}
	} else {
		r.st = &policy.RunState{}
	}
	// The handlers first: the activities of the first commit ask the plan.
	if err := r.handlers(ctx); err != nil {
		return nil, err
	}
	if r.st.Run == "" {
		run := cmp.Or(in.RunID, workflow.GetInfo(ctx).WorkflowExecution.ID)
		if err := r.commit(ctx, []policy.Transition{{Kind: policy.TransRunStarted, Time: workflow.Now(ctx), Run: run,
			Plan: in.Plan.Name, PlanDigest: r.digest, Branch: in.Branch, Commits: in.CommitTasks}}); err != nil {
			return nil, err
		}
	}
	if in.Resume {
		if err := r.resume(ctx); err != nil {
			return nil, err
		}
	}
	step, err := r.drive(ctx)
	if err != nil {
		return nil, err
	}
	// The worker that takes it drops what it kept of the run; the others
	// drop it once idle. A failure to is no failure of the run.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	_ = workflow.ExecuteActivity(r.options(dctx, time.Minute, 3), ActivityEnd, Ref{Run: r.st.Run, PlanDigest: r.digest, Dir: r.in.Dir}).Get(dctx, nil)
	res := &RunResult{Outcome: step.Outcome, Reason: step.Reason, ExitCode: step.Outcome.ExitCode(), State: r.st,
		Carry: &Carry{State: r.st, Tasks: r.memo, Approvals: r.approvals, Records: r.in.Records}}
	if step.Outcome != policy.Completed {
		for _, pt := range r.plan.Tasks() {
			if ts := r.st.Tasks[pt.Task.ID]; ts != nil && ts.Status != policy.StatusDone {
				res.Task = pt.Task.ID
				break
			}
		}
	}
	if step.Outcome == policy.Cancelled {
		return res, sdktemporal.NewCanceledError(res)
	}
	return res, nil
}

// resume reopens the carried run as policy.Resume says.
func (r *runner) resume(ctx workflow.Context) error {
	if r.in.Carry == nil || r.in.Carry.State == nil {
		return sdktemporal.NewNonRetryableApplicationError("temporal: RunInput.Resume needs the ended run's Carry", "harnish.input", nil)
	}
	if r.st.Outcome == policy.Completed {
		return sdktemporal.NewNonRetryableApplicationError("temporal: the run completed; there is nothing to resume", "harnish.input", nil)
	}
	if r.st.Plan != r.plan.Name {
		return sdktemporal.NewNonRetryableApplicationError(fmt.Sprintf("temporal: run %s is of plan %q, not %q", r.st.Run, r.st.Plan, r.plan.Name), "harnish.input", nil)
	}
	now := workflow.Now(ctx)
	ts, err := r.p.Resume(r.st, r.in.Approve || r.in.ApproveGate, now)
	if err != nil {
		return sdktemporal.NewNonRetryableApplicationError(err.Error(), "harnish.state", err)
	}
	if r.st.PlanDigest != r.digest {
		ts = append(ts, policy.Transition{Kind: policy.TransPlanChanged, Time: now, PlanDigest: r.digest})
	}
	r.in.Resume = false // a run that continues as new goes on; it does not resume again
	return r.commit(ctx, ts)
}

type runner struct {
	in     RunInput
	plan   *task.Plan
	digest string
	p      policy.Policy
	st     *policy.RunState
	memo   map[string]*TaskMemo
	prev   map[string]string // task -> the task before it in the plan

	approvals map[string]Approval // by phase, received and not yet used
	checklist *Checklist          // of the gate the run waits at
	merging   bool                // a task is in the merge queue
}

// handlers sets up the queries and the approvals' signal.
func (r *runner) handlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryStatus, func() (*policy.RunState, error) { return r.st.Clone(), nil }); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, QueryChecklist, func() (*Checklist, error) { return r.checklist, nil }); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, QueryPlan, func() (*task.Plan, error) { return r.plan, nil }); err != nil {
		return err
	}
	ch := workflow.GetSignalChannel(ctx, SignalApprove)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var a Approval
			if more := ch.Receive(ctx, &a); !more || ctx.Err() != nil {
				return
			}
			phase := cmp.Or(a.Phase, r.st.AwaitingGate)
			if phase == "" {
				workflow.GetLogger(ctx).Warn("temporal: an approval came while no gate waits; it is dropped")
				continue
			}
			a.Phase = phase
			r.approvals[phase] = a
		}
	})
	return nil
}

// commit applies ts to the run's state: the workflow's history is the
// journal, so applying is making durable. With Records, the tree's record
// follows, and what it committed is applied in turn.
func (r *runner) commit(ctx workflow.Context, ts []policy.Transition) error {
	from := r.st.Seq
	notes := r.notes(ts) // before a done task's memo becomes its handoff
	if err := r.apply(ts); err != nil {
		return err
	}
	if r.in.Records && len(ts) > 0 {
		then, err := r.record(ctx, from, ts, notes)
		if err != nil {
			return err
		}
		if err := r.apply(then); err != nil {
			return err
		}
	}
	r.pace(ctx, ts)
	return nil
}

func (r *runner) apply(ts []policy.Transition) error {
	for _, t := range ts {
		if err := r.st.Apply(t); err != nil {
			return sdktemporal.NewNonRetryableApplicationError(err.Error(), "harnish.state", err)
		}
		if t.Kind == policy.TransTaskFinished && t.Status == policy.StatusDone {
			r.handoff(t.Task)
		}
	}
	return nil
}

// notes are what the workflow knows of the last attempt of each task ts
// finish an attempt of, or end.
func (r *runner) notes(ts []policy.Transition) map[string]*loop.TaskNotes {
	var out map[string]*loop.TaskNotes
	for _, t := range ts {
		m := r.memo[t.Task]
		if m == nil || (t.Kind != policy.TransAttemptFinished && t.Kind != policy.TransTaskFinished) {
			continue
		}
		if out == nil {
			out = map[string]*loop.TaskNotes{}
		}
		n := m.TaskNotes
		out[t.Task] = &n
	}
	return out
}

// record has the worker keep the tree's record of ts and returns what it
// committed, for the workflow's state.
func (r *runner) record(ctx workflow.Context, from uint64, ts []policy.Transition, notes map[string]*loop.TaskNotes) ([]policy.Transition, error) {
	in := RecordInput{Ref: Ref{Run: r.st.Run, PlanDigest: r.digest, Dir: r.in.Dir}, CommitTasks: r.in.CommitTasks, Branch: r.in.Branch,
		From: from, Transitions: ts, Notes: notes, Ended: r.st.Outcome != "", RecordsCommitted: r.st.RecordsCommitted}
	if r.st.Commits {
		for _, pt := range r.plan.Tasks() {
			if s := r.st.Tasks[pt.Task.ID]; s != nil && s.Status == policy.StatusDone && !s.Committed && s.Attempts > 0 {
				in.Owed = append(in.Owed, pt.Task.ID)
			}
		}
	}
	var out RecordOutput
	if err := workflow.ExecuteActivity(r.options(ctx, 4*time.Minute, 10), ActivityRecord, in).Get(ctx, &out); err != nil {
		return nil, err
	}
	return out.Then, nil
}

// handoff records what a done task leaves for the tasks after it, and
// drops what only its own attempts needed.
func (r *runner) handoff(id string) {
	m := r.memoOf(id)
	ts := r.st.Tasks[id]
	var phase string
	for _, pt := range r.plan.Tasks() {
		if pt.Task.ID == id {
			phase = pt.Phase.ID
		}
	}
	h := &loop.Handoff{Task: id, Phase: phase, Status: policy.StatusDone, Summary: m.Summary, FilesChanged: m.Files, Checks: m.Passed,
		Findings: m.Minor, Attempts: ts.Attempts, Decisions: m.Decisions, OpenQuestions: m.OpenQuestions, Blocker: m.Blocker}
	if len(h.FilesChanged) > 0 {
		h.FilesFrom = m.FilesFrom
	}
	*m = TaskMemo{Handoff: h}
}

// pace waits the plan's pacing after a task ended, while tasks are left.
func (r *runner) pace(ctx workflow.Context, ts []policy.Transition) {
	wait := r.plan.Pacing.Std()
	if wait <= 0 || r.st.Outcome != "" || !slices.ContainsFunc(ts, func(t policy.Transition) bool { return t.Kind == policy.TransTaskFinished }) {
		return
	}
	for _, pt := range r.plan.Tasks() {
		if s := r.st.Tasks[pt.Task.ID]; s == nil || !s.Status.Terminal() {
			_ = workflow.Sleep(ctx, wait)
			return
		}
	}
}

func (r *runner) memoOf(id string) *TaskMemo {
	m := r.memo[id]
	if m == nil {
		m = &TaskMemo{}
		r.memo[id] = m
	}
	return m
}

type report struct {
	step policy.Step
	ts   []policy.Transition
	err  error
}

// drive is [policy.Policy.Drive] in workflow code: Next, commit, take the
// steps side by side (each in a workflow goroutine), commit each report as
// it comes, until a finish step. A step whose worker was lost (its
// activity timed out) is not reported: Next then counts its attempt as cut
// off, exactly as the CLI does after a crash.
func (r *runner) drive(ctx workflow.Context) (policy.Step, error) {
	stepCtx, cancelSteps := workflow.WithCancel(ctx)
	busy := map[string]bool{}
	var done []report
	drain := func() {
		cancelSteps()
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		for len(busy) > 0 {
			_ = workflow.Await(dctx, func() bool { return len(done) > 0 })
			delete(busy, done[0].step.Task)
			done = done[1:]
		}
	}
	rolling := false
	for {
		if ctx.Err() != nil && r.st.Outcome == "" {
			drain()
			dctx, _ := workflow.NewDisconnectedContext(ctx)
			if err := r.commit(dctx, []policy.Transition{{Kind: policy.TransRunFinished, Time: workflow.Now(ctx),
				Outcome: policy.Cancelled, Reason: "the workflow was cancelled"}}); err != nil {
				return policy.Step{}, err
			}
		}
		rolling = rolling || (r.st.Outcome == "" && r.historyFull(ctx))
		if rolling && len(busy) == 0 {
			return policy.Step{}, workflow.NewContinueAsNewError(ctx, WorkflowName, r.carry())
		}
		if !rolling {
			d, err := r.p.Next(r.plan, r.st, workflow.Now(ctx), slices.Sorted(maps.Keys(busy))...)
			if err != nil {
				return policy.Step{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), "harnish.policy", err)
			}
			if err := r.commit(ctx, d.Transitions); err != nil {
				return policy.Step{}, err
			}
			for _, s := range d.Steps {
				if s.Kind == policy.StepFinish {
					drain()
					return s, nil
				}
				busy[s.Task] = true
				workflow.Go(stepCtx, func(gctx workflow.Context) {
					ts, err := r.take(gctx, s)
					done = append(done, report{s, ts, err})
				})
			}
		}
		if len(busy) == 0 {
			continue
		}
		if err := workflow.Await(ctx, func() bool { return len(done) > 0 }); err != nil {
			continue // cancelled: the top of the loop ends the run
		}
		rep := done[0]
		done = done[1:]
		delete(busy, rep.step.Task)
		switch {
		case rep.err != nil && ctx.Err() != nil:
			continue // cancelled: the step stays unreported
		case rep.err != nil && lost(rep.err):
			workflow.GetLogger(ctx).Warn("temporal: a step's worker was lost; its attempt counts as cut off",
				"task", rep.step.Task, "attempt", rep.step.Attempt, "err", rep.err)
			continue
		case rep.err != nil:
			rep.ts = []policy.Transition{{Kind: policy.TransRunFinished, Time: workflow.Now(ctx), Outcome: policy.Errored, Reason: rep.err.Error()}}
		}
		if err := r.commit(ctx, rep.ts); err != nil {
			return policy.Step{}, err
		}
		// A phase's history ends at its gate: the next phase starts afresh.
		rolling = rolling || slices.ContainsFunc(rep.ts, func(t policy.Transition) bool { return t.Kind == policy.TransGateApproved })
	}
}

// lost reports whether an activity's error says its worker went away or
// hung (a timeout), rather than that it ran and failed.
func lost(err error) bool {
	return sdktemporal.IsTimeoutError(err)
}

// historyFull reports whether the run should continue as new.
func (r *runner) historyFull(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= cmp.Or(r.in.ContinueAfter, 10_000)
}

func (r *runner) carry() RunInput {
	in := r.in
	in.Carry = &Carry{State: r.st, Tasks: r.memo, Approvals: r.approvals, Records: r.in.Records}
	return in
}

// take carries one step out and returns the transitions recording it.
func (r *runner) take(ctx workflow.Context, s policy.Step) ([]policy.Transition, error) {
	switch s.Kind {
	case policy.StepAttempt:
		return r.attempt(ctx, s)
	case policy.StepDebug:
		return r.debug(ctx, s)
	case policy.StepAdvise:
		return r.advise(ctx, s)
	case policy.StepGate:
		return r.gate(ctx, s)
	}
	return nil, fmt.Errorf("temporal: step kind %q is not one this workflow takes", s.Kind)
}

// grace is what an activity may take beyond the task's time left: the
// snapshots, the audit, a check's own shutdown.
const grace = time.Minute

// options are an activity's options: its time is the task's time left
// (and grace), it heartbeats, and Temporal tries it again only where that
// cannot count an attempt twice (tries > 1).
func (r *runner) options(ctx workflow.Context, left time.Duration, tries int32) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           r.in.ActivityQueue,
		StartToCloseTimeout: max(left, time.Second) + grace,
		HeartbeatTimeout:    cmp.Or(r.in.HeartbeatTimeout, 30*time.Second),
		RetryPolicy: &sdktemporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: tries,
			NonRetryableErrorTypes: []string{"harnish.config"}},
	})
}

func (r *runner) ref(s policy.Step) Ref {
	return Ref{Run: r.st.Run, PlanDigest: r.digest, Dir: r.in.Dir, Phase: s.Phase, Task: s.Task, Attempt: s.Attempt,
		Fork: r.forkOf(s.Phase, s.Task)}
}

// attempt runs one attempt: execute (the agent, the snapshots, the audit)
// exactly once, then verify and review, which Temporal may try again on
// another worker (they count no attempt).
func (r *runner) attempt(ctx workflow.Context, s policy.Step) ([]policy.Transition, error) {
	start := workflow.Now(ctx)
	deadline := start.Add(s.TimeLeft)
	if s.Attempt == 1 {
		r.memo[s.Task] = &TaskMemo{}
	}
	m := r.memoOf(s.Task)
	ts := r.st.Tasks[s.Task]
	var parts executor.PromptParts
	if !r.in.Records { // with records, the worker makes the prompt from them, as the CLI does
		parts = r.prompt(s, ts)
	}
	ref := r.ref(s)
	var ex ExecuteOutput
	err := workflow.ExecuteActivity(r.options(ctx, s.TimeLeft, 1), ActivityExecute, ExecuteInput{Ref: ref, Deadline: deadline,
		TokensLeft: s.TokensLeft, CostLeft: s.CostLeft, Parts: parts, Snapshot: true,
		Records: r.in.Records, CommitTasks: r.in.CommitTasks, Branch: r.in.Branch}).Get(ctx, &ex)
	if err != nil {
		return nil, err
	}
	if m.Base == "" {
		m.Base = ex.Before
	}
	if ex.After != "" {
		if m.Trees == nil {
			m.Trees = map[int]string{}
		}
		m.Trees[s.Attempt] = ex.After
		delete(m.Trees, s.Attempt-2)
	}
	m.TaskNotes = loop.TaskNotes{Summary: ex.Summary, Decisions: ex.Decisions, OpenQuestions: ex.OpenQuestions, Blocker: ex.Blocker,
		Generalizable: ex.Generalizable, Transcript: ex.Transcript}
	rep := policy.AttemptReport{Task: s.Task, Attempt: s.Attempt, Stop: ex.Stop, Failure: ex.Failure}
	void := ex.Void
	integrated := false // the fork may hold the branch's changes now: no rollback
	if void == "" && rep.Stop == nil && rep.Failure == nil {
		void, err = r.check(ctx, s, ref, deadline, &ex, m, &rep)
		if err == nil && void == "" && rep.Failure == nil && ref.Fork != "" {
			integrated = true
			void, err = r.integrate(ctx, ref, deadline, ex.Summary, &rep)
		}
		if err != nil {
			return nil, err
		}
	}
	now := workflow.Now(ctx)
	if void != "" {
		return r.p.ObserveVoid(r.st, s.Task, s.Attempt, void, now)
	}
	if rep.Failure != nil {
		rep.Failure.Warnings = ex.Soft
		rep.Failure.Unchanged = ex.Before != "" && ex.Before == ex.After // for the stuck rules, as the CLI's loop says it
	}
	rep.Elapsed, rep.Tokens, rep.CostUSD = now.Sub(start), ex.Usage.Tokens(), ex.Usage.CostUSD
	if r.in.Rollback && rep.Failure != nil && rep.Stop == nil && ex.Before != "" && !integrated {
		err := workflow.ExecuteActivity(r.options(ctx, time.Minute, 3), ActivityRestore, RestoreInput{Ref: ref, Before: ex.Before}).Get(ctx, nil)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
	}
	return r.p.ObserveAttempt(r.st, rep, workflow.Now(ctx))
}

// prompt is what the workflow knows to tell the attempt (the worker adds
// the task's spec, the plan's prohibitions and context), when the run
// keeps no record in the tree to make it from.
func (r *runner) prompt(s policy.Step, ts *policy.TaskState) executor.PromptParts {
	parts := executor.PromptParts{Handoffs: r.handoffsFor(s.Task), Failures: slices.Clone(ts.Failures)}
	if ts.RootCause {
		parts.Diagnosis = ts.Diagnosis // for the one attempt the root cause buys
	}
	for _, a := range ts.Advice { // the advisor's PLAN or CORRECTION, given just before this attempt
		if a.Attempt == s.Attempt-1 && a.Guides() {
			parts.Advice = &executor.Advice{Verdict: a.Verdict, Text: a.Text}
		}
	}
	for i := len(parts.Failures) - 1; i >= 0; i-- {
		if f := parts.Failures[i]; f.Kind != policy.FailInterrupted {
			parts.Findings, parts.Warnings = f.Findings, f.Warnings
			break
		}
	}
	return parts
}

// check verifies the attempt and, when its checks pass and the plan has a
// reviewer, reviews the task's change; it fills rep and returns a void
// reason when the checks could not run.
func (r *runner) check(ctx workflow.Context, s policy.Step, ref Ref, deadline time.Time, ex *ExecuteOutput, m *TaskMemo, rep *policy.AttemptReport) (string, error) {
	left := deadline.Sub(workflow.Now(ctx))
	in := CheckInput{Ref: ref, Deadline: deadline, Base: m.Base, After: ex.After, Files: ex.Files}
	var v CheckOutput
	if err := workflow.ExecuteActivity(r.options(ctx, left, 3), ActivityVerify, in).Get(ctx, &v); err != nil {
		return "", err
	}
	if v.Void != "" || v.Failure != nil {
		rep.Failure = v.Failure
		return v.Void, nil
	}
	m.Passed, m.Files, m.FilesFrom = v.Passed, v.Files, v.FilesFrom
	if r.plan.Reviewer == nil {
		return "", nil
	}
	var rv CheckOutput
	if err := workflow.ExecuteActivity(r.options(ctx, left, 3), ActivityReview, in).Get(ctx, &rv); err != nil {
		return "", err
	}
	m.Minor = rv.Minor
	rep.Failure = rv.Failure
	return rv.Void, nil
}

// handoffsFor returns the handoffs of the tasks id depends on (or of the
// task before it, when it names none), as the CLI's loop does.
func (r *runner) handoffsFor(id string) []executor.Handoff {
	var deps []string
	for _, pt := range r.plan.Tasks() {
		if pt.Task.ID == id {
			deps = pt.Task.DependsOn
		}
	}
	if len(deps) == 0 && r.prev[id] != "" {
		deps = []string{r.prev[id]}
	}
	var out []executor.Handoff
	for _, d := range deps {
		if m := r.memo[d]; m != nil && m.Handoff != nil {
			out = append(out, executor.Handoff{TaskID: d, Text: m.Handoff.Text()})
		}
	}
	return out
}

func (r *runner) debug(ctx workflow.Context, s policy.Step) ([]policy.Transition, error) {
	m := r.memoOf(s.Task)
	in := DebugInput{Ref: r.ref(s), Deadline: workflow.Now(ctx).Add(s.TimeLeft), Failures: slices.Clone(r.st.Tasks[s.Task].Failures),
		From: m.Trees[s.Attempt-1], To: m.Trees[s.Attempt]}
	var out DebugOutput
	if err := workflow.ExecuteActivity(r.options(ctx, s.TimeLeft, 3), ActivityDebug, in).Get(ctx, &out); err != nil {
		return nil, err
	}
	if out.NoDebugger {
		return r.p.ObserveNoDebugger(r.st, s.Task, workflow.Now(ctx))
	}
	return r.p.ObserveDiagnosis(r.st, s.Task, out.Diagnosis, workflow.Now(ctx))
}

// advise asks the advisor at the step's point; no advisor, or one that
// fails, is no answer.
func (r *runner) advise(ctx workflow.Context, s policy.Step) ([]policy.Transition, error) {
	in := AdviseInput{Ref: r.ref(s), Deadline: workflow.Now(ctx).Add(s.TimeLeft), Point: s.Point,
		Failures: slices.Clone(r.st.Tasks[s.Task].Failures)}
	var out AdviseOutput
	if err := workflow.ExecuteActivity(r.options(ctx, s.TimeLeft, 3), ActivityAdvise, in).Get(ctx, &out); err != nil {
		return nil, err
	}
	return r.p.ObserveAdvice(r.st, s, out.Advice, workflow.Now(ctx))
}

// gate waits at a milestone for an [Approval] (or approves at once with
// RunInput.Approve); the checklist query shows what it waits for.
func (r *runner) gate(ctx workflow.Context, s policy.Step) ([]policy.Transition, error) {
	r.checklist = r.checklistOf(s.Phase)
	defer func() { r.checklist = nil }()
	dec := policy.GateDecision{Verdict: policy.Approve, By: "RunInput.Approve"}
	if !r.in.Approve {
		arrived := func() bool { _, ok := r.approvals[s.Phase]; return ok }
		ok := true
		var err error
		if r.in.GateTimeout > 0 {
			ok, err = workflow.AwaitWithTimeout(ctx, r.in.GateTimeout, arrived)
		} else {
			err = workflow.Await(ctx, arrived)
		}
		if err != nil {
			return nil, err
		}
		dec = policy.GateDecision{Verdict: policy.Defer}
		if ok {
			a := r.approvals[s.Phase]
			delete(r.approvals, s.Phase)
			dec = policy.GateDecision{Verdict: cmp.Or(a.Verdict, policy.Approve), By: a.By, Note: a.Note}
		}
	}
	return r.p.ObserveGate(r.st, s.Phase, dec, workflow.Now(ctx))
}

// checklistOf describes the milestone after phase as the CLI's gate does
// (loop.NewGateRequest): what its tasks' checks proved, and what a person
// verifies by hand.
func (r *runner) checklistOf(phase string) *Checklist {
	ph := &task.Phase{ID: phase}
	for i := range r.plan.Phases {
		if r.plan.Phases[i].ID == phase {
			ph = &r.plan.Phases[i]
		}
	}
	req := loop.NewGateRequest(r.plan, r.st, ph, func(id string) *loop.Handoff {
		if m := r.memo[id]; m != nil {
			return m.Handoff
		}
		return nil
	})
	return &Checklist{Phase: req.Phase, Title: req.Title, Next: req.Next, Manual: req.Manual, Summary: req.Summary}
}
