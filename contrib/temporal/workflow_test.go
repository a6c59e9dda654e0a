package temporal_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	temporal "github.com/harnish/harnish/contrib/temporal"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// try scripts one attempt: pass (the zero value), fail the checks with a
// fingerprint, a critical review, a blocked claim, a hard guardrail stop,
// an agent that hangs until its time runs out.
type try struct {
	fp      string
	review  string // a critical finding in this file
	blocked string
	stop    string
	tokens  int64
	cost    float64
	hang    bool
	// loops is how often the agent runs the same command with the same
	// result before it gives up (the stuck rules end it at 5).
	loops int
}

type script struct {
	tries map[string][]try
	found map[string]bool  // the debugger finds a root cause, per task
	gates []policy.Verdict // per gated phase, in order; past them, no answer
}

// components plays a script as real components (an executor, a verifier,
// a reviewer, a debugger) behind the workflow's activities. It is safe for
// concurrent use, and measures how many executions overlap.
type components struct {
	sc    script
	sleep time.Duration // each execution takes this long
	// writes has each execution write a file of its task's own into a git
	// tree (writer), read by a GitWorkspace.
	writes bool
	dirs   []string                        // where the writer's executions worked
	parts  map[string]executor.PromptParts // what they were told, by task#attempt

	mu         sync.Mutex
	live, peak int
	executed   []string
}

func (c *components) try(id string, attempt int) try {
	if tries := c.sc.tries[id]; attempt <= len(tries) {
		return tries[attempt-1]
	}
	return try{}
}

func (c *components) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	c.mu.Lock()
	c.live++
	c.peak = max(c.peak, c.live)
	c.executed = append(c.executed, fmt.Sprintf("%s#%d", req.Task.ID, req.Attempt))
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.live--
		c.mu.Unlock()
	}()
	if c.sleep > 0 {
		time.Sleep(c.sleep)
	}
	tr := c.try(req.Task.ID, req.Attempt)
	if tr.hang {
		<-ctx.Done()
		return nil, &executor.Error{Kind: executor.KindTimeout, Err: context.Cause(ctx)}
	}
	for range tr.loops {
		req.Tell(executor.Activity{Command: "make test", Result: "exit 1"})
	}
	if ctx.Err() != nil {
		return nil, &executor.Error{Kind: executor.KindCrashed, Err: context.Cause(ctx)}
	}
	res := &executor.Result{Status: executor.StatusDone, Summary: "did " + req.Task.ID,
		Usage: executor.Usage{InputTokens: tr.tokens, CostUSD: tr.cost}}
	switch {
	case tr.stop != "":
		res.Violations = []executor.Violation{{Rule: tr.stop, Reason: "no", Hard: true}}
	case tr.blocked != "":
		res.Status, res.Reason = executor.StatusBlocked, tr.blocked
	}
	return res, nil
}

func (c *components) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	if fp := c.try(req.Task.ID, req.Attempt).fp; fp != "" {
		return &verify.Report{Fingerprint: verify.Fingerprint{Class: verify.ClassTest, Hash: fp}}, nil
	}
	return &verify.Report{Passed: true, Checks: []verify.CheckResult{{Name: "scripted", Passed: true}}}, nil
}

func (c *components) Review(ctx context.Context, req *verify.ReviewRequest) (*verify.Review, error) {
	if file := c.try(req.Task.ID, req.Attempt).review; file != "" {
		return &verify.Review{Findings: finding(file)}, nil
	}
	return &verify.Review{}, nil
}

func finding(file string) []verify.Finding {
	return []verify.Finding{{Severity: verify.SeverityCritical, File: file, Line: 1, Message: "wrong", Rule: "r"}}
}

func (c *components) Debug(ctx context.Context, req *executor.DebugRequest) (*executor.Diagnosis, error) {
	if c.sc.found[req.Task.ID] {
		return &executor.Diagnosis{Found: true, RootCause: "scripted root cause", Fix: "scripted fix"}, nil
	}
	return &executor.Diagnosis{FiveWhys: []string{"scripted: no root cause"}}, nil
}

