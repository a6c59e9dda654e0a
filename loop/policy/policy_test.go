package policy_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task/model"
)

// try scripts one attempt: pass (the zero value), fail with a fingerprint, a
// critical review, a blocked claim, or a hard guardrail stop.
type try struct {
	fp      string   // verify failure with this fingerprint
	review  []string // critical finding keys
	blocked string
	stop    string // hard guardrail rule
	spend   time.Duration
	tokens  int64
	cost    float64
}

type script struct {
	tries map[string][]try             // per task, per attempt
	debug map[string]bool              // root cause found, per task
	gates []policy.Verdict             // in order
	pre   func(*policy.RunState) error // changes the state before the run
}

// drive runs the policy with a looptest.Host, as the script says, until the
// run finishes, and returns what happened, one line a step.
func drive(t *testing.T, p *policy.Policy, plan *model.Plan, sc script, st *policy.RunState) ([]string, *policy.RunState) {
	t.Helper()
	trace, st, err := sc.host(p).Drive(context.Background(), plan, st)
	if err != nil {
		t.Fatal(err)
	}
	return trace, st
}

// host is the looptest.Host that plays the script.
func (sc script) host(p *policy.Policy) *looptest.Host {
	h := &looptest.Host{Policy: p, Found: sc.debug, Verdicts: sc.gates, Start: t0, MaxSteps: 200, Tries: map[string][]looptest.Try{}}
	for id, tries := range sc.tries {
		for _, tr := range tries {
			h.Tries[id] = append(h.Tries[id], looptest.Try{Fingerprint: tr.fp, Critical: tr.review, Blocked: tr.blocked, Stop: tr.stop,
				Elapsed: tr.spend, Tokens: tr.tokens, CostUSD: tr.cost})
		}
	}
	return h
}

// next1 is Next for a policy that decides one step at a time.
func next1(t *testing.T, p *policy.Policy, plan *model.Plan, st *policy.RunState, now time.Time) (policy.Step, []policy.Transition) {
	t.Helper()
	d, err := p.Next(plan, st, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Steps) != 1 {
		t.Fatalf("Next decided %d steps, want 1", len(d.Steps))
	}
	return d.Steps[0], d.Transitions
}

