package policy

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/harnish/harnish/schema"
)

// RunState is the durable record of a run: where it stands, what each task
// has used, and how it ended. It changes only through [RunState.Apply], so a
// journal of transitions replays to exactly the state the loop saw.
type RunState struct {
	Run        string `json:"run"`                   // run ID
	Plan       string `json:"plan"`                  // plan name
	PlanDigest string `json:"plan_digest,omitempty"` // hash of the plan, to notice a changed plan on resume
	// Branch is the git branch the run works on; empty when it has none.
	Branch string `json:"branch,omitempty"`
	// Commits says whether the run commits each task done (and its records
	// at the end); it is fixed when the run starts.
	Commits bool `json:"commits,omitempty"`
	// RecordsCommitted says whether the records of the run's last end are
	// committed.
	RecordsCommitted bool      `json:"records_committed,omitempty"`
	Started          time.Time `json:"started"`
	Updated          time.Time `json:"updated"`
	// Seq counts the transitions applied.
	Seq uint64 `json:"seq"`
	// Phase is the phase the run is in.
	Phase string `json:"phase,omitempty"`
	// Cursor is the position in its phase of the task started last, and Low
	// the position of the first task of the phase that had not ended then:
	// hints that let the policy find its place in O(1), not by a scan.
	Cursor int `json:"cursor,omitempty"`
	Low    int `json:"low,omitempty"`
	// Running counts the tasks whose status is running.
	Running int `json:"running,omitempty"`
	// AwaitingGate is the phase whose milestone gate waits for approval.
	AwaitingGate string `json:"awaiting_gate,omitempty"`
	// Approved lists the phases whose gates were approved, in order.
	Approved []string              `json:"approved,omitempty"`
	Tasks    map[string]*TaskState `json:"tasks"`
	// Cycles counts attempts over the whole run.
	Cycles  int           `json:"cycles"`
	Elapsed time.Duration `json:"elapsed"` // wall time spent in attempts
	Tokens  int64         `json:"tokens"`
	CostUSD float64       `json:"cost_usd"`
	// SharedCause says why the tasks of the running phase stopped together,
	// when they failed the same way; empty otherwise.
	SharedCause string `json:"shared_cause,omitempty"`
	// Outcome is empty while the run can go on.
	Outcome Outcome `json:"outcome,omitempty"`
	Reason  string  `json:"reason,omitempty"`
}

// TaskState is one task's record.
type TaskState struct {
	Status TaskStatus `json:"status"`
	// Attempts counts attempts started, including one cut off by a crash.
	Attempts int `json:"attempts"`
	// Finished is the number of the last attempt that finished; it is less
	// than Attempts while an attempt runs, or after a crash cut one off.
	Finished int           `json:"finished"`
	Elapsed  time.Duration `json:"elapsed"`
	Tokens   int64         `json:"tokens"`
	CostUSD  float64       `json:"cost_usd"`
	// Failures holds the failure of each failed attempt, in order.
	Failures []Failure `json:"failures,omitempty"`
	// DebuggedAt is the attempt after which the debugger was consulted; 0
	// when it has not been. RootCause says whether it found one, which buys
	// exactly one more attempt.
	DebuggedAt int  `json:"debugged_at,omitempty"`
	RootCause  bool `json:"root_cause,omitempty"`
	// NoDebugger says the two-strike rule found no debugger to ask.
	NoDebugger bool `json:"no_debugger,omitempty"`
	// Diagnosis is the debugger's answer when it was consulted: the fix the
	// next attempt is told, or the five whys of an escalation.
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
	// Advice holds the advisor's answers since the task was last opened, in
	// order; each point is consulted once.
	Advice []Advised `json:"advice,omitempty"`
	Reason string    `json:"reason,omitempty"`
	// Committed says a done task's commit is made (Commit is its hash, empty
	// when the task changed nothing); only runs that commit set it.
	Committed bool   `json:"committed,omitempty"`
	Commit    string `json:"commit,omitempty"`
	// Voided counts attempts since the last reopening that a fault of the
	// harness, not the agent, cut short (a verifier that could not run);
	// they do not count against the budget.
	Voided int `json:"voided,omitempty"`
	// Base and BaseElapsed are the attempts and time the task had used when
	// a person last reopened it; its budget counts from there.
	Base        int           `json:"base,omitempty"`
	BaseElapsed time.Duration `json:"base_elapsed,omitempty"`
}

