package loop_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop"
)

func TestApplyRejects(t *testing.T) {
	start := loop.Transition{Kind: loop.TransRunStarted, Time: t0, Run: "r1", Plan: "p"}
	task := loop.Transition{Kind: loop.TransTaskStarted, Time: t0, Phase: "p1", Task: "T1"}
	attempt := loop.Transition{Kind: loop.TransAttemptStarted, Time: t0, Task: "T1", Attempt: 1}
	done := loop.Transition{Kind: loop.TransTaskFinished, Time: t0, Task: "T1", Status: loop.StatusDone}
	finished := loop.Transition{Kind: loop.TransRunFinished, Time: t0, Outcome: loop.AwaitingApproval}
	for _, tc := range []struct {
		name   string
		before []loop.Transition
		apply  loop.Transition
		want   string
	}{
		{"task before the run", nil, task, "loop: transition 1 (task.started): no run started"},
		{"run started twice", []loop.Transition{start}, start, "loop: transition 2 (run.started): run r1 already started"},
		{"run without ID", nil, loop.Transition{Kind: loop.TransRunStarted}, "loop: transition 1 (run.started): no run ID"},
		{"attempt skipped", []loop.Transition{start, task}, loop.Transition{Kind: loop.TransAttemptStarted, Task: "T1", Attempt: 2},
			"loop: transition 3 (attempt.started): task T1: attempt 2 out of sequence (want 1)"},
		{"finish of no attempt", []loop.Transition{start, task}, loop.Transition{Kind: loop.TransAttemptFinished, Task: "T1", Attempt: 1},
			"loop: transition 3 (attempt.finished): task T1: attempt 1 finished but no attempt is running"},
		{"negative usage", []loop.Transition{start, task, attempt}, loop.Transition{Kind: loop.TransAttemptFinished, Task: "T1", Attempt: 1, Tokens: -1},
			"loop: transition 4 (attempt.finished): task T1: negative usage"},
		{"attempt finished twice", []loop.Transition{start, task, attempt, {Kind: loop.TransAttemptFinished, Task: "T1", Attempt: 1}},
			loop.Transition{Kind: loop.TransAttemptFinished, Task: "T1", Attempt: 1},
			"loop: transition 5 (attempt.finished): task T1: attempt 1 finished but no attempt is running"},
		{"void with no attempt running", []loop.Transition{start, task}, loop.Transition{Kind: loop.TransAttemptVoided, Task: "T1", Attempt: 1},
			"loop: transition 3 (attempt.voided): task T1: attempt 1 finished but no attempt is running"},
		{"reopen a done task", []loop.Transition{start, task, done}, loop.Transition{Kind: loop.TransTaskReopened, Task: "T1"},
			`loop: transition 4 (task.reopened): task "T1" did not end escalated, halted or blocked`},
		{"task done twice", []loop.Transition{start, task, done}, done, "loop: transition 4 (task.finished): task T1 is already done"},
		{"not a final status", []loop.Transition{start, task}, loop.Transition{Kind: loop.TransTaskFinished, Task: "T1", Status: loop.StatusRunning},
			`loop: transition 3 (task.finished): task T1: "running" is not a final status`},
		{"approve a gate not waiting", []loop.Transition{start}, loop.Transition{Kind: loop.TransGateApproved, Phase: "p1"},
			"loop: transition 2 (gate.approved): gate of phase p1 is not waiting"},
		{"change a finished run", []loop.Transition{start, finished}, task, "loop: transition 3 (task.started): run already finished (awaiting-approval)"},
		{"resume a running run", []loop.Transition{start}, loop.Transition{Kind: loop.TransRunResumed},
			"loop: transition 2 (run.resumed): run is running, not resumable"},
		{"unknown kind", []loop.Transition{start}, loop.Transition{Kind: "task.exploded", Task: "T1"},
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
	ts := []loop.Transition{
		{Kind: loop.TransRunStarted, Time: t0, Run: "r1", Plan: "p", PlanDigest: "d"},
		{Kind: loop.TransTaskStarted, Time: t0, Phase: "p1", Task: "T1"},
		{Kind: loop.TransAttemptStarted, Time: t0, Task: "T1", Attempt: 1},
		{Kind: loop.TransAttemptFinished, Time: t0, Task: "T1", Attempt: 1, Elapsed: time.Minute, Tokens: 10, CostUSD: 0.5,
			Failure: &loop.Failure{Attempt: 1, Fingerprint: "f1", Class: "test"}},
		{Kind: loop.TransAttemptStarted, Time: t0, Task: "T1", Attempt: 2},
		{Kind: loop.TransAttemptFinished, Time: t0, Task: "T1", Attempt: 2, Elapsed: time.Minute, Tokens: 5,
			Failure: &loop.Failure{Attempt: 2, Fingerprint: "f1", Class: "test"}},
		{Kind: loop.TransDebuggerFinished, Time: t0, Task: "T1", Found: true},
		{Kind: loop.TransAttemptStarted, Time: t0, Task: "T1", Attempt: 3},
		{Kind: loop.TransAttemptFinished, Time: t0, Task: "T1", Attempt: 3, Elapsed: time.Minute},
		{Kind: loop.TransTaskFinished, Time: t0, Task: "T1", Status: loop.StatusDone},
		{Kind: loop.TransGateReached, Time: t0, Phase: "p1"},
		{Kind: loop.TransRunFinished, Time: t0, Outcome: loop.AwaitingApproval},
		{Kind: loop.TransRunResumed, Time: t0.Add(time.Hour)},
		{Kind: loop.TransGateApproved, Time: t0.Add(time.Hour), Phase: "p1"},
	}
	want := &loop.RunState{
		Run: "r1", Plan: "p", PlanDigest: "d", Started: t0, Updated: t0.Add(time.Hour), Seq: 14,
		Phase: "p1", Approved: []string{"p1"}, Cycles: 3, Elapsed: 3 * time.Minute, Tokens: 15, CostUSD: 0.5,
		Tasks: map[string]*loop.TaskState{"T1": {
			Status: loop.StatusDone, Attempts: 3, Elapsed: 3 * time.Minute, Tokens: 15, CostUSD: 0.5,
			Failures: []loop.Failure{{Attempt: 1, Fingerprint: "f1", Class: "test"}, {Attempt: 2, Fingerprint: "f1", Class: "test"}},
			Finished: 3, DebuggedAt: 2, RootCause: true,
		}},
	}
	if diff := cmp.Diff(want, applied(t, ts)); diff != "" {
		t.Fatalf("state (-want +got):\n%s", diff)
	}
}
