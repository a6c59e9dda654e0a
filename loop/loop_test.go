package loop_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// agent is a scripted executor: per task, one behaviour per attempt; past
// the script it claims done.
type agent struct {
	mu      sync.Mutex
	script  map[string][]string // "done", "blocked", "crash", "panic", "hang", "cancel"
	prompts []string
	cancel  context.CancelFunc
}

func (a *agent) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	a.mu.Lock()
	a.prompts = append(a.prompts, req.Prompt)
	var do string
	if s := a.script[req.Task.ID]; req.Attempt <= len(s) {
		do = s[req.Attempt-1]
	}
	a.mu.Unlock()
	switch do {
	case "blocked":
		return &executor.Result{Status: executor.StatusBlocked, Reason: "needs a key"}, nil
	case "crash":
		return nil, &executor.Error{Kind: executor.KindCrashed, Err: errors.New("exit status 1")}
	case "panic":
		panic("agent fell over")
	case "hang":
		<-ctx.Done()
		return nil, context.Cause(ctx)
	case "cancel":
		a.cancel()
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	return &executor.Result{Status: executor.StatusDone, Usage: executor.Usage{InputTokens: 10, OutputTokens: 5}}, nil
}

// checks is a scripted verifier: per task, one fingerprint per attempt ("" passes).
type checks struct {
	script map[string][]string
	panics bool
}

func (c *checks) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	if c.panics {
		panic("verifier fell over")
	}
	var fp string
	if s := c.script[req.Task.ID]; req.Attempt <= len(s) {
		fp = s[req.Attempt-1]
	}
	if fp == "" {
		return &verify.Report{Passed: true}, nil
	}
	return &verify.Report{Checks: []verify.CheckResult{{Name: "go test", OutputTail: "FAIL " + fp}},
		Fingerprint: verify.Fingerprint{Class: verify.ClassTest, Hash: fp, Summary: "test " + fp + " failed"}}, nil
}

type reviewer map[string][]bool // per task, per attempt: critical?

func (r reviewer) Review(ctx context.Context, req *verify.ReviewRequest) (*verify.Review, error) {
	if s := r[req.Task.ID]; req.Attempt <= len(s) && s[req.Attempt-1] {
		return &verify.Review{Findings: []verify.Finding{{Severity: verify.SeverityCritical, File: "a.go", Line: req.Attempt, Message: "unchecked error"}}}, nil
	}
	return &verify.Review{Findings: []verify.Finding{{Severity: verify.SeverityLow, File: "a.go", Message: "naming"}}}, nil
}

type debugger struct{ found bool }

func (d debugger) Debug(ctx context.Context, req *executor.DebugRequest) (*executor.Diagnosis, error) {
	if len(req.Failures) < 2 {
		return nil, fmt.Errorf("debugger got %d failures, want at least 2", len(req.Failures))
	}
	return &executor.Diagnosis{Found: d.found, RootCause: "off by one", Fix: "use <="}, nil
}

type gate loop.Verdict

func (g gate) Approve(ctx context.Context, req *loop.GateRequest) (*loop.GateDecision, error) {
	if g == "panic" {
		panic("gate fell over")
	}
	return &loop.GateDecision{Verdict: loop.Verdict(g)}, nil
}

// events records event types, with the task and attempt where they apply.
type events []string

func (e *events) Observe(ev loop.Event) {
	s := string(ev.Type)
	if ev.Task != "" {
		s += " " + ev.Task
	}
	if ev.Attempt > 0 {
		s += fmt.Sprintf("#%d", ev.Attempt)
	}
	if ev.Fingerprint != "" {
		s += " " + ev.Fingerprint
	}
	if ev.Outcome != "" {
		s += " " + string(ev.Outcome)
	}
	*e = append(*e, s)
}

func twoPhasePlan() *task.Plan {
	return &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{
		{ID: "p1", Title: "P1", Tasks: []task.Task{check("T1"), check("T2", "T1")}},
		{ID: "p2", Title: "P2", Tasks: []task.Task{check("T3")}},
	}}
}

