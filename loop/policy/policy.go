package policy

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task/model"
)

// Policy is the loop's decision core: given a plan, the run state and what
// just happened, it says what to do next and which transitions record it. It
// does no I/O and keeps no state of its own, so a host (the CLI, a Temporal
// workflow, a user's unit test) can drive it step by step, and resuming a
// run is just asking it again.
//
// The zero Policy follows the plan's budgets and ends the run at the first
// escalation.
type Policy struct {
	// Budget overrides the plan's budget field by field, as a host's limits;
	// zero fields leave the plan's.
	Budget model.Budget
	// ContinueIndependent lets the run go on past an escalated, halted or
	// blocked task with the tasks of its phase that do not depend on it; the
	// run still ends with that task's outcome, before the phase's gate. The
	// default ends the run at once.
	ContinueIndependent bool
	// MaxParallel caps how many tasks run side by side, whatever the plan
	// says (a host's limit); zero leaves the plan's parallelism.
	MaxParallel int
	// Advisor, when set, replaces the plan's advisor settings: a host that
	// brings its own advisor says here when to consult it. Nil leaves the
	// plan's; with neither, no advisor is consulted.
	Advisor *model.Advisor
	// Stuck sets the thresholds of the stuck rules [Policy.ObserveAttempt]
	// applies across attempts (no progress, alternation); nil means the
	// defaults of [model.Stuck]. A host sets the plan's here.
	Stuck *model.Stuck
}

// advisor returns the advisor settings in force, or nil.
func (d *decision) advisor() *model.Advisor {
	if d.p.Advisor != nil {
		return d.p.Advisor
	}
	return d.plan.Advisor
}

// parallelism is how many of ph's tasks may run at once.
func (d *decision) parallelism(ph *model.Phase) int {
	n := d.plan.Parallelism(ph)
	if m := d.p.MaxParallel; m > 0 && n > m {
		return m
	}
	return n
}

// StepKind says what the driver does next.
type StepKind string

// The kinds of step.
const (
	// StepAttempt: run the executor on Step.Task, attempt Step.Attempt, then
	// the guardrails, verifiers and reviewer; report with [Policy.ObserveAttempt].
	StepAttempt StepKind = "attempt"
	// StepDebug: ask the debugger about Step.Task's repeated failure; report
	// with [Policy.ObserveDiagnosis].
	StepDebug StepKind = "debug"
	// StepAdvise: ask the advisor about Step.Task at Step.Point; report
	// with [Policy.ObserveAdvice].
	StepAdvise StepKind = "advise"
	// StepGate: ask the gate about the milestone after Step.Phase; report
	// with [Policy.ObserveGate].
	StepGate StepKind = "gate"
	// StepFinish: the run is over, with Step.Outcome.
	StepFinish StepKind = "finish"
)

// Step is the policy's answer: what to do next.
type Step struct {
	Kind    StepKind
	Phase   string
	Task    string
	Attempt int
	// TimeLeft is what remains of the task's time budget, for StepAttempt
	// and StepDebug: the driver cancels the work when it runs out.
	TimeLeft time.Duration
	// TokensLeft and CostLeft are what remains of the run's token and cost
	// budgets, for StepAttempt; zero when the plan sets none. The driver
	// passes them to the executor, which may hand them to its agent.
	TokensLeft int64
	CostLeft   float64
	// Point is where the advisor is consulted, on StepAdvise; Instead says
	// its answer stands in for the debugger's at this repeated failure.
	Point   schema.AdvicePoint
	Instead bool
	// Outcome and Reason are set on StepFinish.
	Outcome Outcome
	Reason  string
}

// Decision is what [Policy.Next] decides: the transitions to commit before
// anything else (an attempt is recorded as started before the executor runs,
// so a crash cannot lose it), then the steps to take. A host takes every
// step, each on its own, in any order or at once, and reports each with the
// Observe method of its kind. A phase whose plan allows tasks side by side
// ([model.Plan.Parallelism]) gives one step per task that can go on or
// start, up to that limit; one task never has two steps at once. A
// [StepFinish] comes alone. Steps is empty only when the steps in flight
// (busy, in Next) must be reported before anything else can start.
type Decision struct {
	Transitions []Transition
	Steps       []Step
}