func (c *components) build(ctx context.Context, plan *task.Plan, dir string) (*temporal.Components, error) {
	if c.writes {
		return &temporal.Components{Executor: writer{c}, Verifier: c, Reviewer: c, Debugger: c, Workspace: &loop.GitWorkspace{Dir: dir}}, nil
	}
	return &temporal.Components{Executor: c, Verifier: c, Reviewer: c, Debugger: c}, nil
}

func check(id string, deps ...string) task.Task {
	return task.Task{ID: id, Title: id, DependsOn: deps, Acceptance: []task.Check{{Run: []string{"true"}}}}
}

func budgeted(id string, attempts int) task.Task {
	t := check(id)
	t.Budget.Attempts = attempts
	return t
}

var reviewer = &task.Component{Kind: task.KindCommand, Argv: []string{"review"}}

func onePhase(tasks ...task.Task) *task.Plan {
	return &task.Plan{Version: "1", Name: "p", Reviewer: reviewer, Phases: []task.Phase{{ID: "p1", Title: "P1", Tasks: tasks}}}
}

func twoPhases(manual ...string) *task.Plan {
	t1 := check("T1")
	for _, m := range manual {
		t1.Acceptance = append(t1.Acceptance, task.Check{Manual: m})
	}
	return &task.Plan{Version: "1", Name: "p", Reviewer: reviewer, Phases: []task.Phase{
		{ID: "p1", Title: "P1", Tasks: []task.Task{t1}},
		{ID: "p2", Title: "P2", Tasks: []task.Task{check("T2")}},
	}}
}

// env is a test workflow environment with the workflow and the activities
// over c registered.
func env(t *testing.T, c *components, plan *task.Plan) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	e := s.NewTestWorkflowEnvironment()
	e.SetTestTimeout(time.Minute)
	// Under the race detector, on a loaded machine, a workflow task can
	// take longer than the default second without any deadlock.
	e.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 20 * time.Second})
	a := &temporal.Activities{Build: c.build, HeartbeatEvery: time.Second}
	a.AddPlan(plan)
	temporal.Register(e, a)
	return e
}

// approve sends the script's verdicts, one per gated phase in order, at
// the start of the run; a phase past them gets none, and its gate waits
// until the gate timeout.
func approve(e *testsuite.TestWorkflowEnvironment, plan *task.Plan, verdicts []policy.Verdict) {
	for i, v := range verdicts {
		e.RegisterDelayedCallback(func() {
			e.SignalWorkflow(temporal.SignalApprove, temporal.Approval{Phase: plan.Phases[i].ID, Verdict: v, By: "test"})
		}, 0)
	}
}

