package storetest

import (
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/harnish/harnish/loop/policy"
)

// This file is the only one that builds run state: the rest of the suite
// handles transitions and states without looking inside them.

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Shape of the run history plays: phases of tasksPerPhase tasks, each task
// taking stepsPerTask transitions, each phase ending at an approved gate.
const (
	tasksPerPhase  = 4
	stepsPerTask   = 6
	stepsPerPhase  = tasksPerPhase*stepsPerTask + 2
	attemptTokens  = 100
	attemptCostUSD = 0.25
)

// history returns the first n transitions of a run that never ends: a run
// start, then tasks that each take a failed and a passing attempt, and a
// milestone gate reached and approved after every phase. Every prefix is a
// valid run, and the state it yields has something in every part that a
// shallow copy would share (tasks, failures and their keys, approved gates).
func history(n int) []policy.Transition {
	ts := make([]policy.Transition, n)
	for i := range ts {
		ts[i] = transitionAt(i)
	}
	return ts
}

// transitionAt returns transition i of history.
func transitionAt(i int) policy.Transition {
	at := t0.Add(time.Duration(i) * time.Second)
	if i == 0 {
		return policy.Transition{Kind: policy.TransRunStarted, Time: at, Run: "storetest-run", Plan: "storetest", PlanDigest: "sha256:storetest"}
	}
	phase, step := (i-1)/stepsPerPhase, (i-1)%stepsPerPhase
	ph := "p" + strconv.Itoa(phase)
	switch step {
	case stepsPerPhase - 2:
		return policy.Transition{Kind: policy.TransGateReached, Time: at, Phase: ph}
	case stepsPerPhase - 1:
		return policy.Transition{Kind: policy.TransGateApproved, Time: at, Phase: ph}
	}
	index := step / stepsPerTask
	id := "T" + strconv.Itoa(phase*tasksPerPhase+index)
	switch step % stepsPerTask {
	case 0:
		return policy.Transition{Kind: policy.TransTaskStarted, Time: at, Phase: ph, Task: id, Index: index, Low: index}
	case 1:
		return policy.Transition{Kind: policy.TransAttemptStarted, Time: at, Task: id, Attempt: 1}
	case 2:
		return policy.Transition{Kind: policy.TransAttemptFinished, Time: at, Task: id, Attempt: 1,
			Elapsed: time.Second, Tokens: attemptTokens, CostUSD: attemptCostUSD,
			Failure: &policy.Failure{Attempt: 1, Fingerprint: "fp-" + id, Keys: []string{"key-" + id}, Reason: "checks failed"}}
	case 3:
		return policy.Transition{Kind: policy.TransAttemptStarted, Time: at, Task: id, Attempt: 2}
	case 4:
		return policy.Transition{Kind: policy.TransAttemptFinished, Time: at, Task: id, Attempt: 2,
			Elapsed: 2 * time.Second, Tokens: attemptTokens, CostUSD: attemptCostUSD}
	}
	return policy.Transition{Kind: policy.TransTaskFinished, Time: at, Task: id, Status: policy.StatusDone}
}

// invalid returns transitions that no state reachable by history accepts.
func invalid() map[string]policy.Transition {
	return map[string]policy.Transition{
		// T0 is not started, running its first attempt, or done: attempt
		// 99 is never next.
		"attempt out of sequence": {Kind: policy.TransAttemptStarted, Time: t0, Task: "T0", Attempt: 99},
		// history starts its run first.
		"second run start": {Kind: policy.TransRunStarted, Time: t0, Run: "storetest-other"},
	}
}

// applied returns the state ts yield when applied in order to an empty
// state: what a store must hold after committing them.
func applied(t testing.TB, ts []policy.Transition) *policy.RunState {
	t.Helper()
	st := &policy.RunState{}
	for _, tr := range ts {
		if err := st.Apply(tr); err != nil {
			t.Fatalf("storetest: history does not apply: %v", err)
		}
	}
	return st
}

// scribble changes every part of st that a copy must not share with the
// store: the top-level fields, the task map, a task, its failures and their
// keys, and the approved gates.
func scribble(st *policy.RunState) {
	st.Run, st.Seq, st.Cycles = "scribbled", 0, -1
	if len(st.Approved) > 0 {
		st.Approved[0] = "scribbled"
	}
	for _, id := range slices.Collect(maps.Keys(st.Tasks)) {
		ts := st.Tasks[id]
		ts.Attempts, ts.Reason = -1, "scribbled"
		for i := range ts.Failures {
			ts.Failures[i].Reason = "scribbled"
			for k := range ts.Failures[i].Keys {
				ts.Failures[i].Keys[k] = "scribbled"
			}
		}
		st.Tasks[id+"-scribbled"] = ts
		delete(st.Tasks, id)
	}
}

// scribbleTransitions changes what a caller might reuse after a Commit: the
// transitions and the failures they point to.
func scribbleTransitions(ts []policy.Transition) {
	for i := range ts {
		if f := ts[i].Failure; f != nil {
			f.Reason, f.Fingerprint = "scribbled", "scribbled"
			for k := range f.Keys {
				f.Keys[k] = "scribbled"
			}
		}
		ts[i].Task = "scribbled"
	}
}