// Advised is one consultation of the advisor: where, after how many
// attempts, and what it answered.
type Advised struct {
	Point schema.AdvicePoint `json:"point"`
	// Attempt is the number of attempts started when it was asked; the
	// attempt after it is told its PLAN or CORRECTION.
	Attempt int `json:"attempt"`
	// Verdict is empty when no advisor answered (none is configured, or it
	// failed): the loop goes on as if it had not been asked.
	Verdict schema.Verdict `json:"verdict,omitempty"`
	Text    string         `json:"text,omitempty"`
}

// Guides reports whether the answer is advice an attempt follows: PLAN or
// CORRECTION.
func (a Advised) Guides() bool {
	return a.Verdict == schema.AdvisePlan || a.Verdict == schema.AdviseCorrection
}

// Failure is how one attempt failed; see [schema.Failure].
type Failure = schema.Failure

// Diagnosis is a debugger's answer; see [schema.Diagnosis].
type Diagnosis = schema.Diagnosis

// FailureKind says which stage failed an attempt; see [schema.FailureKind].
type FailureKind = schema.FailureKind

// The failure kinds, as [schema] defines them.
const (
	FailVerify      = schema.FailVerify
	FailReview      = schema.FailReview
	FailBlocked     = schema.FailBlocked
	FailExecutor    = schema.FailExecutor
	FailGuardrail   = schema.FailGuardrail
	FailInterrupted = schema.FailInterrupted
	FailStuck       = schema.FailStuck
)

// TaskStatus is where a task stands in a run.
type TaskStatus string

// The task statuses.
const (
	StatusPending   TaskStatus = "pending"
	StatusRunning   TaskStatus = "running"
	StatusDone      TaskStatus = "done"
	StatusEscalated TaskStatus = "escalated"
	StatusHalted    TaskStatus = "halted"
	StatusBlocked   TaskStatus = "blocked"
)

// Terminal reports whether the status is final for the run.
func (s TaskStatus) Terminal() bool {
	return s == StatusDone || s == StatusEscalated || s == StatusHalted || s == StatusBlocked
}

// TransitionKind names a durable change of the run state.
type TransitionKind string

// The transition kinds.
const (
	TransRunStarted       TransitionKind = "run.started"
	TransTaskStarted      TransitionKind = "task.started"
	TransAttemptStarted   TransitionKind = "attempt.started"
	TransAttemptFinished  TransitionKind = "attempt.finished"
	TransDebuggerFinished TransitionKind = "debugger.finished"
	TransTaskFinished     TransitionKind = "task.finished"
	TransGateReached      TransitionKind = "gate.reached"
	TransGateApproved     TransitionKind = "gate.approved"
	TransRunFinished      TransitionKind = "run.finished"
	// TransRunResumed reopens a run that ended without completing (awaiting
	// approval, cancelled, escalated) so it can go on.
	TransRunResumed TransitionKind = "run.resumed"
	// TransAttemptVoided ends an attempt that a fault of the harness cut
	// short (its checks could not run): it is numbered, but does not count
	// against the budget.
	TransAttemptVoided TransitionKind = "attempt.voided"
	// TransTaskReopened gives a task that ended escalated, halted or blocked
	// a fresh budget after a person has stepped in; its attempts go on
	// being numbered from where they were.
	TransTaskReopened TransitionKind = "task.reopened"
	// TransTaskCommitted records that a done task's commit is made, so a
	// resume neither loses nor repeats it.
	TransTaskCommitted TransitionKind = "task.committed"
	// TransRecordsCommitted records that the records of the run's end are
	// committed.
	TransRecordsCommitted TransitionKind = "records.committed"
	// TransCauseShared records that tasks of a phase running side by side
	// failed the same way (the same fingerprint, or the environment): one
	// cause, reported once, which stops the phase's tasks rather than let
	// each spend its budget on it.
	TransCauseShared TransitionKind = "cause.shared"
	// TransPlanChanged records that a resume goes on with a changed plan
	// (of the same name), with its digest.
	TransPlanChanged TransitionKind = "plan.changed"
	// TransAdvised records the advisor's answer for a task, and what it
	// spent; with Instead, the answer stands in for the debugger's at a
	// repeated failure (PLAN or CORRECTION buy the one more attempt a root
	// cause buys).
	TransAdvised TransitionKind = "advisor.finished"
)

