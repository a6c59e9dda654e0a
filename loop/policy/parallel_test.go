package policy_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task/model"
)

// side builds a one-phase plan whose tasks may run n at a time; deps maps a
// task to what it depends on.
func side(n int, ids string, deps map[string][]string) *model.Plan {
	ph := model.Phase{ID: "p", Parallel: n}
	for _, id := range strings.Fields(ids) {
		ph.Tasks = append(ph.Tasks, model.Task{ID: id, Title: id, DependsOn: deps[id], Acceptance: []model.Check{{Run: []string{"true"}}}})
	}
	return &model.Plan{Version: "1", Name: "side", Phases: []model.Phase{ph}}
}

// stepper drives the policy by hand: each call of next commits a decision
// and says its steps as "attempt T1#1", "debug T1", "gate p" or
// "finish OUTCOME: REASON".
type stepper struct {
	t    *testing.T
	p    policy.Policy
	plan *model.Plan
	st   *policy.RunState
	now  time.Time
}

func newStepper(t *testing.T, plan *model.Plan) *stepper {
	st, err := policy.Replay(policy.Transition{Kind: policy.TransRunStarted, Run: "r", Plan: plan.Name})
	if err != nil {
		t.Fatal(err)
	}
	return &stepper{t: t, plan: plan, st: st}
}

func (s *stepper) commit(ts []policy.Transition, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
	for _, tr := range ts {
		if err := s.st.Apply(tr); err != nil {
			s.t.Fatal(err)
		}
	}
}

func (s *stepper) next(busy ...string) []string {
	s.t.Helper()
	s.now = s.now.Add(time.Second)
	d, err := s.p.Next(s.plan, s.st, s.now, busy...)
	if err != nil {
		s.t.Fatalf("Next(busy %v): %v", busy, err)
	}
	s.commit(d.Transitions, nil)
	var out []string
	for _, st := range d.Steps {
		switch st.Kind {
		case policy.StepAttempt:
			out = append(out, fmt.Sprintf("attempt %s#%d", st.Task, st.Attempt))
		case policy.StepDebug:
			out = append(out, "debug "+st.Task)
		case policy.StepGate:
			out = append(out, "gate "+st.Phase)
		case policy.StepFinish:
			out = append(out, fmt.Sprintf("finish %s: %s", st.Outcome, st.Reason))
		}
	}
	return out
}

// pass, fail and stop report the running attempt of a task.
func (s *stepper) pass(id string) { s.report(id, nil, nil) }
func (s *stepper) fail(id, fp string) {
	s.report(id, &policy.Failure{Kind: policy.FailVerify, Fingerprint: fp, Class: "test"}, nil)
}
func (s *stepper) stop(id string) { s.report(id, nil, &policy.GuardrailStop{Rule: "r", Reason: "no"}) }

func (s *stepper) report(id string, f *policy.Failure, stop *policy.GuardrailStop) {
	s.t.Helper()
	n := s.st.Tasks[id].Attempts
	if f != nil {
		f.Attempt = n
	}
	s.commit(s.p.ObserveAttempt(s.st, policy.AttemptReport{Task: id, Attempt: n, Failure: f, Stop: stop}, s.now))
}