// Next decides from the state. busy lists the tasks whose steps the host
// is still taking: started, not yet reported. Next leaves them be and
// decides for the others; with none busy it decides from the state at rest,
// where an attempt started and never reported is one a crash cut off, and
// it counts. The error reports a state the policy cannot go on from (one it
// did not make, a plan it does not fit, a busy task that is not running);
// nothing is decided then.
//
// When the run ends while steps are in flight (a hard guardrail, a budget
// used up), Next says [StepFinish] at once: the host stops the busy steps
// and does not report them. An escalation does not end a run whose other
// tasks are still running: they go on to their own end, no new task starts,
// and the run ends when they have.
func (p *Policy) Next(plan *model.Plan, st *RunState, now time.Time, busy ...string) (dec Decision, err error) {
	switch {
	case plan == nil || st == nil:
		return Decision{}, errors.New("policy: Next needs a plan and a state")
	case st.Run == "":
		return Decision{}, errors.New("policy: the state holds no run started")
	}
	d := decision{p: p, plan: plan, base: st, st: overlay(st), now: now}
	for _, id := range busy {
		if ts := st.Tasks[id]; ts == nil || ts.Status != StatusRunning {
			return Decision{}, fmt.Errorf("policy: task %q is busy but not running", id)
		}
		if d.busy == nil {
			d.busy = map[string]bool{}
		}
		d.busy[id] = true
	}
	// A state the rules did not make can break what they assume of it
	// deeper down than a check at the door sees; that is an error too.
	defer func() {
		if r := recover(); r != nil {
			dec, err = Decision{}, fmt.Errorf("policy: the state does not fit the plan or the rules: %v", r)
		}
	}()
	steps := d.next()
	if d.err != nil {
		return Decision{}, d.err
	}
	if len(steps) == 0 && len(busy) == 0 {
		return Decision{}, errors.New("policy: nothing to do and nothing in flight")
	}
	return Decision{Transitions: d.out, Steps: steps}, nil
}

// decision applies each transition it emits to an overlay of the state, so
// later rules see earlier ones while the caller's state stays as it was.
type decision struct {
	p    *Policy
	plan *model.Plan
	base *RunState // the caller's, read only
	st   *RunState // overlay(base) with the transitions emitted so far
	now  time.Time
	busy map[string]bool // tasks whose steps are in flight
	out  []Transition
	err  error // the first transition the state refused
}

// overlay returns a copy of st that holds none of its task records: they
// are copied in as transitions touch them (see apply), so deciding costs
// O(1) in the plan's size, not a clone of every task.
func overlay(st *RunState) *RunState {
	v := *st
	v.Approved = slices.Clone(st.Approved)
	v.Tasks = make(map[string]*TaskState, 2)
	return &v
}

// apply applies t to the overlay v of base, copying in the task record it
// changes first.
func apply(base, v *RunState, t Transition) error {
	if _, ok := v.Tasks[t.Task]; !ok && t.Task != "" {
		if ts := base.Tasks[t.Task]; ts != nil {
			c := *ts
			c.Failures = slices.Clone(ts.Failures)
			c.Advice = slices.Clone(ts.Advice)
			v.Tasks[t.Task] = &c
		}
	}
	// check looks a task up in v.Tasks; the record is there when it exists.
	return v.Apply(t)
}

func (d *decision) emit(t Transition) {
	if d.err != nil {
		return
	}
	t.Time = d.now
	if err := apply(d.base, d.st, t); err != nil {
		d.err = fmt.Errorf("policy: the state does not allow the next transition (%w)", err)
		return
	}
	d.out = append(d.out, t)
}

// task returns the record of task id, as the decision has changed it.
func (d *decision) task(id string) *TaskState {
	if ts, ok := d.st.Tasks[id]; ok {
		return ts
	}
	return d.base.Tasks[id]
}

func (d *decision) finish(o Outcome, reason string) Step {
	if d.st.Outcome == "" {
		d.emit(Transition{Kind: TransRunFinished, Outcome: o, Reason: reason})
	}
	return Step{Kind: StepFinish, Outcome: d.st.Outcome, Reason: d.st.Reason}
}

// next decides the steps to take now: for each running task of the current
// phase that is not busy, its next step; then, while the phase has room and
// nothing in it failed, the first steps of tasks ready to start; when the
// phase has settled, its gate, the next phase, or the end.
func (d *decision) next() []Step {
	if d.err != nil {
		return nil // Next reports the error; nothing is decided
	}
	if d.st.Outcome != "" {
		return []Step{{Kind: StepFinish, Outcome: d.st.Outcome, Reason: d.st.Reason}}
	}
	if ph := d.st.AwaitingGate; ph != "" {
		return []Step{{Kind: StepGate, Phase: ph}}
	}
	// Phases before the current one are settled and past their gates: the
	// run only moves into a phase after that.
	first := 0
	for i := range d.plan.Phases {
		if d.plan.Phases[i].ID == d.st.Phase {
			first = i
		}
	}
	var steps []Step
	if d.st.Phase != "" && d.st.Running > 0 {
		ph := &d.plan.Phases[first]
		d.correlate(ph)
		for _, j := range d.running(ph) {
			step, ok := d.continueTask(model.PhaseTask{Phase: ph, Task: &ph.Tasks[j]})
			switch {
			case d.err != nil:
				return nil
			case ok && step.Kind == StepFinish:
				return []Step{step}
			case ok:
				steps = append(steps, step)
			}
		}
	}
	for i := first; i < len(d.plan.Phases); i++ {
		ph := &d.plan.Phases[i]
		if d.st.SharedCause == "" && (d.p.ContinueIndependent || d.failedTask(first, i) == "") {
			step, started, ok := d.start(ph, i == first && d.st.Phase == ph.ID)
			if ok {
				return []Step{step}
			}
			steps = append(steps, started...)
		}
		if len(steps) > 0 || d.st.Running > 0 {
			return steps // the phase's work goes on
		}
		if !d.phaseSettled(ph) || d.failedTask(first, i) != "" {
			// Tasks wait on ones that did not get done, and no gate opens
			// after a phase that did not finish.
			return []Step{d.stopped()}
		}
		if gated(ph, i, len(d.plan.Phases)) && !slices.Contains(d.st.Approved, ph.ID) {
			d.emit(Transition{Kind: TransGateReached, Phase: ph.ID})
			return []Step{{Kind: StepGate, Phase: ph.ID}}
		}
	}
	return []Step{d.finish(Completed, "")}
}