// runIn runs the workflow to its end, following it as it continues as new,
// and returns its result and how often it continued.
func runIn(t *testing.T, c *components, in temporal.RunInput) (*temporal.RunResult, int, error) {
	t.Helper()
	for hops := 0; hops < 10; hops++ {
		e := env(t, c, in.Plan)
		approve(e, in.Plan, c.sc.gates)
		e.ExecuteWorkflow(temporal.WorkflowName, in)
		if !e.IsWorkflowCompleted() {
			t.Fatal("the workflow did not complete")
		}
		err := e.GetWorkflowError()
		if can, ok := errors.AsType[*workflow.ContinueAsNewError](err); ok {
			in = temporal.RunInput{}
			if err := decode(can, &in); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil {
			return nil, hops, err
		}
		var res temporal.RunResult
		if err := e.GetWorkflowResult(&res); err != nil {
			t.Fatal(err)
		}
		return &res, hops, nil
	}
	t.Fatal("the run does not end")
	return nil, 0, nil
}

// policyRun drives the same script through the decision core alone, with
// looptest's scripted host: what the CLI's rules decide.
func policyRun(t *testing.T, plan *task.Plan, p policy.Policy, sc script) *policy.RunState {
	t.Helper()
	h := &looptest.Host{Policy: &p, Found: sc.found, Verdicts: sc.gates, MaxSteps: 200, Tries: map[string][]looptest.Try{}}
	for id, tries := range sc.tries {
		for _, tr := range tries {
			lt := looptest.Try{Blocked: tr.blocked, Stop: tr.stop, Tokens: tr.tokens, CostUSD: tr.cost}
			if tr.fp != "" {
				lt.Fingerprint = verify.Fingerprint{Class: verify.ClassTest, Hash: tr.fp}.String()
			}
			if tr.review != "" {
				lt.Critical = verify.Keys(finding(tr.review))
			}
			h.Tries[id] = append(h.Tries[id], lt)
		}
	}
	_, st, err := h.Drive(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// view is what the two runs must agree on: how the run ended, what each
// task used and how it ended, and how many transitions it took. Times and
// words that only the real components produce are left out.
type view struct {
	Outcome policy.Outcome
	Reason  string
	Cycles  int
	Tokens  int64
	CostUSD float64
	Seq     uint64
	Tasks   map[string]taskView
}

type taskView struct {
	Status     policy.TaskStatus
	Attempts   int
	Finished   int
	DebuggedAt int
	RootCause  bool
	Failures   []string
}

func viewOf(st *policy.RunState) view {
	v := view{Outcome: st.Outcome, Cycles: st.Cycles, Tokens: st.Tokens, CostUSD: st.CostUSD, Seq: st.Seq, Tasks: map[string]taskView{}}
	v.Reason = st.Reason
	for id, ts := range st.Tasks {
		tv := taskView{Status: ts.Status, Attempts: ts.Attempts, Finished: ts.Finished, DebuggedAt: ts.DebuggedAt, RootCause: ts.RootCause}
		for _, f := range ts.Failures {
			tv.Failures = append(tv.Failures, fmt.Sprintf("#%d %s %s %v", f.Attempt, f.Kind, f.Fingerprint, f.Keys))
		}
		v.Tasks[id] = tv
	}
	return v
}

// TestRules runs every loop rule of the policy's own table through the
// workflow, with real activities over scripted components, and checks the
// run ends as the decision core driven alone says, transition for
// transition.
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		plan    *task.Plan
		in      temporal.RunInput
		script  script
		outcome policy.Outcome
	}{
		{name: "first try passes", plan: onePhase(check("T1"), check("T2")), outcome: policy.Completed},
		{name: "a new failure retries", plan: onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "b"}, {}}}}, outcome: policy.Completed},
		{name: "different failures exhaust the attempts", plan: onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "b"}, {fp: "c"}}}}, outcome: policy.Escalated},
		{name: "two strikes with a root cause: one more attempt", plan: onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "a"}, {}}}, found: map[string]bool{"T1": true}}, outcome: policy.Completed},
		{name: "two strikes, the fix fails too: halt", plan: onePhase(budgeted("T1", 9)),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "a"}, {fp: "a"}}}, found: map[string]bool{"T1": true}}, outcome: policy.Halted},
		{name: "two strikes without a root cause: halt", plan: onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "a"}}}}, outcome: policy.Halted},
		{name: "the root cause's attempt may exceed the budget by one", plan: onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "b"}, {fp: "b"}}}, found: map[string]bool{"T1": true}}, outcome: policy.Completed},
		{name: "a critical review sends the task back", plan: onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{review: "a.go"}}}}, outcome: policy.Completed},
		{name: "the same critical findings three rounds running: plateau", plan: onePhase(budgeted("T1", 9)),
			script: script{tries: map[string][]try{"T1": {{review: "a.go"}, {review: "b.go"}, {review: "b.go"}, {review: "b.go"}}}}, outcome: policy.Escalated},
		{name: "blocked stops the task for a person", plan: onePhase(check("T1"), check("T2")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {blocked: "no API key"}}}}, outcome: policy.Blocked},
		{name: "a hard guardrail stops the run at once", plan: onePhase(check("T1"), check("T2")),
			script: script{tries: map[string][]try{"T1": {{stop: "rm-rf"}}}}, outcome: policy.StoppedByGuardrail},
		{name: "no acceptance criteria: escalate before starting", plan: onePhase(check("T1"), task.Task{ID: "T2", Title: "t"}), outcome: policy.Escalated},
		{name: "independent tasks go on past an escalation", plan: onePhase(task.Task{ID: "T1", Title: "t"}, check("T2", "T1"), check("T3")),
			in: temporal.RunInput{ContinueIndependent: true}, outcome: policy.Escalated},
		{name: "depends_on decides the order", plan: onePhase(check("T2", "T1"), check("T1")), outcome: policy.Completed},
		{name: "a gate approved goes on", plan: twoPhases(), script: script{gates: []policy.Verdict{policy.Approve}}, outcome: policy.Completed},
		{name: "a gate rejected ends escalated", plan: twoPhases(), script: script{gates: []policy.Verdict{policy.Reject}}, outcome: policy.Escalated},
		{name: "a gate nobody answers ends awaiting approval", plan: twoPhases(), outcome: policy.AwaitingApproval},
		{name: "cycles run out: budget exceeded", plan: onePhase(check("T1"), check("T2")),
			in:     temporal.RunInput{Budget: task.Budget{Cycles: 2}},
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {}}}}, outcome: policy.BudgetExceeded},
		{name: "tokens run out: budget exceeded", plan: onePhase(check("T1"), check("T2")),
			in:     temporal.RunInput{Budget: task.Budget{Tokens: 100}},
			script: script{tries: map[string][]try{"T1": {{tokens: 150}}}}, outcome: policy.BudgetExceeded},
		{name: "cost runs out: budget exceeded", plan: onePhase(check("T1"), check("T2")),
			in:     temporal.RunInput{Budget: task.Budget{CostUSD: 1}},
			script: script{tries: map[string][]try{"T1": {{fp: "x", cost: 0.6}, {cost: 0.6}}}}, outcome: policy.BudgetExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Plan, in.Dir, in.GateTimeout = tc.plan, t.TempDir(), 24*time.Hour
			res, _, err := runIn(t, &components{sc: tc.script}, in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tc.outcome || res.ExitCode != tc.outcome.ExitCode() {
				t.Errorf("outcome %s (exit %d), want %s: %s", res.Outcome, res.ExitCode, tc.outcome, res.Reason)
			}
			want := policyRun(t, tc.plan, policy.Policy{Budget: in.Budget, ContinueIndependent: in.ContinueIndependent}, tc.script)
			if diff := cmp.Diff(viewOf(want), viewOf(res.State)); diff != "" {
				t.Errorf("the workflow's run differs from the policy's (-policy +workflow):\n%s", diff)
			}
		})
	}
}

