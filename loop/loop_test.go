package loop_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

func twoPhasePlan() *task.Plan {
	return &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{
		{ID: "p1", Title: "P1", Tasks: []task.Task{check("T1"), check("T2", "T1")}},
		{ID: "p2", Title: "P2", Tasks: []task.Task{check("T3")}},
	}}
}

var (
	passT1 = []string{"task.started T1", "attempt.started T1#1", "verify.passed T1#1", "attempt.finished T1#1", "task.done T1"}
	passT2 = []string{"task.started T2", "attempt.started T2#1", "verify.passed T2#1", "attempt.finished T2#1", "task.done T2"}
	passT3 = []string{"task.started T3", "attempt.started T3#1", "verify.passed T3#1", "attempt.finished T3#1", "task.done T3"}
)

func join(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestLoopRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     loop.Config
		want    policy.Outcome
		events  []string
		wantErr error
	}{
		{
			name: "every task passes; the gate approves",
			cfg:  loop.Config{Gate: &looptest.Gate{}},
			want: policy.Completed,
			events: join([]string{"run.started"}, passT1, passT2,
				[]string{"milestone.reached p1", "milestone.approved p1"}, passT3, []string{"run.finished completed"}),
		},
		{
			name: "two strikes, the debugger's fix works; no gate: awaiting approval",
			cfg: loop.Config{Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}},
				Debugger: &looptest.Debugger{Found: map[string]bool{"T1": true}}},
			want:    policy.AwaitingApproval,
			wantErr: policy.ErrAwaitingApproval,
			events: join([]string{"run.started", "task.started T1",
				"attempt.started T1#1", "verify.failed T1#1 test:x", "attempt.finished T1#1 test:x",
				"attempt.started T1#2", "verify.failed T1#2 test:x", "attempt.finished T1#2 test:x",
				"debugger.invoked T1",
				"attempt.started T1#3", "verify.passed T1#3", "attempt.finished T1#3", "task.done T1"},
				passT2, []string{"milestone.reached p1", "run.finished awaiting-approval"}),
		},
		{
			name:    "two strikes without a debugger: halt, and no debugger is said to have run",
			cfg:     loop.Config{Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}}},
			want:    policy.Halted,
			wantErr: policy.ErrHalted,
			events: []string{"run.started", "task.started T1",
				"attempt.started T1#1", "verify.failed T1#1 test:x", "attempt.finished T1#1 test:x",
				"attempt.started T1#2", "verify.failed T1#2 test:x", "attempt.finished T1#2 test:x",
				"task.halted T1", "run.finished halted"},
		},
		{
			name: "a critical review sends the task back; a blocked claim stops it",
			cfg: loop.Config{Reviewer: &looptest.Reviewer{Critical: map[string][]bool{"T1": {true}}},
				Executor: &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{}, {Blocked: "needs a key"}}}}},
			want:    policy.Blocked,
			wantErr: policy.ErrBlocked,
			events: []string{"run.started", "task.started T1",
				"attempt.started T1#1", "verify.passed T1#1", "review.findings T1#1", "attempt.finished T1#1",
				"attempt.started T1#2", "attempt.finished T1#2", "task.blocked T1", "run.finished blocked"},
		},
		{
			name:    "a crash and a panicking agent fail the same way: two strikes",
			cfg:     loop.Config{Executor: &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Crash: "exit status 1"}, {Panic: true}}}}},
			want:    policy.Halted,
			wantErr: policy.ErrHalted,
			events: []string{"run.started", "task.started T1",
				"attempt.started T1#1", "attempt.finished T1#1 executor:crashed",
				"attempt.started T1#2", "attempt.finished T1#2 executor:crashed",
				"task.halted T1", "run.finished halted"},
		},
		{
			name:    "the run's cycles run out: budget exceeded before the next task",
			cfg:     loop.Config{Plan: &task.Plan{Version: "1", Name: "b", Budget: task.Budget{Cycles: 1}, Phases: twoPhasePlan().Phases}},
			want:    policy.BudgetExceeded,
			wantErr: policy.ErrBudgetExceeded,
			events:  join([]string{"run.started"}, passT1, []string{"run.finished budget-exceeded"}),
		},
		{
			name: "the executor's tokens run out",
			cfg: loop.Config{Plan: &task.Plan{Version: "1", Name: "b", Budget: task.Budget{Tokens: 10}, Phases: twoPhasePlan().Phases},
				Executor: &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Usage: executor.Usage{InputTokens: 8, OutputTokens: 4}}}}}},
			want:    policy.BudgetExceeded,
			wantErr: policy.ErrBudgetExceeded,
			events:  join([]string{"run.started"}, passT1, []string{"run.finished budget-exceeded"}),
		},
		{
			name: "the cost runs out",
			cfg: loop.Config{Plan: &task.Plan{Version: "1", Name: "b", Budget: task.Budget{CostUSD: 1}, Phases: twoPhasePlan().Phases},
				Executor: &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Usage: executor.Usage{CostUSD: 1.25}}}}}},
			want:    policy.BudgetExceeded,
			wantErr: policy.ErrBudgetExceeded,
			events:  join([]string{"run.started"}, passT1, []string{"run.finished budget-exceeded"}),
		},
		{
			name: "the same critical findings three rounds running: plateau",
			cfg: loop.Config{Plan: onePhase(task.Task{ID: "T1", Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}}, Budget: task.Budget{Attempts: 5}}),
				Reviewer: &looptest.Reviewer{Critical: map[string][]bool{"T1": {true, true, true}}}},
			want:    policy.Escalated,
			wantErr: policy.ErrEscalated,
			events: []string{"run.started", "task.started T1",
				"attempt.started T1#1", "verify.passed T1#1", "review.findings T1#1", "attempt.finished T1#1",
				"attempt.started T1#2", "verify.passed T1#2", "review.findings T1#2", "attempt.finished T1#2",
				"attempt.started T1#3", "verify.passed T1#3", "review.findings T1#3", "attempt.finished T1#3",
				"task.escalated T1", "run.finished escalated"},
		},
		{
			name:    "a task without acceptance criteria escalates before it starts",
			cfg:     loop.Config{Plan: onePhase(task.Task{ID: "T1", Title: "t"}, check("T2"))},
			want:    policy.Escalated,
			wantErr: policy.ErrEscalated,
			events:  []string{"run.started", "task.started T1", "task.escalated T1", "run.finished escalated"},
		},
		{
			name: "independent tasks go on past an escalation when the policy says so",
			cfg: loop.Config{Plan: onePhase(task.Task{ID: "T1", Title: "t"}, check("T2", "T1"), check("T3")),
				Policy: policy.Policy{ContinueIndependent: true}},
			want:    policy.Escalated,
			wantErr: policy.ErrEscalated,
			events:  join([]string{"run.started", "task.started T1", "task.escalated T1"}, passT3, []string{"run.finished escalated"}),
		},
		{
			name:    "a rejected milestone escalates",
			cfg:     loop.Config{Gate: &looptest.Gate{Verdicts: []policy.Verdict{policy.Reject}}},
			want:    policy.Escalated,
			wantErr: policy.ErrEscalated,
			events:  join([]string{"run.started"}, passT1, passT2, []string{"milestone.reached p1", "run.finished escalated"}),
		},
		{
			name:    "a panicking gate ends the run with an error",
			cfg:     loop.Config{Gate: &looptest.Gate{Panic: true}},
			want:    policy.Errored,
			wantErr: policy.ErrErrored,
			events:  join([]string{"run.started"}, passT1, passT2, []string{"milestone.reached p1", "run.finished error"}),
		},
		{
			name:    "a panicking verifier ends the run with an error",
			cfg:     loop.Config{Verifier: &looptest.Verifier{Panic: true}},
			want:    policy.Errored,
			wantErr: policy.ErrErrored,
			events:  []string{"run.started", "task.started T1", "attempt.started T1#1", "attempt.finished T1#1", "run.finished error"},
		},
		{
			name:    "a panicking reviewer ends the run with an error",
			cfg:     loop.Config{Reviewer: &looptest.Reviewer{Panic: true}},
			want:    policy.Errored,
			wantErr: policy.ErrErrored,
			events:  []string{"run.started", "task.started T1", "attempt.started T1#1", "verify.passed T1#1", "attempt.finished T1#1", "run.finished error"},
		},
		{
			name: "a panicking debugger counts as no root cause",
			cfg: loop.Config{Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}},
				Debugger: &looptest.Debugger{Panic: true}},
			want:    policy.Halted,
			wantErr: policy.ErrHalted,
			events: []string{"run.started", "task.started T1",
				"attempt.started T1#1", "verify.failed T1#1 test:x", "attempt.finished T1#1 test:x",
				"attempt.started T1#2", "verify.failed T1#2 test:x", "attempt.finished T1#2 test:x",
				"debugger.invoked T1", "fivewhys.recorded T1", "task.halted T1", "run.finished halted"},
		},
		{
			name:    "a panicking observer changes nothing",
			cfg:     loop.Config{Gate: &looptest.Gate{}, Observer: loop.ObserverFunc(func(loop.Event) { panic("observer") })},
			want:    policy.Completed,
			events:  nil,
			wantErr: nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.Plan == nil {
				tc.cfg.Plan = twoPhasePlan()
			}
			res, rec, err := looptest.Run(t, tc.cfg)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Run error %v, want %v", err, tc.wantErr)
			}
			if res.Outcome != tc.want {
				t.Errorf("outcome %s (%s), want %s", res.Outcome, res.Reason, tc.want)
			}
			if diff := cmp.Diff(tc.events, rec.Lines()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoopPromptCarriesFailures: the next attempt's prompt holds the failure
// that sent it back, and after two strikes the debugger's fix.
func TestLoopPromptCarriesFailures(t *testing.T) {
	ex := &looptest.Executor{}
	_, _, err := looptest.Run(t, loop.Config{Plan: onePhase(check("T1")), Executor: ex,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}},
		Debugger: &looptest.Debugger{Found: map[string]bool{"T1": true}}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := ex.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{"Task T1: T1", "FAIL x", "Smallest fix: scripted fix"} {
		if !strings.Contains(reqs[i].Prompt, want) {
			t.Errorf("prompt %d lacks %q:\n%s", i+1, want, reqs[i].Prompt)
		}
	}
	if d := reqs[2].Parts.Diagnosis; d == nil || d.RootCause != "scripted root cause" {
		t.Errorf("attempt 3's diagnosis: %+v", d)
	}
}

// TestLoopCancelAndResume: cancelling mid-attempt ends the run cancelled;
// resuming from the on-disk store counts the cut attempt and finishes.
func TestLoopCancelAndResume(t *testing.T) {
	store := open(t, filepath.Join(t.TempDir(), loop.StateDir), nil)
	ctx, cancel := context.WithCancel(context.Background())
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Do: func(*executor.Request) error { cancel(); return nil }, Hang: true}}}}
	cfg := loop.Config{Plan: onePhase(check("T1")), Executor: ex, Verifier: &looptest.Verifier{}, Store: store, Now: (&looptest.Clock{}).Now}
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Run(ctx)
	if !errors.Is(err, policy.ErrCancelled) || res.Outcome != policy.Cancelled {
		t.Fatalf("Run: %v, %+v", err, res)
	}
	l, _ = loop.New(cfg)
	res, err = l.Resume(context.Background(), loop.ResumeOptions{})
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	got := res.State.Tasks["T1"]
	want := &policy.TaskState{Status: policy.StatusDone, Attempts: 2, Finished: 2, Elapsed: got.Elapsed,
		Failures: []policy.Failure{{Attempt: 1, Kind: policy.FailInterrupted, Reason: "the attempt was cut off"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("task after resume (-want +got):\n%s", diff)
	}
}

// TestLoopTaskTimeout: an agent that hangs is cancelled when the task's time
// runs out, with the budget as the cause, and the task escalates.
func TestLoopTaskTimeout(t *testing.T) {
	plan := onePhase(task.Task{ID: "T1", Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}},
		Budget: task.Budget{TaskTimeout: task.Duration(time.Second), Attempts: 1}})
	res, _, err := looptest.Run(t, loop.Config{Plan: plan, Now: time.Now,
		Executor: &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Hang: true}}}}})
	if !errors.Is(err, policy.ErrEscalated) {
		t.Fatalf("Run: %v", err)
	}
	if f := res.State.Tasks["T1"].Failures; len(f) != 1 || f[0].Fingerprint != "executor:timeout" ||
		!strings.Contains(f[0].Reason, loop.ErrTaskTimeout.Error()) {
		t.Errorf("failures %+v, want one executor timeout caused by the task budget", f)
	}
}