func want(t *testing.T, got []string, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

// TestParallelSteps: the rules of tasks side by side, step by step.
func TestParallelSteps(t *testing.T) {
	t.Run("fan out to the limit, refill as each ends", func(t *testing.T) {
		s := newStepper(t, side(3, "T1 T2 T3 T4 T5", nil))
		want(t, s.next(), "attempt T1#1", "attempt T2#1", "attempt T3#1")
		s.pass("T2")
		want(t, s.next("T1", "T3"), "attempt T4#1")
		s.fail("T1", "x")
		want(t, s.next("T3", "T4"), "attempt T1#2") // its retry holds its place
		for _, id := range []string{"T1", "T3", "T4"} {
			s.pass(id)
		}
		want(t, s.next(), "attempt T5#1")
		s.pass("T5")
		want(t, s.next(), "finish completed: ")
	})
	t.Run("depends_on orders", func(t *testing.T) {
		s := newStepper(t, side(4, "T1 T2 T3", map[string][]string{"T2": {"T1"}}))
		want(t, s.next(), "attempt T1#1", "attempt T3#1")
		s.pass("T3")
		want(t, s.next("T1"))
		s.pass("T1")
		want(t, s.next(), "attempt T2#1")
	})
	t.Run("an escalation lets running siblings finish, and starts nothing", func(t *testing.T) {
		s := newStepper(t, side(2, "T1 T2 T3", nil))
		want(t, s.next(), "attempt T1#1", "attempt T2#1")
		for i, fp := range []string{"a", "b", "c"} {
			s.fail("T1", fp)
			if i < 2 {
				want(t, s.next("T2"), fmt.Sprintf("attempt T1#%d", i+2))
			}
		}
		want(t, s.next("T2")) // T1 escalates; T3 does not start while T2 runs
		if st := s.st.Tasks["T1"].Status; st != policy.StatusEscalated {
			t.Fatalf("T1 is %s", st)
		}
		s.pass("T2")
		want(t, s.next(), "finish escalated: task T1: 3 attempts used, the last: verify failure c")
		if s.st.Tasks["T2"].Status != policy.StatusDone || s.st.Tasks["T3"] != nil {
			t.Errorf("T2 %v, T3 %v", s.st.Tasks["T2"], s.st.Tasks["T3"])
		}
	})
	t.Run("the same failure in two tasks is one cause, reported once", func(t *testing.T) {
		s := newStepper(t, side(3, "T1 T2 T3 T4", nil))
		want(t, s.next(), "attempt T1#1", "attempt T2#1", "attempt T3#1")
		s.fail("T1", "dep")
		want(t, s.next("T2", "T3"), "attempt T1#2")
		s.fail("T2", "dep")
		want(t, s.next("T1", "T3")) // T2 stops with the cause; T1 and T3 are in flight
		if c := s.st.SharedCause; !strings.Contains(c, "tasks T1, T2 failed the same way") {
			t.Fatalf("shared cause %q", c)
		}
		s.fail("T1", "dep")
		want(t, s.next("T3")) // T1 stops with the cause when it reports
		s.pass("T3")
		steps := s.next()
		if len(steps) != 1 || !strings.HasPrefix(steps[0], "finish escalated: a shared cause: tasks T1, T2 failed the same way (verify failure dep)") {
			t.Errorf("steps %v", steps)
		}
		for id, st := range map[string]policy.TaskStatus{"T1": policy.StatusEscalated, "T2": policy.StatusEscalated, "T3": policy.StatusDone} {
			if got := s.st.Tasks[id].Status; got != st {
				t.Errorf("%s is %s, want %s", id, got, st)
			}
		}
		if s.st.Tasks["T4"] != nil || s.st.Tasks["T1"].Attempts != 2 {
			t.Errorf("T4 %v; T1 used %d attempts, want 2", s.st.Tasks["T4"], s.st.Tasks["T1"].Attempts)
		}
	})
	t.Run("a hard guardrail ends the run with siblings in flight", func(t *testing.T) {
		s := newStepper(t, side(2, "T1 T2", nil))
		want(t, s.next(), "attempt T1#1", "attempt T2#1")
		s.stop("T1")
		want(t, s.next("T2"), "finish stopped-by-guardrail: hard guardrail r: no")
	})
	t.Run("the gate waits for the whole phase", func(t *testing.T) {
		plan := side(2, "T1 T2", nil)
		plan.Phases = append(plan.Phases, model.Phase{ID: "q", Tasks: []model.Task{{ID: "T3", Title: "T3", Acceptance: []model.Check{{Run: []string{"true"}}}}}})
		s := newStepper(t, plan)
		want(t, s.next(), "attempt T1#1", "attempt T2#1")
		s.pass("T1")
		want(t, s.next("T2"))
		s.pass("T2")
		want(t, s.next(), "gate p")
	})
	t.Run("a crash cut off every attempt in flight", func(t *testing.T) {
		s := newStepper(t, side(2, "T1 T2", nil))
		want(t, s.next(), "attempt T1#1", "attempt T2#1")
		// The host died: on resume nothing is busy.
		want(t, s.next(), "attempt T1#2", "attempt T2#2")
		for _, id := range []string{"T1", "T2"} {
			if f := s.st.Tasks[id].Failures; len(f) != 1 || f[0].Kind != policy.FailInterrupted {
				t.Errorf("%s's failures: %+v", id, f)
			}
		}
	})
	t.Run("the host's limit caps the plan's", func(t *testing.T) {
		s := newStepper(t, side(8, "T1 T2 T3", nil))
		s.p.MaxParallel = 2
		want(t, s.next(), "attempt T1#1", "attempt T2#1")
	})
	t.Run("one at a time by default", func(t *testing.T) {
		s := newStepper(t, side(0, "T1 T2", nil))
		want(t, s.next(), "attempt T1#1")
	})
	t.Run("a busy task must be running", func(t *testing.T) {
		s := newStepper(t, side(2, "T1 T2", nil))
		if _, err := s.p.Next(s.plan, s.st, s.now, "T1"); err == nil {
			t.Error("Next with a busy task that never started: no error")
		}
	})
}

// limitHost takes attempts that take real time, as scripted by a
// looptest.Host, and counts how many run at once.
type limitHost struct {
	script    *looptest.Host
	p         *policy.Policy
	mu        sync.Mutex // guards st and order
	st        *policy.RunState
	order     []string
	now, most atomic.Int32
	full      chan struct{} // closed when four attempts run at once; nil: no waiting
	once      sync.Once
}

func (h *limitHost) Now() time.Time { return time.Unix(0, 0) }

func (h *limitHost) Commit(_ context.Context, ts []policy.Transition) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range ts {
		if err := h.st.Apply(t); err != nil {
			return err
		}
	}
	return nil
}