// running returns the positions in ph of its running tasks that are not
// busy, in plan order. The task started last is the one running in a run
// of one task at a time, but for tasks a resume reopened; the rest is found
// by a scan.
func (d *decision) running(ph *model.Phase) []int {
	if c := d.st.Cursor; d.st.Running == 1 && c < len(ph.Tasks) && d.status(ph.Tasks[c].ID) == StatusRunning {
		if d.busy[ph.Tasks[c].ID] {
			return nil
		}
		return []int{c}
	}
	var out []int
	for j := min(d.st.Low, len(ph.Tasks)); j < len(ph.Tasks); j++ { // the tasks before Low had ended
		if id := ph.Tasks[j].ID; d.status(id) == StatusRunning && !d.busy[id] {
			out = append(out, j)
		}
	}
	return out
}

// correlate looks, in a phase that runs tasks side by side, for two or more
// tasks whose last attempts failed the same way: the same fingerprint, or
// both for the environment (class infra). That is one cause, upstream of
// the tasks (a broken dependency, shared configuration, the machine): it is
// recorded once, and the phase's running tasks stop with it rather than
// spend their budgets on it (busy ones when they report).
func (d *decision) correlate(ph *model.Phase) {
	if d.parallelism(ph) < 2 {
		return
	}
	if d.st.SharedCause == "" {
		var keys []string
		groups := map[string][]string{}
		last := map[string]Failure{}
		// The tasks before Low had ended; one that failed for good then has
		// stopped the phase's starts already.
		for j := min(d.st.Low, len(ph.Tasks)); j < len(ph.Tasks); j++ {
			id := ph.Tasks[j].ID
			ts := d.task(id)
			if ts == nil || ts.Status == StatusDone || !(ts.Status == StatusRunning || ts.Status.Terminal()) {
				continue
			}
			f, ok := lastFailure(ts)
			key := causeKey(f)
			if !ok || key == "" {
				continue
			}
			if groups[key] == nil {
				keys = append(keys, key)
				last[key] = f
			}
			groups[key] = append(groups[key], id)
		}
		for _, k := range keys {
			if ids := groups[k]; len(ids) >= 2 {
				d.emit(Transition{Kind: TransCauseShared, Phase: ph.ID,
					Reason: fmt.Sprintf("a shared cause: tasks %s failed the same way (%s)", strings.Join(ids, ", "), last[k].Describe())})
				break
			}
		}
	}
	if d.st.SharedCause == "" {
		return
	}
	for _, j := range d.running(ph) {
		id := ph.Tasks[j].ID
		if ts := d.task(id); ts.Finished < ts.Attempts {
			d.emit(Transition{Kind: TransAttemptFinished, Task: id, Attempt: ts.Attempts,
				Failure: &Failure{Attempt: ts.Attempts, Kind: FailInterrupted, Reason: "the attempt was cut off"}})
		}
		d.emit(Transition{Kind: TransTaskFinished, Task: id, Status: StatusEscalated, Reason: "stopped with its phase: " + d.st.SharedCause})
	}
}

// lastFailure returns the failure of the task's last attempt since it was
// last reopened, if that attempt failed.
func lastFailure(ts *TaskState) (Failure, bool) {
	n := len(ts.Failures)
	if n == 0 || ts.Failures[n-1].Attempt <= ts.Base || ts.Failures[n-1].Attempt != ts.Finished {
		return Failure{}, false
	}
	return ts.Failures[n-1], true
}

// causeKey says what a failure has in common with another of the same
// cause: the checks' fingerprint (a hash of their normalized output), or the
// environment. "" for one that says nothing of a cause: a review, a claim
// of blocked, an interruption, and an executor's failure, whose fingerprint
// is only its kind (two agents crashing is no sign of one cause).
func causeKey(f Failure) string {
	switch {
	case f.Kind != FailVerify:
		return ""
	case f.Class == "infra":
		return "class:infra"
	case f.Fingerprint != "":
		return "fingerprint:" + f.Fingerprint
	}
	return ""
}