// TestTaskTimeBudget: an agent that hangs is ended when the task's time
// runs out, a failed attempt; the same timeout twice is two strikes.
func TestTaskTimeBudget(t *testing.T) {
	tk := check("T1")
	tk.Budget.TaskTimeout = task.Duration(2 * time.Second)
	plan := onePhase(tk)
	c := &components{sc: script{tries: map[string][]try{"T1": {{hang: true}, {hang: true}}}}}
	res, _, err := runIn(t, c, temporal.RunInput{Plan: plan, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := taskView{Status: policy.StatusHalted, Attempts: 2, Finished: 2, DebuggedAt: 2,
		Failures: []string{"#1 executor executor:timeout []", "#2 executor executor:timeout []"}}
	if diff := cmp.Diff(want, viewOf(res.State).Tasks["T1"]); res.Outcome != policy.Halted || diff != "" {
		t.Fatalf("outcome %s (%s); T1 (-want +got):\n%s", res.Outcome, res.Reason, diff)
	}
}

// TestWorkerLost: an attempt whose worker goes away (its activity times
// out) counts as cut off, as a crash does in the CLI; the next attempt goes
// on with the count and the spend intact.
func TestWorkerLost(t *testing.T) {
	plan := onePhase(check("T1"), check("T2"))
	c := &components{sc: script{tries: map[string][]try{"T1": {{tokens: 7}, {tokens: 5}}}}}
	e := env(t, c, plan)
	a := &temporal.Activities{Build: c.build}
	a.AddPlan(plan)
	lostOnce := false
	e.OnActivity(temporal.ActivityExecute, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in temporal.ExecuteInput) (*temporal.ExecuteOutput, error) {
			if in.Task == "T1" && in.Attempt == 1 && !lostOnce {
				lostOnce = true
				return nil, sdktemporal.NewHeartbeatTimeoutError()
			}
			return a.Execute(ctx, in)
		})
	e.ExecuteWorkflow(temporal.WorkflowName, temporal.RunInput{Plan: plan, Dir: t.TempDir()})
	var res temporal.RunResult
	if err := e.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	got := viewOf(res.State)
	want := taskView{Status: policy.StatusDone, Attempts: 2, Finished: 2, Failures: []string{"#1 interrupted  []"}}
	if res.Outcome != policy.Completed || !cmp.Equal(got.Tasks["T1"], want) || got.Cycles != 3 || got.Tokens != 5 {
		t.Fatalf("outcome %s, cycles %d, tokens %d, T1 %s", res.Outcome, got.Cycles, got.Tokens, cmp.Diff(want, got.Tasks["T1"]))
	}
}

// TestGateChecklist: a gate waits for the approval signal, with its manual
// checklist in the query meanwhile, and the status query answers the run's
// state as harnish status --json does.
func TestGateChecklist(t *testing.T) {
	plan := twoPhases("the README example renders")
	c := &components{}
	e := env(t, c, plan)
	var list *temporal.Checklist
	var st policy.RunState
	e.RegisterDelayedCallback(func() {
		v, err := e.QueryWorkflow(temporal.QueryChecklist)
		if err == nil {
			err = v.Get(&list)
		}
		if err != nil {
			t.Error(err)
		}
		v, err = e.QueryWorkflow(temporal.QueryStatus)
		if err == nil {
			err = v.Get(&st)
		}
		if err != nil {
			t.Error(err)
		}
		e.SignalWorkflow(temporal.SignalApprove, temporal.Approval{By: "ann"})
	}, time.Hour)
	e.ExecuteWorkflow(temporal.WorkflowName, temporal.RunInput{Plan: plan, Dir: t.TempDir()})
	// The gate approved, the run continues as new with the next phase.
	can, ok := errors.AsType[*workflow.ContinueAsNewError](e.GetWorkflowError())
	if !ok {
		t.Fatalf("workflow error %v, want it to continue as new", e.GetWorkflowError())
	}
	var next temporal.RunInput
	if err := decode(can, &next); err != nil {
		t.Fatal(err)
	}
	want := &temporal.Checklist{Phase: "p1", Title: "P1", Next: "p2", Manual: []string{"T1: the README example renders"},
		Summary: "Automated passed: T1 (scripted); please verify: T1: the README example renders."}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("checklist (-want +got):\n%s", diff)
	}
	if st.AwaitingGate != "p1" || st.Tasks["T1"].Status != policy.StatusDone || st.Outcome != "" {
		t.Errorf("status while waiting: gate %q, T1 %+v, outcome %q", st.AwaitingGate, st.Tasks["T1"], st.Outcome)
	}
	if got := next.Carry.State; got.Outcome != "" || !slices.Equal(got.Approved, []string{"p1"}) || got.Tasks["T1"].Status != policy.StatusDone {
		t.Errorf("carried: outcome %q, approved %v, T1 %+v", got.Outcome, got.Approved, got.Tasks["T1"])
	}
}