func (h *limitHost) Take(ctx context.Context, s policy.Step) ([]policy.Transition, error) {
	if s.Kind != policy.StepAttempt {
		return nil, fmt.Errorf("step %s", s.Kind)
	}
	n := h.now.Add(1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
	if h.full != nil && n == 4 {
		h.once.Do(func() { close(h.full) })
	}
	if h.full != nil {
		// The first attempts wait until four run at once, so the count does
		// not hang on how fast a loaded machine starts goroutines.
		select {
		case <-h.full:
		case <-time.After(10 * time.Second):
		}
	}
	time.Sleep(time.Millisecond)
	h.now.Add(-1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.order = append(h.order, s.Task)
	return h.p.ObserveAttempt(h.st, h.script.Report(s), h.Now())
}

// TestDriveSideBySide: Drive takes the steps of tasks side by side
// concurrently, never more than the plan allows, and every task once.
func TestDriveSideBySide(t *testing.T) {
	ids := make([]string, 24)
	for i := range ids {
		ids[i] = fmt.Sprintf("T%d", i+1)
	}
	plan := side(4, strings.Join(ids, " "), nil)
	st, err := policy.Replay(policy.Transition{Kind: policy.TransRunStarted, Run: "r", Plan: plan.Name})
	if err != nil {
		t.Fatal(err)
	}
	h := &limitHost{script: &looptest.Host{Tries: map[string][]looptest.Try{"T5": {{Fingerprint: "x"}}}}, p: &policy.Policy{}, st: st,
		full: make(chan struct{})}
	end, err := h.p.Drive(context.Background(), plan, st, h)
	if err != nil || end.Outcome != policy.Completed {
		t.Fatalf("Drive = %+v, %v", end, err)
	}
	if m := h.most.Load(); m != 4 {
		t.Errorf("at most %d attempts ran at once, want 4", m)
	}
	if len(h.order) != 25 || st.Tasks["T5"].Attempts != 2 {
		t.Errorf("%d attempts (%v); T5 made %d, want 2", len(h.order), h.order, st.Tasks["T5"].Attempts)
	}
}

// blockHost fails T1's attempt at once (or cancels the run, with cancel
// set) while T2's waits for its context: the steps in flight when the run
// ends are stopped, waited for and not reported.
type blockHost struct {
	limitHost
	cancel context.CancelFunc
	t2done chan struct{}
}

func (h *blockHost) Take(ctx context.Context, s policy.Step) ([]policy.Transition, error) {
	if s.Task == "T2" {
		<-ctx.Done()
		close(h.t2done)
		return nil, ctx.Err()
	}
	if h.cancel != nil {
		h.cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("the executor's binary is gone")
}

func TestDriveEndsWithStepsInFlight(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cancel bool
		want   policy.Outcome
	}{
		{"a step the host could not take", false, policy.Errored},
		{"the host cancelled", true, policy.Cancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := side(2, "T1 T2", nil)
			st, _ := policy.Replay(policy.Transition{Kind: policy.TransRunStarted, Run: "r", Plan: plan.Name})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			h := &blockHost{limitHost: limitHost{p: &policy.Policy{}, st: st}, t2done: make(chan struct{})}
			if tc.cancel {
				h.cancel = cancel
			}
			end, err := h.p.Drive(ctx, plan, st, h)
			if err != nil || end.Outcome != tc.want {
				t.Fatalf("Drive = %+v, %v; want %s", end, err, tc.want)
			}
			select {
			case <-h.t2done:
			default:
				t.Fatal("Drive returned before T2's step ended")
			}
			for _, id := range []string{"T1", "T2"} {
				if ts := st.Tasks[id]; ts.Finished == ts.Attempts {
					t.Errorf("%s's attempt was reported: %+v", id, ts)
				}
			}
		})
	}
}