// start starts tasks of ph that are ready, in plan order, while the phase
// has room; current says the run is in ph already. A task the entry rules
// end instead (done before the run, no criteria) is looked past; when that
// ends the run, ok is set with the finish step.
func (d *decision) start(ph *model.Phase, current bool) (finish Step, started []Step, ok bool) {
	room := d.parallelism(ph) - d.st.Running
	low := -1 // the first task of the phase that has not ended
	from := 0
	if current {
		from = min(d.st.Low, len(ph.Tasks)) // the tasks before it had ended
	}
	for j := from; j < len(ph.Tasks) && room > 0; j++ {
		t := &ph.Tasks[j]
		s := d.status(t.ID)
		if s.Terminal() {
			continue
		}
		if low < 0 {
			low = j
		}
		if s == StatusRunning || !d.ready(t) {
			continue
		}
		step, stepped := d.startTask(ph, j, low)
		switch {
		case d.err != nil:
			return Step{}, nil, false
		case stepped && step.Kind == StepFinish:
			return step, nil, true
		case stepped:
			started = append(started, step)
			room--
		case !d.p.ContinueIndependent && d.failedTask(0, len(d.plan.Phases)-1) != "":
			return Step{}, started, false // the task ended escalated: no other starts
		}
	}
	return Step{}, started, false
}

// gated reports whether the boundary after phase i of n waits at a gate:
// where the plan says so, and after any phase with manual acceptance items,
// which only a person at the gate can confirm.
func gated(ph *model.Phase, i, n int) bool {
	return ph.Milestone.Gated(i, n) || len(ManualItems(ph)) > 0
}

// ManualItems returns the manual acceptance items of the phase's tasks, as
// "TASK: item", in plan order: the checklist a person confirms at the
// phase's gate.
func ManualItems(ph *model.Phase) []string {
	var items []string
	for j := range ph.Tasks {
		for _, c := range ph.Tasks[j].Acceptance {
			if c.Manual != "" {
				items = append(items, ph.Tasks[j].ID+": "+c.Manual)
			}
		}
	}
	return items
}

// stopped ends a run in which some task did not finish done.
func (d *decision) stopped() Step {
	if c := d.st.SharedCause; c != "" {
		return d.finish(Escalated, c)
	}
	if id := d.failedTask(0, len(d.plan.Phases)-1); id != "" {
		ts := d.task(id)
		return d.finish(taskOutcome(ts.Status), fmt.Sprintf("task %s: %s", id, ts.Reason))
	}
	return d.finish(Errored, "no task can start: dependencies are not done")
}

// failedTask returns the first task of phases from..to, in plan order, that
// ended but not done.
func (d *decision) failedTask(from, to int) string {
	for i := from; i <= to; i++ {
		for j := range d.plan.Phases[i].Tasks {
			id := d.plan.Phases[i].Tasks[j].ID
			if s := d.status(id); s.Terminal() && s != StatusDone {
				return id
			}
		}
	}
	return ""
}

func taskOutcome(s TaskStatus) Outcome {
	switch s {
	case StatusHalted:
		return Halted
	case StatusBlocked:
		return Blocked
	}
	return Escalated
}

func (d *decision) status(id string) TaskStatus {
	if ts := d.task(id); ts != nil {
		return ts.Status
	}
	return StatusPending
}

// ready reports whether every dependency of t is done.
func (d *decision) ready(t *model.Task) bool {
	for _, dep := range t.DependsOn {
		if d.status(dep) != StatusDone {
			return false
		}
	}
	return true
}

// phaseSettled reports whether every task of ph has ended.
func (d *decision) phaseSettled(ph *model.Phase) bool {
	for j := range ph.Tasks {
		if !d.status(ph.Tasks[j].ID).Terminal() {
			return false
		}
	}
	return true
}

// startTask applies the entry rules and starts the first attempt of task j
// of ph; low is the position of the phase's first task not yet ended. ok is
// false when the task ended instead and the caller should look again.
func (d *decision) startTask(ph *model.Phase, j, low int) (Step, bool) {
	t := &ph.Tasks[j]
	started := Transition{Kind: TransTaskStarted, Phase: ph.ID, Task: t.ID, Index: j, Low: low}
	if t.Status == model.StatusDone {
		// The plan (e.g. an imported one) says it is done already.
		d.emit(started)
		d.emit(Transition{Kind: TransTaskFinished, Task: t.ID, Status: StatusDone, Reason: "done before this run"})
		return Step{}, false
	}
	if len(t.Acceptance) == 0 {
		d.emit(started)
		return d.end(t.ID, StatusEscalated, "no acceptance criteria: the task cannot be verified, so it never starts")
	}
	if step, ok := d.runCaps(); ok {
		return step, true
	}
	d.emit(started)
	if step, ok := d.adviseFirst(ph.ID, t); ok {
		return step, true
	}
	return d.attempt(ph.ID, t), true
}

// adviseFirst asks the advisor about a high-risk task before its first
// attempt since it was opened, once.
func (d *decision) adviseFirst(phase string, t *model.Task) (Step, bool) {
	ts := d.task(t.ID)
	if t.Risk != model.RiskHigh || !d.advisor().Consults(model.AdviseAtHighRisk) || advised(ts, schema.AtHighRisk) != nil {
		return Step{}, false
	}
	return d.advise(phase, t, schema.AtHighRisk), true
}

