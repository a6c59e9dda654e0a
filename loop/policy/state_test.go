package policy_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop/policy"
)

func TestApplyRejects(t *testing.T) {
	start := policy.Transition{Kind: policy.TransRunStarted, Time: t0, Run: "r1", Plan: "p"}
	task := policy.Transition{Kind: policy.TransTaskStarted, Time: t0, Phase: "p1", Task: "T1"}
	attempt := policy.Transition{Kind: policy.TransAttemptStarted, Time: t0, Task: "T1", Attempt: 1}
	done := policy.Transition{Kind: policy.TransTaskFinished, Time: t0, Task: "T1", Status: policy.StatusDone}
	finished := policy.Transition{Kind: policy.TransRunFinished, Time: t0, Outcome: policy.AwaitingApproval}
	for _, tc := range []struct {
		name   string
		before []policy.Transition
		apply  policy.Transition
		want   string
	}{
		{"task before the run", nil, task, "loop: transition 1 (task.started): no run started"},
		{"run started twice", []policy.Transition{start}, start, "loop: transition 2 (run.started): run r1 already started"},
		{"run without ID", nil, policy.Transition{Kind: policy.TransRunStarted}, "loop: transition 1 (run.started): no run ID"},
		{"attempt skipped", []policy.Transition{start, task}, policy.Transition{Kind: policy.TransAttemptStarted, Task: "T1", Attempt: 2},
			"loop: transition 3 (attempt.started): task T1: attempt 2 out of sequence (want 1)"},
		{"finish of no attempt", []policy.Transition{start, task}, policy.Transition{Kind: policy.TransAttemptFinished, Task: "T1", Attempt: 1},
			"loop: transition 3 (attempt.finished): task T1: attempt 1 finished but no attempt is running"},
		{"negative usage", []policy.Transition{start, task, attempt}, policy.Transition{Kind: policy.TransAttemptFinished, Task: "T1", Attempt: 1, Tokens: -1},
			"loop: transition 4 (attempt.finished): task T1: negative usage"},
		{"attempt finished twice", []policy.Transition{start, task, attempt, {Kind: policy.TransAttemptFinished, Task: "T1", Attempt: 1}},
			policy.Transition{Kind: policy.TransAttemptFinished, Task: "T1", Attempt: 1},
			"loop: transition 5 (attempt.finished): task T1: attempt 1 finished but no attempt is running"},
		{"void with no attempt running", []policy.Transition{start, task}, policy.Transition{Kind: policy.TransAttemptVoided, Task: "T1", Attempt: 1},
			"loop: transition 3 (attempt.voided): task T1: attempt 1 finished but no attempt is running"},
		{"reopen a done task", []policy.Transition{start, task, done}, policy.Transition{Kind: policy.TransTaskReopened, Task: "T1"},
			`loop: transition 4 (task.reopened): task "T1" did not end escalated, halted or blocked`},
		{"task done twice", []policy.Transition{start, task, done}, done, "loop: transition 4 (task.finished): task T1 is already done"},
		{"not a final status", []policy.Transition{start, task}, policy.Transition{Kind: policy.TransTaskFinished, Task: "T1", Status: policy.StatusRunning},
			`loop: transition 3 (task.finished): task T1: "running" is not a final status`},
		{"approve a gate not waiting", []policy.Transition{start}, policy.Transition{Kind: policy.TransGateApproved, Phase: "p1"},
			"loop: transition 2 (gate.approved): gate of phase p1 is not waiting"},
		{"change a finished run", []policy.Transition{start, finished}, task, "loop: transition 3 (task.started): run already finished (awaiting-approval)"},
		{"resume a running run", []policy.Transition{start}, policy.Transition{Kind: policy.TransRunResumed},
			"loop: transition 2 (run.resumed): run is running, not resumable"},
		{"unknown kind", []policy.Transition{start}, policy.Transition{Kind: "task.exploded", Task: "T1"},
			`loop: transition 2 (task.exploded): unknown transition kind "task.exploded"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := applied(t, tc.before)
			before := st.Clone()
			err := st.Apply(tc.apply)
			if err == nil {
				t.Fatal("Apply succeeded")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, st); diff != "" {
				t.Errorf("a rejected transition changed the state (-before +after):\n%s", diff)
			}
		})
	}
}

func TestApply(t *testing.T) {
	ts := []policy.Transition{
		{Kind: policy.TransRunStarted, Time: t0, Run: "r1", Plan: "p", PlanDigest: "d"},
		{Kind: policy.TransTaskStarted, Time: t0, Phase: "p1", Task: "T1"},
		{Kind: policy.TransAttemptStarted, Time: t0, Task: "T1", Attempt: 1},
		{Kind: policy.TransAttemptFinished, Time: t0, Task: "T1", Attempt: 1, Elapsed: time.Minute, Tokens: 10, CostUSD: 0.5,
			Failure: &policy.Failure{Attempt: 1, Fingerprint: "f1", Class: "test"}},
		{Kind: policy.TransAttemptStarted, Time: t0, Task: "T1", Attempt: 2},
		{Kind: policy.TransAttemptFinished, Time: t0, Task: "T1", Attempt: 2, Elapsed: time.Minute, Tokens: 5,
			Failure: &policy.Failure{Attempt: 2, Fingerprint: "f1", Class: "test"}},
		{Kind: policy.TransDebuggerFinished, Time: t0, Task: "T1", Found: true},
		{Kind: policy.TransAttemptStarted, Time: t0, Task: "T1", Attempt: 3},
		{Kind: policy.TransAttemptFinished, Time: t0, Task: "T1", Attempt: 3, Elapsed: time.Minute},
		{Kind: policy.TransTaskFinished, Time: t0, Task: "T1", Status: policy.StatusDone},
		{Kind: policy.TransGateReached, Time: t0, Phase: "p1"},
		{Kind: policy.TransRunFinished, Time: t0, Outcome: policy.AwaitingApproval},
		{Kind: policy.TransRunResumed, Time: t0.Add(time.Hour)},
		{Kind: policy.TransGateApproved, Time: t0.Add(time.Hour), Phase: "p1"},
	}
	want := &policy.RunState{
		Run: "r1", Plan: "p", PlanDigest: "d", Started: t0, Updated: t0.Add(time.Hour), Seq: 14,
		Phase: "p1", Approved: []string{"p1"}, Cycles: 3, Elapsed: 3 * time.Minute, Tokens: 15, CostUSD: 0.5,
		Tasks: map[string]*policy.TaskState{"T1": {
			Status: policy.StatusDone, Attempts: 3, Elapsed: 3 * time.Minute, Tokens: 15, CostUSD: 0.5,
			Failures: []policy.Failure{{Attempt: 1, Fingerprint: "f1", Class: "test"}, {Attempt: 2, Fingerprint: "f1", Class: "test"}},
			Finished: 3, DebuggedAt: 2, RootCause: true,
		}},
	}
	if diff := cmp.Diff(want, applied(t, ts)); diff != "" {
		t.Fatalf("state (-want +got):\n%s", diff)
	}
}