func newLoop(t *testing.T, cfg loop.Config) *loop.Loop {
	t.Helper()
	if cfg.Store == nil {
		cfg.Store = open(t, filepath.Join(t.TempDir(), loop.StateDir), nil)
	}
	if cfg.Plan == nil {
		cfg.Plan = twoPhasePlan()
	}
	if cfg.Verifier == nil {
		cfg.Verifier = &checks{}
	}
	at := t0
	cfg.Now = func() time.Time { at = at.Add(time.Second); return at }
	cfg.RunID = "run-1"
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLoopRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		agent   map[string][]string
		checks  map[string][]string
		review  reviewer
		debug   *debugger
		gate    loop.Gate
		want    loop.Outcome
		events  []string
		wantErr error
	}{
		{
			name: "every task passes; the gate approves",
			gate: gate(loop.Approve),
			want: loop.Completed,
			events: []string{"run.started", "task.started T1", "attempt.started T1#1", "verify.passed T1#1", "attempt.finished T1#1", "task.done T1",
				"task.started T2", "attempt.started T2#1", "verify.passed T2#1", "attempt.finished T2#1", "task.done T2",
				"milestone.reached", "milestone.approved",
				"task.started T3", "attempt.started T3#1", "verify.passed T3#1", "attempt.finished T3#1", "task.done T3",
				"run.finished completed"},
		},
		{
			name:    "two strikes, the debugger's fix works, no gate: awaiting approval",
			checks:  map[string][]string{"T1": {"x", "x"}},
			debug:   &debugger{found: true},
			want:    loop.AwaitingApproval,
			wantErr: loop.ErrAwaitingApproval,
			events: []string{"run.started", "task.started T1",
				"attempt.started T1#1", "verify.failed T1#1 test:x", "attempt.finished T1#1 test:x",
				"attempt.started T1#2", "verify.failed T1#2 test:x", "attempt.finished T1#2 test:x",
				"debugger.invoked T1",
				"attempt.started T1#3", "verify.passed T1#3", "attempt.finished T1#3", "task.done T1",
				"task.started T2", "attempt.started T2#1", "verify.passed T2#1", "attempt.finished T2#1", "task.done T2",
				"milestone.reached", "run.finished awaiting-approval"},
		},
		{
			name:    "two strikes without a debugger: five whys, halt",
			checks:  map[string][]string{"T1": {"x", "x"}},
			want:    loop.Halted,
			wantErr: loop.ErrHalted,
			events: []string{"run.started", "task.started T1",
				"attempt.started T1#1", "verify.failed T1#1 test:x", "attempt.finished T1#1 test:x",
				"attempt.started T1#2", "verify.failed T1#2 test:x", "attempt.finished T1#2 test:x",
				"debugger.invoked T1", "fivewhys.recorded T1", "task.halted T1", "run.finished halted"},
		},
		{
			name:    "a critical review sends the task back; blocked stops it",
			agent:   map[string][]string{"T1": {"done", "blocked"}},
			review:  reviewer{"T1": {true}},
			want:    loop.Blocked,
			wantErr: loop.ErrBlocked,
			events: []string{"run.started", "task.started T1",
				"attempt.started T1#1", "verify.passed T1#1", "review.findings T1#1", "attempt.finished T1#1",
				"attempt.started T1#2", "attempt.finished T1#2", "task.blocked T1", "run.finished blocked"},
		},
		{
			name:    "a crash and a panicking agent fail the same way: two strikes",
			agent:   map[string][]string{"T1": {"crash", "panic", "crash"}},
			want:    loop.Halted,
			wantErr: loop.ErrHalted,
			events: []string{"run.started", "task.started T1",
				"attempt.started T1#1", "attempt.finished T1#1 executor:crashed",
				"attempt.started T1#2", "attempt.finished T1#2 executor:crashed",
				"debugger.invoked T1", "fivewhys.recorded T1", "task.halted T1", "run.finished halted"},
		},
		{
			name:    "a panicking gate ends the run with an error",
			gate:    gate("panic"),
			want:    loop.Failed,
			wantErr: loop.ErrFailed,
			events: []string{"run.started", "task.started T1", "attempt.started T1#1", "verify.passed T1#1", "attempt.finished T1#1", "task.done T1",
				"task.started T2", "attempt.started T2#1", "verify.passed T2#1", "attempt.finished T2#1", "task.done T2",
				"milestone.reached", "run.finished error"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ev events
			cfg := loop.Config{Executor: &agent{script: tc.agent}, Verifier: &checks{script: tc.checks}, Gate: tc.gate, Observer: &ev}
			if tc.review != nil {
				cfg.Reviewer = tc.review
			}
			if tc.debug != nil {
				cfg.Debugger = *tc.debug
			}
			res, err := newLoop(t, cfg).Run(context.Background())
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Run error %v, want %v", err, tc.wantErr)
			}
			if res.Outcome != tc.want {
				t.Errorf("outcome %s (%s), want %s", res.Outcome, res.Reason, tc.want)
			}
			if diff := cmp.Diff(tc.events, []string(ev)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoopPromptCarriesFailures: the next attempt's prompt holds the failure
// that sent it back, and after two strikes the debugger's fix.
func TestLoopPromptCarriesFailures(t *testing.T) {
	a := &agent{}
	l := newLoop(t, loop.Config{Plan: onePhase(check("T1")), Executor: a,
		Verifier: &checks{script: map[string][]string{"T1": {"x", "x"}}}, Debugger: debugger{found: true}})
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(a.prompts) != 3 {
		t.Fatalf("%d prompts, want 3", len(a.prompts))
	}
	for i, want := range []string{"", "FAIL x", "Smallest fix: use <="} {
		if !strings.Contains(a.prompts[i], want) {
			t.Errorf("prompt %d lacks %q:\n%s", i+1, want, a.prompts[i])
		}
	}
}

// TestLoopCancelAndResume: cancelling mid-attempt ends the run cancelled;
// resuming counts the cut attempt and finishes the run.
func TestLoopCancelAndResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), loop.StateDir)
	ctx, cancel := context.WithCancel(context.Background())
	a := &agent{script: map[string][]string{"T1": {"cancel"}}, cancel: cancel}
	store := open(t, dir, nil)
	l := newLoop(t, loop.Config{Plan: onePhase(check("T1")), Executor: a, Store: store})
	res, err := l.Run(ctx)
	if !errors.Is(err, loop.ErrCancelled) || res.Outcome != loop.Cancelled {
		t.Fatalf("Run: %v, %+v", err, res)
	}
	res, err = newLoop(t, loop.Config{Plan: onePhase(check("T1")), Executor: a, Store: store}).Resume(context.Background(), false)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	want := &loop.TaskState{Status: loop.StatusDone, Attempts: 2, Finished: 2, Elapsed: res.State.Tasks["T1"].Elapsed, Tokens: 15,
		Failures: []loop.Failure{{Attempt: 1, Kind: loop.FailInterrupted, Reason: "the attempt was cut off"}}}
	if diff := cmp.Diff(want, res.State.Tasks["T1"]); diff != "" {
		t.Errorf("task after resume (-want +got):\n%s", diff)
	}
}