func (d *decision) advise(phase string, t *model.Task, at schema.AdvicePoint) Step {
	ts := d.task(t.ID)
	return Step{Kind: StepAdvise, Phase: phase, Task: t.ID, Attempt: ts.Attempts, Point: at,
		Instead: at == schema.AtRepeat && d.advisor().Instead(), TimeLeft: d.timeLeft(t, ts)}
}

// advised returns the advisor's answer at point since the task was last
// opened, or nil.
func advised(ts *TaskState, at schema.AdvicePoint) *Advised {
	for i := range ts.Advice {
		if ts.Advice[i].Point == at {
			return &ts.Advice[i]
		}
	}
	return nil
}

// continueTask decides for a task that has started: another attempt, the
// debugger, or its end.
func (d *decision) continueTask(pt model.PhaseTask) (Step, bool) {
	t := pt.Task
	ts := d.task(t.ID)
	if ts.Finished < ts.Attempts {
		// A crash cut the attempt off: it counts, and failed.
		d.emit(Transition{Kind: TransAttemptFinished, Task: t.ID, Attempt: ts.Attempts,
			Failure: &Failure{Attempt: ts.Attempts, Kind: FailInterrupted, Reason: "the attempt was cut off"}})
		ts = d.task(t.ID) // the record as the transition left it
	}
	if len(t.Acceptance) == 0 {
		// A changed plan emptied the criteria: nothing could verify another
		// attempt, so none starts.
		return d.end(t.ID, StatusEscalated, "no acceptance criteria: the task cannot be verified, so no attempt starts")
	}
	if ts.Attempts == ts.Base {
		// No attempt since the task was (re)opened.
		if step, ok := d.adviseFirst(pt.Phase.ID, t); ok {
			return step, true
		}
		if ts.Attempts == 0 {
			return d.attempt(pt.Phase.ID, t), true
		}
	}
	b := d.budget(t)
	var last Failure // of the attempts since the task was last reopened
	if n := len(ts.Failures); n > 0 && ts.Failures[n-1].Attempt > ts.Base {
		last = ts.Failures[n-1]
	}
	switch {
	case last.Kind == FailBlocked:
		// The agent needs a person; another attempt would not give it one.
		return d.end(t.ID, StatusBlocked, "the executor is blocked: "+last.Reason)
	case ts.DebuggedAt > 0 && ts.NoDebugger:
		return d.end(t.ID, StatusHalted, "the failure repeated and no debugger is configured to look for a root cause")
	case ts.DebuggedAt > 0 && !ts.RootCause:
		return d.end(t.ID, StatusHalted, "the failure repeated and the debugger found no root cause")
	case ts.DebuggedAt > 0 && last.Attempt > ts.DebuggedAt && last.Kind != FailInterrupted:
		// (An attempt a crash cut off did not test the fix; it is tried again.)
		whose := "the debugger's fix"
		if a := advised(ts, schema.AtRepeat); a != nil && a.Attempt == ts.DebuggedAt && d.advisor().Instead() {
			whose = "the advisor's " + strings.ToLower(string(a.Verdict))
		}
		return d.end(t.ID, StatusHalted, fmt.Sprintf(
			"the failure repeated, and attempt %d with %s failed too (%s)", ts.Attempts, whose, last.Describe()))
	case ts.DebuggedAt > 0:
		// The root cause buys exactly one more attempt, even past the budget.
	case d.twoStrikes(ts):
		if step, ok := d.runCaps(); ok {
			return step, true
		}
		if d.advisor().Consults(model.AdviseAtRepeat) && advised(ts, schema.AtRepeat) == nil {
			return d.advise(pt.Phase.ID, t, schema.AtRepeat), true
		}
		return Step{Kind: StepDebug, Phase: pt.Phase.ID, Task: t.ID, Attempt: ts.Attempts,
			TimeLeft: d.timeLeft(t, ts)}, true
	case d.plateau(ts):
		a := advised(ts, schema.AtPlateau)
		if a == nil && d.advisor().Consults(model.AdviseAtPlateau) {
			if step, ok := d.runCaps(); ok {
				return step, true
			}
			return d.advise(pt.Phase.ID, t, schema.AtPlateau), true
		}
		if a == nil || a.Attempt != ts.Attempts || !a.Guides() {
			return d.end(t.ID, StatusEscalated, "the same critical review findings came back three rounds running")
		}
		// The advice buys one more round past the plateau, even past the
		// budget; a plateau after it escalates.
	case ts.Attempts-ts.Base-ts.Voided >= b.Attempts:
		return d.end(t.ID, StatusEscalated, fmt.Sprintf("%d attempts used, the last: %s", ts.Attempts-ts.Base-ts.Voided, last.Describe()))
	}
	if ts.Elapsed-ts.BaseElapsed >= b.TaskTimeout.Std() {
		return d.end(t.ID, StatusEscalated, fmt.Sprintf("the task's time (%s) is used up", b.TaskTimeout))
	}
	if step, ok := d.runCaps(); ok {
		return step, true
	}
	return d.attempt(pt.Phase.ID, t), true
}