// Transition is one durable change of the run state. It is small and its
// cost to apply does not depend on the plan's size. Fields that do not apply
// to the kind are zero.
type Transition struct {
	Kind TransitionKind `json:"kind"`
	Time time.Time      `json:"time"`
	// Run, Plan, PlanDigest, Branch and Commits are set on run.started;
	// PlanDigest also on plan.changed.
	Run        string `json:"run,omitempty"`
	Plan       string `json:"plan,omitempty"`
	PlanDigest string `json:"plan_digest,omitempty"`
	Branch     string `json:"branch,omitempty"`
	Commits    bool   `json:"commits,omitempty"`
	Phase      string `json:"phase,omitempty"`
	Task       string `json:"task,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	// Index and Low are set on task.started: the task's position in its
	// phase, and the position of the phase's first task not yet ended.
	Index int `json:"index,omitempty"`
	Low   int `json:"low,omitempty"`
	// Failure is set on attempt.finished when the attempt failed.
	Failure *Failure `json:"failure,omitempty"`
	// Elapsed, Tokens and CostUSD are what the attempt used, on
	// attempt.finished; Tokens and CostUSD, what the debugger spent, on
	// debugger.finished.
	Elapsed time.Duration `json:"elapsed,omitempty"`
	Tokens  int64         `json:"tokens,omitempty"`
	CostUSD float64       `json:"cost_usd,omitempty"`
	// Found tells, on debugger.finished, whether a root cause was found;
	// NoDebugger, that there was no debugger to ask; Diagnosis, what it
	// said. Tokens and CostUSD are what it spent.
	Found      bool       `json:"found,omitempty"`
	NoDebugger bool       `json:"no_debugger,omitempty"`
	Diagnosis  *Diagnosis `json:"diagnosis,omitempty"`
	// Advised is the advisor's answer, on advisor.finished; Instead says it
	// stood in for the debugger.
	Advised *Advised `json:"advised,omitempty"`
	Instead bool     `json:"instead,omitempty"`
	// Commit is the hash on task.committed and records.committed; empty
	// when there was nothing to commit.
	Commit string `json:"commit,omitempty"`
	// Status is the task's final status, on task.finished.
	Status TaskStatus `json:"status,omitempty"`
	// Outcome is set on run.finished.
	Outcome Outcome `json:"outcome,omitempty"`
	Reason  string  `json:"reason,omitempty"`
}

// Apply changes the state by one transition. An invalid transition (a task
// event before the run started, an attempt out of sequence, a finished run
// changed) is an error and leaves the state unchanged.
func (s *RunState) Apply(t Transition) error {
	if err := s.check(t); err != nil {
		return fmt.Errorf("loop: transition %d (%s): %w", s.Seq+1, t.Kind, err)
	}
	switch t.Kind {
	case TransRunStarted:
		s.Run, s.Plan, s.PlanDigest, s.Started = t.Run, t.Plan, t.PlanDigest, t.Time
		s.Branch, s.Commits = t.Branch, t.Commits
		s.Tasks = map[string]*TaskState{}
	case TransRunResumed:
		s.Outcome, s.Reason, s.RecordsCommitted, s.SharedCause = "", "", false, ""
	case TransCauseShared:
		s.SharedCause = t.Reason
	case TransPlanChanged:
		s.PlanDigest = t.PlanDigest
	case TransTaskCommitted:
		ts := s.task(t.Task)
		ts.Committed, ts.Commit = true, t.Commit
	case TransRecordsCommitted:
		s.RecordsCommitted = true
	case TransTaskStarted:
		s.Phase, s.Cursor, s.Low = t.Phase, t.Index, t.Low
		s.setStatus(t.Task, StatusRunning)
	case TransAttemptStarted:
		s.setStatus(t.Task, StatusRunning)
		s.task(t.Task).Attempts = t.Attempt
		s.Cycles++
	case TransAttemptFinished:
		ts := s.task(t.Task)
		ts.Finished = t.Attempt
		ts.Elapsed += t.Elapsed
		ts.Tokens += t.Tokens
		ts.CostUSD += t.CostUSD
		s.Elapsed += t.Elapsed
		s.Tokens += t.Tokens
		s.CostUSD += t.CostUSD
		if t.Failure != nil {
			f := *t.Failure
			f.Keys = slices.Clone(f.Keys) // the state shares nothing with the caller
			ts.Failures = append(ts.Failures, f)
		}
	case TransAttemptVoided:
		ts := s.task(t.Task)
		ts.Finished = t.Attempt
		ts.Voided++
	case TransDebuggerFinished:
		ts := s.task(t.Task)
		ts.DebuggedAt, ts.RootCause, ts.NoDebugger = ts.Attempts, t.Found, t.NoDebugger
		if t.Diagnosis != nil {
			d := *t.Diagnosis
			d.FiveWhys = slices.Clone(d.FiveWhys) // the state shares nothing with the caller
			ts.Diagnosis = &d
		}
		ts.Tokens += t.Tokens
		ts.CostUSD += t.CostUSD
		s.Tokens += t.Tokens
		s.CostUSD += t.CostUSD
	case TransAdvised:
		ts := s.task(t.Task)
		a := *t.Advised
		ts.Advice = append(ts.Advice, a)
		if t.Instead {
			ts.DebuggedAt, ts.RootCause, ts.NoDebugger = ts.Attempts, a.Guides(), a.Verdict == ""
			if a.Guides() {
				ts.Diagnosis = &Diagnosis{Found: true, RootCause: "the advisor's " + string(a.Verdict), Fix: a.Text}
			}
		}
		ts.Tokens += t.Tokens
		ts.CostUSD += t.CostUSD
		s.Tokens += t.Tokens
		s.CostUSD += t.CostUSD
	case TransTaskReopened:
		ts := s.task(t.Task)
		s.setStatus(t.Task, StatusRunning)
		s.Low = 0 // the hint no longer holds: a task before it runs again
		ts.Reason = ""
		ts.Base, ts.BaseElapsed, ts.Voided = ts.Attempts, ts.Elapsed, 0
		ts.DebuggedAt, ts.RootCause, ts.NoDebugger, ts.Diagnosis, ts.Advice = 0, false, false, nil, nil
	case TransTaskFinished:
		s.setStatus(t.Task, t.Status)
		s.task(t.Task).Reason = t.Reason
	case TransGateReached:
		s.AwaitingGate = t.Phase
	case TransGateApproved:
		s.AwaitingGate = ""
		s.Approved = append(s.Approved, t.Phase)
	case TransRunFinished:
		s.Outcome, s.Reason = t.Outcome, t.Reason
	}
	s.Seq++
	s.Updated = t.Time
	return nil
}

// check validates t against s without changing anything.
func (s *RunState) check(t Transition) error {
	if t.Kind == TransRunStarted {
		if s.Run != "" {
			return fmt.Errorf("run %s already started", s.Run)
		}
		if t.Run == "" {
			return fmt.Errorf("no run ID")
		}
		return nil
	}
	if s.Run == "" {
		return fmt.Errorf("no run started")
	}
	if t.Kind == TransRunResumed {
		if s.Outcome == "" || s.Outcome == Completed {
			return fmt.Errorf("run is %s, not resumable", cmp.Or(string(s.Outcome), "running"))
		}
		return nil
	}
	// Side effects of a finished run are still recorded as they are made.
	switch t.Kind {
	case TransTaskCommitted:
		if ts := s.Tasks[t.Task]; ts == nil || ts.Status != StatusDone {
			return fmt.Errorf("task %q is not done", t.Task)
		}
		return nil
	case TransRecordsCommitted:
		if s.Outcome == "" {
			return fmt.Errorf("run is not finished")
		}
		return nil
	}
	if s.Outcome != "" {
		return fmt.Errorf("run already finished (%s)", s.Outcome)
	}
	if t.Kind == TransTaskReopened {
		if ts := s.Tasks[t.Task]; ts == nil || !ts.Status.Terminal() || ts.Status == StatusDone {
			return fmt.Errorf("task %q did not end escalated, halted or blocked", t.Task)
		}
		return nil
	}
	switch t.Kind {
	case TransTaskStarted, TransAttemptStarted, TransAttemptFinished, TransAttemptVoided, TransDebuggerFinished, TransTaskFinished, TransAdvised:
		if t.Task == "" {
			return fmt.Errorf("no task")
		}
		if ts := s.Tasks[t.Task]; ts != nil && ts.Status.Terminal() {
			return fmt.Errorf("task %s is already %s", t.Task, ts.Status)
		}
	}
	switch t.Kind {
	case TransAttemptStarted:
		if want := s.attempts(t.Task) + 1; t.Attempt != want {
			return fmt.Errorf("task %s: attempt %d out of sequence (want %d)", t.Task, t.Attempt, want)
		}
	case TransAttemptFinished, TransAttemptVoided:
		if got := s.attempts(t.Task); t.Attempt != got || got == 0 || s.Tasks[t.Task].Finished == got {
			return fmt.Errorf("task %s: attempt %d finished but no attempt is running", t.Task, t.Attempt)
		}
		if t.Elapsed < 0 || t.Tokens < 0 || t.CostUSD < 0 {
			return fmt.Errorf("task %s: negative usage", t.Task)
		}
	case TransTaskFinished:
		if !t.Status.Terminal() {
			return fmt.Errorf("task %s: %q is not a final status", t.Task, t.Status)
		}
	case TransGateReached, TransGateApproved:
		if t.Phase == "" {
			return fmt.Errorf("no phase")
		}
		if t.Kind == TransGateApproved && s.AwaitingGate != t.Phase {
			return fmt.Errorf("gate of phase %s is not waiting", t.Phase)
		}
	case TransRunFinished:
		if t.Outcome == "" {
			return fmt.Errorf("no outcome")
		}
	case TransPlanChanged:
		if t.PlanDigest == "" {
			return fmt.Errorf("no plan digest")
		}
	case TransCauseShared:
		if t.Phase == "" || t.Reason == "" {
			return fmt.Errorf("no phase or no cause")
		}
	case TransDebuggerFinished:
		if t.Tokens < 0 || t.CostUSD < 0 {
			return fmt.Errorf("task %s: negative usage", t.Task)
		}
	case TransAdvised:
		switch a := t.Advised; {
		case a == nil || !a.Point.Valid():
			return fmt.Errorf("task %s: no advice point", t.Task)
		case t.Instead && a.Point != schema.AtRepeat:
			return fmt.Errorf("task %s: advice in the debugger's place only at a repeated failure", t.Task)
		case a.Verdict != "" && (&schema.Advice{Verdict: a.Verdict, Text: a.Text}).Check() != nil:
			return fmt.Errorf("task %s: %w", t.Task, (&schema.Advice{Verdict: a.Verdict, Text: a.Text}).Check())
		case t.Tokens < 0 || t.CostUSD < 0:
			return fmt.Errorf("task %s: negative usage", t.Task)
		}
	case TransTaskStarted:
	default:
		return fmt.Errorf("unknown transition kind %q", t.Kind)
	}
	return nil
}

func (s *RunState) attempts(id string) int {
	if ts := s.Tasks[id]; ts != nil {
		return ts.Attempts
	}
	return 0
}

// setStatus sets a task's status and keeps Running in step.
func (s *RunState) setStatus(id string, st TaskStatus) {
	ts := s.task(id)
	if ts.Status == StatusRunning {
		s.Running--
	}
	if st == StatusRunning {
		s.Running++
	}
	ts.Status = st
}

func (s *RunState) task(id string) *TaskState {
	ts := s.Tasks[id]
	if ts == nil {
		ts = &TaskState{Status: StatusPending}
		s.Tasks[id] = ts
	}
	return ts
}

// Clone returns a deep copy of s.
func (s *RunState) Clone() *RunState {
	c := *s
	c.Approved = slices.Clone(s.Approved)
	c.Tasks = maps.Clone(s.Tasks)
	for id, ts := range c.Tasks {
		t := *ts
		t.Failures = slices.Clone(ts.Failures)
		t.Advice = slices.Clone(ts.Advice)
		for i := range t.Failures {
			t.Failures[i].Keys = slices.Clone(t.Failures[i].Keys)
		}
		c.Tasks[id] = &t
	}
	return &c
}

// Replay returns the state a journal of transitions leaves, applied in
// order from an empty state; the error names the first that does not apply.
func Replay(ts ...Transition) (*RunState, error) {
	st := &RunState{}
	for _, t := range ts {
		if err := st.Apply(t); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// Check reports whether ts apply to s in order, with the error [RunState.Apply]
// would return, and changes nothing: a store checks a batch whole before it
// records any of it. It costs O(len(ts)), not a copy of s.
func (s *RunState) Check(ts ...Transition) error {
	c := overlay(s)
	for _, t := range ts {
		if err := apply(s, c, t); err != nil {
			return err
		}
	}
	return nil
}