// TestLoopTaskTimeout: an agent that hangs is cancelled when the task's
// time runs out, with the budget as the cause, and the task escalates.
func TestLoopTaskTimeout(t *testing.T) {
	plan := onePhase(task.Task{ID: "T1", Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}},
		Budget: task.Budget{TaskTimeout: task.Duration(time.Second), Attempts: 1}})
	l, err := loop.New(loop.Config{Plan: plan, Executor: &agent{script: map[string][]string{"T1": {"hang"}}},
		Verifier: &checks{}, Store: open(t, filepath.Join(t.TempDir(), loop.StateDir), nil)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Run(context.Background())
	if !errors.Is(err, loop.ErrEscalated) {
		t.Fatalf("Run: %v", err)
	}
	if f := res.State.Tasks["T1"].Failures; len(f) != 1 || f[0].Fingerprint != "executor:timeout" {
		t.Errorf("failures %+v, want one executor timeout", f)
	}
}

func TestLoopPanickingVerifier(t *testing.T) {
	res, err := newLoop(t, loop.Config{Executor: &agent{}, Verifier: &checks{panics: true}}).Run(context.Background())
	if !errors.Is(err, loop.ErrFailed) || !strings.Contains(res.Reason, "verifier fell over") {
		t.Fatalf("Run: %v (%+v)", err, res)
	}
}