// twoStrikes reports whether the last two attempts failed the same way.
func (d *decision) twoStrikes(ts *TaskState) bool {
	n := len(ts.Failures)
	if n < 2 {
		return false
	}
	a, b := ts.Failures[n-2], ts.Failures[n-1]
	return b.Attempt == ts.Attempts && a.Attempt == b.Attempt-1 && a.Attempt > ts.Base &&
		a.Fingerprint != "" && a.Fingerprint == b.Fingerprint
}

// plateau reports whether the last three attempts each came back from review
// with the same critical findings.
func (d *decision) plateau(ts *TaskState) bool {
	n := len(ts.Failures)
	if n < 3 {
		return false
	}
	last := ts.Failures[n-3:]
	for i, f := range last {
		if f.Kind != FailReview || f.Attempt != ts.Attempts-2+i || f.Attempt <= ts.Base || !slices.Equal(f.Keys, last[0].Keys) {
			return false
		}
	}
	return true
}

func (d *decision) attempt(phase string, t *model.Task) Step {
	n := d.task(t.ID).Attempts + 1
	d.emit(Transition{Kind: TransAttemptStarted, Task: t.ID, Attempt: n})
	step := Step{Kind: StepAttempt, Phase: phase, Task: t.ID, Attempt: n, TimeLeft: d.timeLeft(t, d.task(t.ID))}
	// runCaps ended the run before the attempt if either were used up.
	rb := d.runBudget()
	if rb.Tokens > 0 {
		step.TokensLeft = rb.Tokens - d.st.Tokens
	}
	if rb.CostUSD > 0 {
		step.CostLeft = rb.CostUSD - d.st.CostUSD
	}
	return step
}

// end finishes a task that did not get done, and the run with it unless the
// policy lets independent tasks go on or other tasks are still running
// (they go on to their own end first). ok is false when the run goes on.
func (d *decision) end(id string, s TaskStatus, reason string) (Step, bool) {
	d.emit(Transition{Kind: TransTaskFinished, Task: id, Status: s, Reason: reason})
	if d.p.ContinueIndependent || d.st.Running > 0 || d.st.SharedCause != "" {
		return Step{}, false
	}
	return d.finish(taskOutcome(s), fmt.Sprintf("task %s: %s", id, reason)), true
}

// runCaps ends the run when a run-wide budget is used up.
func (d *decision) runCaps() (Step, bool) {
	b := d.runBudget()
	st := d.st
	var reason string
	switch {
	case st.Cycles >= b.Cycles:
		reason = fmt.Sprintf("%d cycles used of %d", st.Cycles, b.Cycles)
	case b.RunTimeout > 0 && st.Elapsed >= b.RunTimeout.Std():
		reason = fmt.Sprintf("%s of run time used of %s", st.Elapsed, b.RunTimeout)
	case b.Tokens > 0 && st.Tokens >= b.Tokens:
		reason = fmt.Sprintf("%d tokens used of %d", st.Tokens, b.Tokens)
	case b.CostUSD > 0 && st.CostUSD >= b.CostUSD:
		reason = fmt.Sprintf("$%.2f spent of $%.2f", st.CostUSD, b.CostUSD)
	default:
		return Step{}, false
	}
	return d.finish(BudgetExceeded, reason), true
}

func (d *decision) runBudget() model.Budget {
	return d.plan.Budget.Resolve().Over(d.p.Budget)
}

// timeLeft is what remains of t's time budget since it was last opened.
func (d *decision) timeLeft(t *model.Task, ts *TaskState) time.Duration {
	return d.budget(t).TaskTimeout.Std() - (ts.Elapsed - ts.BaseElapsed)
}

// budget is the task's effective budget: defaults, plan, task, then host.
func (d *decision) budget(t *model.Task) model.Budget {
	return d.plan.TaskBudget(t).Over(d.p.Budget)
}

// AttemptReport is what the driver observed of one attempt: the executor's
// claim and spend, and what the guardrails, verifiers and reviewer made of
// the change.
type AttemptReport struct {
	Task    string
	Attempt int
	Elapsed time.Duration
	Tokens  int64
	CostUSD float64
	// Failure says how the attempt failed; nil means it passed: the checks
	// are green and the review found nothing critical.
	Failure *Failure
	// Stop is set when a hard guardrail stopped the attempt: the run ends at
	// once, whatever else happened.
	Stop *GuardrailStop
}

// GuardrailStop names the hard guardrail decision that stopped a run.
type GuardrailStop struct {
	Rule   string
	Reason string
}