// TestCancel: cancelling the workflow cancels the attempt in flight and
// ends the run cancelled; the attempt stays unreported, to count as cut
// off if the run is resumed.
func TestCancel(t *testing.T) {
	plan := onePhase(check("T1"))
	c := &components{sc: script{tries: map[string][]try{"T1": {{hang: true}}}}}
	e := env(t, c, plan)
	e.RegisterDelayedCallback(e.CancelWorkflow, time.Second)
	e.ExecuteWorkflow(temporal.WorkflowName, temporal.RunInput{Plan: plan, Dir: t.TempDir()})
	err := e.GetWorkflowError()
	if !sdktemporal.IsCanceledError(err) {
		t.Fatalf("workflow error %v, want cancelled", err)
	}
	var st policy.RunState
	v, err := e.QueryWorkflow(temporal.QueryStatus)
	if err == nil {
		err = v.Get(&st)
	}
	if err != nil {
		t.Fatal(err)
	}
	if st.Outcome != policy.Cancelled || st.Tasks["T1"].Attempts != 1 || st.Tasks["T1"].Finished != 0 {
		t.Fatalf("outcome %s, T1 %+v", st.Outcome, st.Tasks["T1"])
	}
}

// TestContinueAsNew: a run continues as new at each gate approved, with
// its state, and ends exactly as the decision core says.
func TestContinueAsNew(t *testing.T) {
	plan := &task.Plan{Version: "1", Name: "p", Phases: []task.Phase{
		{ID: "p1", Tasks: []task.Task{check("T1"), check("T2")}},
		{ID: "p2", Tasks: []task.Task{check("T3")}},
		{ID: "p3", Tasks: []task.Task{check("T4")}},
	}}
	sc := script{tries: map[string][]try{"T2": {{fp: "a"}, {fp: "a"}}, "T3": {{tokens: 9}}}, found: map[string]bool{"T2": true},
		gates: []policy.Verdict{policy.Approve, policy.Approve}}
	res, hops, err := runIn(t, &components{sc: sc}, temporal.RunInput{Plan: plan, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if hops != 2 {
		t.Errorf("continued as new %d times, want 2", hops)
	}
	want := policyRun(t, plan, policy.Policy{}, sc)
	if diff := cmp.Diff(viewOf(want), viewOf(res.State)); diff != "" {
		t.Errorf("(-policy +workflow):\n%s", diff)
	}
}

func decode(can *workflow.ContinueAsNewError, in *temporal.RunInput) error {
	return converter.GetDefaultDataConverter().FromPayloads(can.Input, in)
}

// TestSideBySide: tasks the plan lets run at once are taken as concurrent
// activities, within the plan's limit and the host's.
func TestSideBySide(t *testing.T) {
	var tasks []task.Task
	for i := range 6 {
		tasks = append(tasks, check(fmt.Sprintf("T%d", i+1)))
	}
	for _, tc := range []struct {
		parallel, max, want int
	}{{3, 0, 3}, {3, 2, 2}, {1, 0, 1}} {
		plan := onePhase(tasks...)
		plan.Parallel = tc.parallel
		c := &components{sleep: 100 * time.Millisecond}
		res, _, err := runIn(t, c, temporal.RunInput{Plan: plan, Dir: t.TempDir(), SideBySide: true, MaxParallel: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != policy.Completed || c.peak != tc.want {
			t.Errorf("parallel %d, max %d: outcome %s, %d at once, want %d", tc.parallel, tc.max, res.Outcome, c.peak, tc.want)
		}
	}
}

// TestResume: a run that ended escalated is resumed as "harnish resume"
// does: the task gets a fresh budget, its attempts go on being numbered,
// and the run ends as the decision core says.
func TestResume(t *testing.T) {
	plan := twoPhases()
	plan.Phases[0].Tasks[0].Budget.Attempts = 1
	sc := script{tries: map[string][]try{"T1": {{fp: "a", tokens: 3}, {tokens: 4}}}}
	c := &components{sc: sc}
	res, _, err := runIn(t, c, temporal.RunInput{Plan: plan, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != policy.Escalated || res.Carry == nil {
		t.Fatalf("first run: %s (%s)", res.Outcome, res.Reason)
	}
	res, _, err = runIn(t, c, temporal.RunInput{Plan: plan, Dir: t.TempDir(), Carry: res.Carry, Resume: true, Approve: true})
	if err != nil {
		t.Fatal(err)
	}

	// The decision core alone: the same script, the same resume.
	p := policy.Policy{}
	h := &looptest.Host{Policy: &p, Tries: map[string][]looptest.Try{"T1": {{Fingerprint: "test:a", Tokens: 3}, {Tokens: 4}}},
		Verdicts: []policy.Verdict{policy.Approve}, MaxSteps: 100}
	_, st, err := h.Drive(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := p.Resume(st, true, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		if err := st.Apply(tr); err != nil {
			t.Fatal(err)
		}
	}
	if _, st, err = h.Drive(context.Background(), plan, st); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viewOf(st), viewOf(res.State)); diff != "" || res.Outcome != policy.Completed {
		t.Fatalf("outcome %s (%s); (-policy +workflow):\n%s", res.Outcome, res.Reason, diff)
	}
	if got := res.State.Tasks["T1"]; got.Attempts != 2 || got.Tokens != 7 {
		t.Fatalf("T1 %+v", got)
	}
}