func applied(t testing.TB, ts []policy.Transition) *policy.RunState {
	t.Helper()
	st, err := policy.Replay(ts...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

func check(id string, deps ...string) model.Task {
	return model.Task{ID: id, Title: id, DependsOn: deps, Acceptance: []model.Check{{Run: []string{"true"}}}}
}

func onePhase(tasks ...model.Task) *model.Plan {
	return &model.Plan{Version: "1", Name: "p", Phases: []model.Phase{{ID: "p1", Title: "P1", Tasks: tasks}}}
}

func TestPolicyRules(t *testing.T) {
	off := false
	twoPhases := &model.Plan{Version: "1", Name: "p", Phases: []model.Phase{
		{ID: "p1", Title: "P1", Tasks: []model.Task{check("T1")}},
		{ID: "p2", Title: "P2", Tasks: []model.Task{check("T2")}},
	}}
	for _, tc := range []struct {
		name   string
		plan   *model.Plan
		policy policy.Policy
		script script
		want   []string
	}{
		{
			name: "first try passes",
			plan: onePhase(check("T1"), check("T2")),
			want: []string{"attempt T1#1 pass", "attempt T2#1 pass", "finish completed"},
		},
		{
			name:   "a new failure retries with no debugger",
			plan:   onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "b"}, {}}}},
			want:   []string{"attempt T1#1 fail a", "attempt T1#2 fail b", "attempt T1#3 pass", "finish completed"},
		},
		{
			name:   "different failures exhaust the attempts: escalate, never debug",
			plan:   onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "b"}, {fp: "c"}}}},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail b", "attempt T1#3 fail c",
				"finish escalated: task T1: 3 attempts used, the last: verify failure c"},
		},
		{
			name:   "two strikes: the debugger comes first, its root cause buys one attempt that passes",
			plan:   onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "a"}, {}}}, debug: map[string]bool{"T1": true}},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail a", "debug T1 found=true", "attempt T1#3 pass",
				"finish completed"},
		},
		{
			name:   "two strikes, the fix fails too: halt, no second debugger, no blind retry",
			plan:   onePhase(model.Task{ID: "T1", Title: "t", Acceptance: []model.Check{{Run: []string{"x"}}}, Budget: model.Budget{Attempts: 9}}),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "a"}, {fp: "a"}, {}}}, debug: map[string]bool{"T1": true}},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail a", "debug T1 found=true", "attempt T1#3 fail a",
				"finish halted: task T1: the failure repeated, and attempt 3 with the debugger's fix failed too (verify failure a)"},
		},
		{
			name:   "two strikes, no root cause: halt before a third attempt",
			plan:   onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "a"}, {}}}},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail a", "debug T1 found=false",
				"finish halted: task T1: the failure repeated and the debugger found no root cause"},
		},
		{
			name:   "the root cause's attempt may exceed the attempt budget by one",
			plan:   onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {fp: "b"}, {fp: "b"}, {}}}, debug: map[string]bool{"T1": true}},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail b", "attempt T1#3 fail b", "debug T1 found=true",
				"attempt T1#4 pass", "finish completed"},
		},
		{
			name:   "a critical review sends the task back and counts as an attempt",
			plan:   onePhase(check("T1")),
			script: script{tries: map[string][]try{"T1": {{review: []string{"k1"}}, {}}}},
			want:   []string{"attempt T1#1 critical k1", "attempt T1#2 pass", "finish completed"},
		},
		{
			name: "the same critical findings three rounds running: plateau",
			plan: onePhase(model.Task{ID: "T1", Title: "t", Acceptance: []model.Check{{Run: []string{"x"}}}, Budget: model.Budget{Attempts: 9}}),
			script: script{tries: map[string][]try{"T1": {
				{review: []string{"k1"}}, {review: []string{"k1", "k2"}}, {review: []string{"k1", "k2"}}, {review: []string{"k1", "k2"}}}}},
			want: []string{"attempt T1#1 critical k1", "attempt T1#2 critical k1,k2", "attempt T1#3 critical k1,k2",
				"attempt T1#4 critical k1,k2",
				"finish escalated: task T1: the same critical review findings came back three rounds running"},
		},
		{
			name:   "a blocked claim counts as an attempt and stops the task for a person",
			plan:   onePhase(check("T1"), check("T2")),
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {blocked: "no API key"}}}},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 blocked",
				"finish blocked: task T1: the executor is blocked: no API key"},
		},
		{
			name: "a task without acceptance criteria escalates before it starts",
			plan: onePhase(check("T1"), model.Task{ID: "T2", Title: "t"}, check("T3")),
			want: []string{"attempt T1#1 pass",
				"finish escalated: task T2: no acceptance criteria: the task cannot be verified, so it never starts"},
		},
		{
			name:   "independent tasks may go on past an escalation; dependents wait",
			plan:   onePhase(model.Task{ID: "T1", Title: "t"}, check("T2", "T1"), check("T3")),
			policy: policy.Policy{ContinueIndependent: true},
			want: []string{"attempt T3#1 pass",
				"finish escalated: task T1: no acceptance criteria: the task cannot be verified, so it never starts"},
		},
		{
			name: "depends_on decides the order",
			plan: onePhase(check("T2", "T1"), check("T1")),
			want: []string{"attempt T1#1 pass", "attempt T2#1 pass", "finish completed"},
		},
		{
			name:   "a gate between phases; approval goes on; the last phase completes the run",
			plan:   twoPhases,
			script: script{gates: []policy.Verdict{policy.Approve}},
			want:   []string{"attempt T1#1 pass", "gate p1 approve", "attempt T2#1 pass", "finish completed"},
		},
		{
			name: "nobody to approve: the run ends awaiting approval",
			plan: twoPhases,
			want: []string{"attempt T1#1 pass", "gate p1 defer", "finish awaiting-approval: milestone after phase p1 awaits approval"},
		},
		{
			name:   "a rejected milestone escalates",
			plan:   twoPhases,
			script: script{gates: []policy.Verdict{policy.Reject}},
			want:   []string{"attempt T1#1 pass", "gate p1 reject", "finish escalated: milestone after phase p1 rejected"},
		},
		{
			name: "milestone gate: false runs straight on",
			plan: &model.Plan{Version: "1", Name: "p", Phases: []model.Phase{
				{ID: "p1", Title: "P1", Milestone: &model.Milestone{Gate: &off}, Tasks: []model.Task{check("T1")}},
				{ID: "p2", Title: "P2", Tasks: []model.Task{check("T2")}},
			}},
			want: []string{"attempt T1#1 pass", "attempt T2#1 pass", "finish completed"},
		},
		{
			name:   "a hard guardrail stops the run at once",
			plan:   onePhase(check("T1"), check("T2")),
			script: script{tries: map[string][]try{"T1": {{stop: "git.force-push"}}}},
			want:   []string{"attempt T1#1 stop git.force-push", "finish stopped-by-guardrail: hard guardrail git.force-push: no"},
		},
		{
			name:   "the run's cycles run out: budget exceeded",
			plan:   &model.Plan{Version: "1", Name: "p", Budget: model.Budget{Cycles: 2}, Phases: onePhase(check("T1"), check("T2")).Phases},
			script: script{tries: map[string][]try{"T1": {{fp: "a"}, {}}}},
			want:   []string{"attempt T1#1 fail a", "attempt T1#2 pass", "finish budget-exceeded: 2 cycles used of 2"},
		},
		{
			name:   "tokens run out",
			plan:   &model.Plan{Version: "1", Name: "p", Budget: model.Budget{Tokens: 1000}, Phases: onePhase(check("T1"), check("T2")).Phases},
			script: script{tries: map[string][]try{"T1": {{tokens: 600, fp: "a"}, {tokens: 600}}}},
			want:   []string{"attempt T1#1 fail a", "attempt T1#2 pass", "finish budget-exceeded: 1200 tokens used of 1000"},
		},
		{
			name:   "cost runs out",
			plan:   &model.Plan{Version: "1", Name: "p", Budget: model.Budget{CostUSD: 1}, Phases: onePhase(check("T1")).Phases},
			script: script{tries: map[string][]try{"T1": {{cost: 1.5, fp: "a"}}}},
			want:   []string{"attempt T1#1 fail a", "finish budget-exceeded: $1.50 spent of $1.00"},
		},
		{
			name:   "the task's time runs out: escalate",
			plan:   onePhase(model.Task{ID: "T1", Title: "t", Acceptance: []model.Check{{Run: []string{"x"}}}, Budget: model.Budget{TaskTimeout: model.Duration(time.Minute)}}),
			script: script{tries: map[string][]try{"T1": {{fp: "a", spend: 70 * time.Second}}}},
			want:   []string{"attempt T1#1 fail a", "finish escalated: task T1: the task's time (1m0s) is used up"},
		},
		{
			name:   "the host's budget overrides the plan's",
			plan:   onePhase(check("T1")),
			policy: policy.Policy{Budget: model.Budget{Attempts: 1}},
			script: script{tries: map[string][]try{"T1": {{fp: "a"}}}},
			want:   []string{"attempt T1#1 fail a", "finish escalated: task T1: 1 attempts used, the last: verify failure a"},
		},
		{
			name: "a task the plan marks done is not run again",
			plan: onePhase(model.Task{ID: "T1", Title: "t", Status: model.StatusDone, Acceptance: []model.Check{{Run: []string{"x"}}}}, check("T2")),
			want: []string{"attempt T2#1 pass", "finish completed"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := drive(t, &tc.policy, tc.plan, tc.script, nil)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPolicyResume cuts runs off at each kind of transition and resumes
// them: the end state matches an uninterrupted run, attempts cut off by the
// crash count, and nothing done runs again.
func TestPolicyResume(t *testing.T) {
	plan := &model.Plan{Version: "1", Name: "p", Phases: []model.Phase{
		{ID: "p1", Title: "P1", Tasks: []model.Task{check("T1"), check("T2")}},
		{ID: "p2", Title: "P2", Tasks: []model.Task{check("T3")}},
	}}
	sc := script{
		tries: map[string][]try{"T1": {{fp: "a"}, {fp: "a"}, {}}, "T2": {{review: []string{"k"}}, {}}},
		debug: map[string]bool{"T1": true},
		gates: []policy.Verdict{policy.Approve},
	}
	var p policy.Policy
	want, full := drive(t, &p, plan, sc, nil)
	if want[len(want)-1] != "finish completed" {
		t.Fatalf("the uninterrupted run did not complete: %q", want)
	}

	// Replay the uninterrupted run's transitions up to each point, then
	// resume from there with a policy that knows nothing else.
	// Stores commit a batch at once, so a crash falls between batches.
	var all []policy.Transition
	var cuts []int
	st := &policy.RunState{}
	record := func(ts []policy.Transition) {
		if len(ts) > 0 {
			cuts = append(cuts, len(all)+len(ts))
		}
		for _, tr := range ts {
			all = append(all, tr)
			if err := st.Apply(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	record([]policy.Transition{{Kind: policy.TransRunStarted, Time: t0, Run: "r", Plan: "p"}})
	for st.Outcome == "" {
		step, ts := next1(t, &p, plan, st, t0)
		record(ts)
		switch step.Kind {
		case policy.StepAttempt:
			ts, err := p.ObserveAttempt(st, sc.host(&p).Report(step), t0)
			if err != nil {
				t.Fatal(err)
			}
			record(ts)
		case policy.StepDebug:
			ts, _ := p.ObserveDiagnosis(st, step.Task, policy.Diagnosis{Found: true}, t0)
			record(ts)
		case policy.StepGate:
			ts, _ := p.ObserveGate(st, step.Phase, policy.GateDecision{Verdict: policy.Approve}, t0)
			record(ts)
		}
	}
	for _, cut := range cuts[:len(cuts)-1] {
		t.Run(fmt.Sprintf("after %s #%d", all[cut-1].Kind, cut), func(t *testing.T) {
			st := applied(t, all[:cut])
			interrupted := ""
			for id, ts := range st.Tasks {
				if ts.Finished < ts.Attempts {
					interrupted = id
				}
			}
			cutAttempt := 0
			if interrupted != "" {
				cutAttempt = st.Tasks[interrupted].Attempts
			}
			_, got := drive(t, &p, plan, sc, st)
			if got.Outcome != policy.Completed {
				t.Fatalf("resumed run ended %s: %s", got.Outcome, got.Reason)
			}
			if interrupted == "" {
				ignore := cmpopts.IgnoreFields(policy.RunState{}, "Updated")
				if diff := cmp.Diff(full, got, ignore); diff != "" {
					t.Errorf("final state differs from the uninterrupted run (-want +got):\n%s", diff)
				}
				return
			}
			// The attempt cut off counts, as a failure, and another follows it.
			ts := got.Tasks[interrupted]
			cut := policy.Failure{Attempt: cutAttempt, Kind: policy.FailInterrupted, Reason: "the attempt was cut off"}
			if ts.Status != policy.StatusDone || ts.Attempts <= cutAttempt || !slices.ContainsFunc(ts.Failures, func(f policy.Failure) bool {
				return cmp.Equal(f, cut)
			}) {
				t.Errorf("task %s after a cut at attempt %d: %+v", interrupted, cutAttempt, ts)
			}
		})
	}
}

// TestPolicyApproveOnResume: a run awaiting approval goes on past the gate
// once resumed with approval, and stays put without it.
func TestPolicyApproveOnResume(t *testing.T) {
	plan := &model.Plan{Version: "1", Name: "p", Phases: []model.Phase{
		{ID: "p1", Title: "P1", Tasks: []model.Task{check("T1")}},
		{ID: "p2", Title: "P2", Tasks: []model.Task{check("T2")}},
	}}
	var p policy.Policy
	trace, st := drive(t, &p, plan, script{}, nil)
	if diff := cmp.Diff([]string{"attempt T1#1 pass", "gate p1 defer",
		"finish awaiting-approval: milestone after phase p1 awaits approval"}, trace); diff != "" {
		t.Fatalf("first run (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		approve bool
		want    []string
	}{
		{false, []string{"gate p1 defer", "finish awaiting-approval: milestone after phase p1 awaits approval"}},
		{true, []string{"attempt T2#1 pass", "finish completed"}},
	} {
		st := st.Clone()
		ts, err := p.Resume(st, tc.approve, t0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range ts {
			if err := st.Apply(tr); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := drive(t, &p, plan, script{}, st)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("resume approve=%v (-want +got):\n%s", tc.approve, diff)
		}
	}
}

// TestPolicyUnreportedAttempt: an attempt started and never reported counts
// as cut off, while a gate waiting is asked again with nothing new recorded.
func TestPolicyUnreportedAttempt(t *testing.T) {
	var p policy.Policy
	next := func(plan *model.Plan, st *policy.RunState) (policy.Step, int) {
		step, ts := next1(t, &p, plan, st, t0)
		for _, tr := range ts {
			if err := st.Apply(tr); err != nil {
				t.Fatal(err)
			}
		}
		return step, len(ts)
	}
	start := []policy.Transition{{Kind: policy.TransRunStarted, Time: t0, Run: "r", Plan: "p"}}

	st := applied(t, start)
	plan := onePhase(check("T1"))
	next(plan, st)
	if step, _ := next(plan, st); step.Attempt != 2 {
		t.Fatalf("after an unreported attempt: %+v, want attempt 2", step)
	}
	want := []policy.Failure{{Attempt: 1, Kind: policy.FailInterrupted, Reason: "the attempt was cut off"}}
	if diff := cmp.Diff(want, st.Tasks["T1"].Failures); diff != "" {
		t.Fatalf("failures (-want +got):\n%s", diff)
	}

	st = applied(t, append(start,
		policy.Transition{Kind: policy.TransTaskStarted, Task: "T1", Phase: "p1"},
		policy.Transition{Kind: policy.TransTaskFinished, Task: "T1", Status: policy.StatusDone}))
	two := &model.Plan{Version: "1", Name: "p", Phases: []model.Phase{
		{ID: "p1", Title: "P1", Tasks: []model.Task{check("T1")}},
		{ID: "p2", Title: "P2", Tasks: []model.Task{check("T2")}},
	}}
	first, n1 := next(two, st)
	again, n2 := next(two, st)
	if first.Kind != policy.StepGate || n1 != 1 || n2 != 0 || !cmp.Equal(first, again) {
		t.Fatalf("gate asked twice: %+v (%d transitions), then %+v (%d)", first, n1, again, n2)
	}
}

// TestPolicyReopenOnResume: resuming a run that ended because a task
// escalated, halted or blocked gives that task a fresh budget (a person has
// stepped in); attempts go on being numbered.
func TestPolicyReopenOnResume(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tries []try
		first string
		then  []string
	}{
		{"halted", []try{{fp: "a"}, {fp: "a"}}, "finish halted: task T1: the failure repeated and the debugger found no root cause",
			[]string{"attempt T1#3 pass", "finish completed"}},
		{"blocked", []try{{blocked: "key"}}, "finish blocked: task T1: the executor is blocked: key",
			[]string{"attempt T1#2 pass", "finish completed"}},
		{"escalated", []try{{fp: "a"}, {fp: "b"}, {fp: "c"}, {fp: "d"}, {fp: "d"}},
			"finish escalated: task T1: 3 attempts used, the last: verify failure c",
			// a fresh budget: the earlier failure c and the new d are not two strikes
			[]string{"attempt T1#4 fail d", "attempt T1#5 fail d", "debug T1 found=false",
				"finish halted: task T1: the failure repeated and the debugger found no root cause"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p policy.Policy
			plan := onePhase(check("T1"))
			sc := script{tries: map[string][]try{"T1": tc.tries}}
			trace, st := drive(t, &p, plan, sc, nil)
			if got := trace[len(trace)-1]; got != tc.first {
				t.Fatalf("first run ended %q, want %q", got, tc.first)
			}
			ts, err := p.Resume(st, false, t0)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range ts {
				if err := st.Apply(tr); err != nil {
					t.Fatal(err)
				}
			}
			got, _ := drive(t, &p, plan, sc, st)
			if diff := cmp.Diff(tc.then, got); diff != "" {
				t.Errorf("after resume (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPolicyIsPure: deciding leaves the caller's state as it was.
func TestPolicyIsPure(t *testing.T) {
	var p policy.Policy
	plan := onePhase(check("T1"), check("T2"))
	st := applied(t, []policy.Transition{
		{Kind: policy.TransRunStarted, Time: t0, Run: "r", Plan: "p"},
		{Kind: policy.TransTaskStarted, Time: t0, Phase: "p1", Task: "T1"},
		{Kind: policy.TransAttemptStarted, Time: t0, Task: "T1", Attempt: 1},
	})
	before := st.Clone()
	step, ts := next1(t, &p, plan, st, t0) // the cut-off attempt is recorded, attempt 2 started
	if step.Attempt != 2 || len(ts) != 2 {
		t.Fatalf("Next: %+v, %d transitions", step, len(ts))
	}
	if _, err := p.ObserveAttempt(st, policy.AttemptReport{Task: "T1", Attempt: 1}, t0); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, st); diff != "" {
		t.Errorf("the state changed (-before +after):\n%s", diff)
	}
}