// ObserveAttempt returns the transitions that record an attempt's report.
// The error reports a report that does not fit the state (no such attempt
// running); nothing is recorded then.
//
// A failure that closes a pattern of going round in circles is recorded as
// stuck ([FailStuck]): the attempts since the task was opened that changed
// nothing, or whose fingerprints alternate between two, reaching the
// thresholds of p.Stuck. Its fingerprint names the pattern, so the pattern
// twice running is two strikes.
func (p *Policy) ObserveAttempt(st *RunState, r AttemptReport, now time.Time) ([]Transition, error) {
	if r.Failure != nil && r.Stop == nil {
		if f, ok := p.stuck(st.Tasks[r.Task], *r.Failure); ok {
			r.Failure = &f
		}
	}
	fin := Transition{Kind: TransAttemptFinished, Task: r.Task, Attempt: r.Attempt,
		Elapsed: r.Elapsed, Tokens: r.Tokens, CostUSD: r.CostUSD, Failure: r.Failure}
	ts := []Transition{fin}
	switch {
	case r.Stop != nil:
		if fin.Failure == nil {
			fin.Failure = &Failure{Attempt: r.Attempt}
		}
		f := *fin.Failure
		f.Kind, f.Reason = FailGuardrail, fmt.Sprintf("hard guardrail %s: %s", r.Stop.Rule, r.Stop.Reason)
		ts[0].Failure = &f
		ts = append(ts, Transition{Kind: TransRunFinished, Outcome: StoppedByGuardrail, Reason: f.Reason})
	case r.Failure == nil:
		ts = append(ts, Transition{Kind: TransTaskFinished, Task: r.Task, Status: StatusDone})
	}
	return stamped(st, now, ts)
}

// stuck returns f recorded as stuck when, with the task's failed attempts
// before it, it closes a pattern: the last NoProgress attempts in a row
// changed nothing, or the last Alternation fingerprints in a row alternate
// between two. Only failures of the agent's work count: checks, review,
// the executor; a claim of blocked or an interruption breaks a pattern.
func (p *Policy) stuck(ts *TaskState, f Failure) (Failure, bool) {
	th := model.Stuck{}
	if p.Stuck != nil {
		th = *p.Stuck
	}
	if th.Off || ts == nil || !countsForStuck(f) {
		return f, false
	}
	th = th.Resolve()
	// The failed attempts in a row just before this one, newest first.
	var run []Failure
	for i := len(ts.Failures) - 1; i >= 0; i-- {
		g := ts.Failures[i]
		if g.Attempt <= ts.Base || g.Attempt != f.Attempt-1-len(run) || !countsForStuck(g) {
			break
		}
		run = append(run, g)
	}
	if len(run) > 0 && repeats(f, run[0]) {
		return f, false // the two-strike rule, or the review plateau, has it
	}
	if f.Unchanged && len(run) >= th.NoProgress-1 && allUnchanged(run[:th.NoProgress-1]) {
		return asStuck(f, "stuck:no-progress", fmt.Sprintf("no progress: attempts %d to %d changed nothing", f.Attempt-th.NoProgress+1, f.Attempt)), true
	}
	if n := th.Alternation; len(run) >= n-1 {
		a, b := checked(f), checked(run[0])
		alternates := a != "" && b != "" && a != b
		for i := 1; i < n-1 && alternates; i++ {
			want := a
			if i%2 == 0 {
				want = b
			}
			alternates = checked(run[i]) == want
		}
		if alternates {
			pair := []string{a, b}
			slices.Sort(pair)
			return asStuck(f, "stuck:alternating:"+strings.Join(pair, "|"),
				fmt.Sprintf("alternating: attempts %d to %d went back and forth between failures %s and %s", f.Attempt-n+1, f.Attempt, b, a)), true
		}
	}
	return f, false
}

// repeats reports whether f fails as prev did: the same fingerprint, or the
// same critical review findings.
func repeats(f, prev Failure) bool {
	if f.Kind == FailReview && prev.Kind == FailReview {
		return slices.Equal(f.Keys, prev.Keys)
	}
	return f.Fingerprint != "" && f.Fingerprint == checked(prev)
}

// checked is the fingerprint the attempt's checks gave: a stuck failure's
// from before its pattern was recognized.
func checked(f Failure) string { return cmp.Or(f.Was, f.Fingerprint) }

func countsForStuck(f Failure) bool {
	return f.Kind == FailVerify || f.Kind == FailReview || f.Kind == FailExecutor || f.Kind == FailStuck
}

func allUnchanged(fs []Failure) bool {
	for _, f := range fs {
		if !f.Unchanged {
			return false
		}
	}
	return true
}

// asStuck is f recorded as stuck, its own description kept in the reason.
func asStuck(f Failure, fingerprint, why string) Failure {
	was := f.Describe()
	f.Was = checked(f)
	f.Kind, f.Class, f.Fingerprint = FailStuck, "stuck", fingerprint
	f.Reason = why + " (the last: " + was + ")"
	return f
}

// ObserveVoid records that a fault of the harness cut an attempt short (its
// checks could not run, the executor could not start): the attempt keeps its
// number but not its cost to the budget, and the run ends with outcome
// error, for a person to fix the harness and resume.
func (p *Policy) ObserveVoid(st *RunState, taskID string, attempt int, reason string, now time.Time) ([]Transition, error) {
	return stamped(st, now, []Transition{
		{Kind: TransAttemptVoided, Task: taskID, Attempt: attempt, Reason: reason},
		{Kind: TransRunFinished, Outcome: Errored, Reason: reason},
	})
}