// TestLoopStoreFails: a store that cannot record stops the run with its error.
func TestLoopStoreFails(t *testing.T) {
	store := looptest.NewStore()
	store.FailAt = 4
	l, err := loop.New(loop.Config{Plan: twoPhasePlan(), Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "transition 4 failed as scripted") {
		t.Fatalf("Run: %v", err)
	}
	if n := len(store.Transitions()); n != 3 {
		t.Errorf("%d transitions recorded, want 3", n)
	}
}

func TestNewRejects(t *testing.T) {
	ok := loop.Config{Plan: twoPhasePlan(), Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}, Store: looptest.NewStore()}
	for _, tc := range []struct {
		name   string
		change func(*loop.Config)
		want   string
	}{
		{"no plan", func(c *loop.Config) { c.Plan = nil }, "loop: Config.Plan is nil"},
		{"no executor", func(c *loop.Config) { c.Executor = nil }, "loop: Config.Executor is nil"},
		{"no verifier", func(c *loop.Config) { c.Verifier = nil }, "loop: Config.Verifier is nil"},
		{"no store", func(c *loop.Config) { c.Store = nil }, "loop: Config.Store is nil"},
		{"invalid plan", func(c *loop.Config) { c.Plan = &task.Plan{Version: "1", Name: "p"} },
			"loop: the plan does not validate: phases: required: a plan has at least one phase"},
	} {
		cfg := ok
		tc.change(&cfg)
		if _, err := loop.New(cfg); err == nil || err.Error() != tc.want {
			t.Errorf("%s: New error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestLoopResumeAfterEveryCut stops the loop at every commit of a run that
// meets a retry, two strikes with a root cause, a critical review and a
// gate, resumes it from the store a crash there would leave, and compares
// the end with the uninterrupted run: every task done with the same
// attempts, nothing done run again.
func TestLoopResumeAfterEveryCut(t *testing.T) {
	cfg := func(store loop.Store) loop.Config {
		return loop.Config{Plan: twoPhasePlan(), Store: store, Gate: &looptest.Gate{},
			Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}, "T3": {"y"}}},
			Debugger: &looptest.Debugger{Found: map[string]bool{"T1": true}},
			Reviewer: &looptest.Reviewer{Critical: map[string][]bool{"T2": {true}}}}
	}
	full := looptest.NewStore()
	res, _, err := looptest.Run(t, cfg(full))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for id, ts := range res.State.Tasks {
		want[id] = ts.Attempts
	}
	if diff := cmp.Diff(map[string]int{"T1": 3, "T2": 2, "T3": 2}, want); diff != "" {
		t.Fatalf("uninterrupted attempts (-want +got):\n%s", diff)
	}
	cuts := full.Cuts()
	for _, n := range cuts[:len(cuts)-1] {
		store, err := full.Restore(n)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := store.Load(context.Background())
		cutOff := ""
		for id, ts := range st.Tasks {
			if ts.Finished < ts.Attempts {
				cutOff = id
			}
		}
		l, err := loop.New(func() loop.Config { c := cfg(store); c.Executor = &looptest.Executor{}; return c }())
		if err != nil {
			t.Fatal(err)
		}
		res, err := l.Resume(context.Background(), loop.ResumeOptions{})
		if err != nil {
			t.Fatalf("cut after %d transitions: %v", n, err)
		}
		for id, ts := range res.State.Tasks {
			w := want[id]
			if id == cutOff {
				w++ // the attempt the crash cut off counts
			}
			if ts.Status != policy.StatusDone || ts.Attempts < want[id] || ts.Attempts > w {
				t.Errorf("cut after %d transitions: task %s %s after %d attempts, want done after %d",
					n, id, ts.Status, ts.Attempts, w)
			}
		}
	}
}

// TestLoopVoidedAttempt: when the checks cannot run (a fault of the
// harness), the attempt is voided: the run ends with an error for a person,
// and after a resume the task still has its whole budget.
func TestLoopVoidedAttempt(t *testing.T) {
	store := looptest.NewStore()
	plan := onePhase(task.Task{ID: "T1", Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}}, Budget: task.Budget{Attempts: 1}})
	res, _, err := looptest.Run(t, loop.Config{Plan: plan, Store: store, Verifier: &looptest.Verifier{Panic: true}})
	if !errors.Is(err, policy.ErrErrored) || !strings.Contains(res.Reason, "verifier panic") {
		t.Fatalf("first run: %v (%s)", err, res.Reason)
	}
	l, err := loop.New(loop.Config{Plan: plan, Store: store, Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err = l.Resume(context.Background(), loop.ResumeOptions{})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	ts := res.State.Tasks["T1"]
	if ts.Status != policy.StatusDone || ts.Attempts != 2 || ts.Voided != 1 || len(ts.Failures) != 0 {
		t.Errorf("T1 after resume: %+v", ts)
	}
}

// TestLoopExecutorUnavailable: an executor that cannot start at all ends the
// run with an error at once, instead of burning the attempts.
func TestLoopExecutorUnavailable(t *testing.T) {
	res, rec, err := looptest.Run(t, loop.Config{Plan: onePhase(check("T1")),
		Executor: &executor.Command{Argv: []string{filepath.Join(t.TempDir(), "no-such-agent")}}})
	if !errors.Is(err, policy.ErrErrored) {
		t.Fatalf("Run: %v", err)
	}
	want := []string{"run.started", "task.started T1", "attempt.started T1#1", "attempt.finished T1#1", "run.finished error"}
	if diff := cmp.Diff(want, rec.Lines()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if ts := res.State.Tasks["T1"]; ts.Voided != 1 {
		t.Errorf("T1: %+v, want the attempt voided", ts)
	}
}

// TestLoopRefusesAnotherPlan: a store holding a run of one plan is not
// driven with another.
func TestLoopRefusesAnotherPlan(t *testing.T) {
	store := looptest.NewStore()
	if _, _, err := looptest.Run(t, loop.Config{Plan: onePhase(check("T1")), Store: store}); err != nil {
		t.Fatal(err)
	}
	other := onePhase(check("T1"))
	other.Name = "other"
	l, err := loop.New(loop.Config{Plan: other, Store: store, Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(context.Background()); err == nil || err.Error() != `loop: the store holds run test-run of plan "p", not of plan "other"` {
		t.Errorf("Run: %v", err)
	}
}