// ObserveDiagnosis records the debugger's answer for a task (the zero
// Diagnosis for a debugger that failed: no root cause); the next call to
// [Policy.Next] grants the one extra attempt or halts the task. What the
// debugger spent counts against the budgets.
func (p *Policy) ObserveDiagnosis(st *RunState, taskID string, d Diagnosis, now time.Time) ([]Transition, error) {
	return stamped(st, now, []Transition{{Kind: TransDebuggerFinished, Task: taskID, Found: d.Found, Diagnosis: &d,
		Tokens: d.Usage.Tokens(), CostUSD: d.Usage.CostUSD}})
}

// ObserveAdvice records the advisor's answer to a [StepAdvise]; nil
// stands for no answer (no advisor, or it failed), and the loop goes on as
// if it had not been asked. STOP ends the task escalated and the run with
// it, at once. At a repeated failure with the advisor in the debugger's
// place, PLAN or CORRECTION buy the one more attempt a root cause buys, and
// no answer halts the task as no debugger does. What the advisor spent
// counts against the budgets.
func (p *Policy) ObserveAdvice(st *RunState, step Step, a *schema.Advice, now time.Time) ([]Transition, error) {
	taskID := step.Task
	ts := st.Tasks[taskID]
	if ts == nil {
		return nil, fmt.Errorf("policy: advice for task %q, which has not started", taskID)
	}
	rec := Advised{Point: step.Point, Attempt: ts.Attempts}
	t := Transition{Kind: TransAdvised, Task: taskID, Advised: &rec, Instead: step.Instead}
	if a != nil {
		if err := a.Check(); err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		rec.Verdict, rec.Text = a.Verdict, a.Text
		t.Tokens, t.CostUSD = a.Usage.Tokens(), a.Usage.CostUSD
	}
	out := []Transition{t}
	if rec.Verdict == schema.AdviseStop {
		reason := "the advisor said STOP: " + rec.Text
		out = append(out,
			Transition{Kind: TransTaskFinished, Task: taskID, Status: StatusEscalated, Reason: reason},
			Transition{Kind: TransRunFinished, Outcome: Escalated, Reason: fmt.Sprintf("task %s: %s", taskID, reason)})
	}
	return stamped(st, now, out)
}

// ObserveNoDebugger records that a repeated failure found no debugger to
// ask: the next call to [Policy.Next] halts the task, as for no root cause.
func (p *Policy) ObserveNoDebugger(st *RunState, taskID string, now time.Time) ([]Transition, error) {
	return stamped(st, now, []Transition{{Kind: TransDebuggerFinished, Task: taskID, NoDebugger: true}})
}

// ObserveGate records a gate's verdict on the milestone after phase: approve
// goes on, defer ends the run awaiting approval, reject ends it escalated.
func (p *Policy) ObserveGate(st *RunState, phase string, dec GateDecision, now time.Time) ([]Transition, error) {
	switch dec.Verdict {
	case Approve:
		return stamped(st, now, []Transition{{Kind: TransGateApproved, Phase: phase}})
	case Reject:
		reason := "milestone after phase " + phase + " rejected"
		if dec.Note != "" {
			reason += ": " + dec.Note
		}
		return stamped(st, now, []Transition{{Kind: TransRunFinished, Outcome: Escalated, Reason: reason}})
	case Defer, "":
		return stamped(st, now, []Transition{{Kind: TransRunFinished, Outcome: AwaitingApproval,
			Reason: "milestone after phase " + phase + " awaits approval"}})
	}
	return nil, fmt.Errorf("loop: gate verdict %q is not approve, reject or defer", dec.Verdict)
}

// Resume returns the transitions that reopen a run that ended without
// completing: the run, and each task that ended escalated, halted or blocked,
// with a fresh budget (a person has stepped in). approve also approves the
// gate the run waits at. A run still going needs none.
func (p *Policy) Resume(st *RunState, approve bool, now time.Time) ([]Transition, error) {
	var ts []Transition
	if st.Outcome != "" {
		ts = append(ts, Transition{Kind: TransRunResumed})
	}
	ids := make([]string, 0, len(st.Tasks))
	for id, t := range st.Tasks {
		if t.Status.Terminal() && t.Status != StatusDone {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		ts = append(ts, Transition{Kind: TransTaskReopened, Task: id})
	}
	if approve && st.AwaitingGate != "" {
		ts = append(ts, Transition{Kind: TransGateApproved, Phase: st.AwaitingGate})
	}
	return stamped(st, now, ts)
}

// stamped times ts and checks that they apply to st in order.
func stamped(st *RunState, now time.Time, ts []Transition) ([]Transition, error) {
	c := overlay(st)
	for i := range ts {
		ts[i].Time = now
		if err := apply(st, c, ts[i]); err != nil {
			return nil, err
		}
	}
	return ts, nil
}
