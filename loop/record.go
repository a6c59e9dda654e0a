package loop

import (
	"context"
	"fmt"

	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/schema"
)

// commit makes ts durable, then applies them to the loop's copy of the state
// and reports them as events. Cancellation does not stop a commit: the run's
// record must say where it stopped.
func (l *Loop) commit(ctx context.Context, ts []policy.Transition) error {
	if len(ts) == 0 {
		return nil
	}
	if err := l.cfg.Store.Commit(context.WithoutCancel(ctx), ts...); err != nil {
		return err
	}
	for _, t := range ts {
		if err := l.st.Apply(t); err != nil {
			return err // the store accepted what the state rejects: a store bug
		}
		for _, e := range EventsOf(l.st.Run, t) {
			l.emit(e)
		}
		if t.Kind == policy.TransTaskFinished && t.Status == policy.StatusDone && l.commits() && l.st.Tasks[t.Task].Attempts > 0 {
			// Its commit is owed; the merge queue made a forked task's.
			l.pending = append(l.pending, owedCommit{task: t.Task, lookFirst: l.forker != nil})
		}
		if err := l.record(context.WithoutCancel(ctx), t); err != nil {
			l.log.Warn("loop: write records", "dir", l.cfg.RecordsDir, "err", err)
		}
	}
	if err := l.rec.flush(); err != nil {
		l.log.Warn("loop: write records", "dir", l.cfg.RecordsDir, "err", err)
	}
	return nil
}

// record keeps the audit log, handoffs and reports in step with a
// transition. Records are for people and prompts; failing to write one is
// logged and does not stop the run.
func (l *Loop) record(ctx context.Context, t policy.Transition) error {
	plan := l.cfg.Plan.Name
	switch t.Kind {
	case policy.TransAttemptFinished:
		tk := l.tasks[t.Task]
		a := l.rec.audit(plan, l.st.Run, l.st.Phase, t.Task, tk.Title)
		a.Attempts = append(a.Attempts, AuditAttempt{Attempt: t.Attempt, Elapsed: t.Elapsed, Tokens: t.Tokens, CostUSD: t.CostUSD, Failure: t.Failure})
		var crit []schema.Finding
		if t.Failure != nil {
			crit = t.Failure.Findings
		}
		for _, f := range crit {
			a.Findings = append(a.Findings, fmt.Sprintf("attempt %d: [%s] %s:%d %s", t.Attempt, f.Severity, f.File, f.Line, f.Message))
		}
		for _, f := range l.runOf(t.Task, 0).minor {
			a.Findings = append(a.Findings, fmt.Sprintf("attempt %d: %s", t.Attempt, f))
		}
		return l.rec.saveAudit(a)
	case policy.TransAttemptVoided:
		a := l.rec.audit(plan, l.st.Run, l.st.Phase, t.Task, l.tasks[t.Task].Title)
		a.Attempts = append(a.Attempts, AuditAttempt{Attempt: t.Attempt, Voided: t.Reason})
		return l.rec.saveAudit(a)
	case policy.TransDebuggerFinished:
		if t.NoDebugger {
			return nil
		}
		a := l.rec.audit(plan, l.st.Run, l.st.Phase, t.Task, l.tasks[t.Task].Title)
		a.Debugger = &AuditDebugger{AfterAttempt: l.st.Tasks[t.Task].DebuggedAt, Found: t.Found}
		if d := l.st.Tasks[t.Task].Diagnosis; d != nil && t.Found {
			a.Debugger.RootCause, a.Debugger.Fix = d.RootCause, d.Fix
		} else if d != nil {
			a.Debugger.FiveWhys = d.FiveWhys
		}
		return l.rec.saveAudit(a)
	case policy.TransAdvised:
		a := l.rec.audit(plan, l.st.Run, l.st.Phase, t.Task, l.tasks[t.Task].Title)
		a.Advice = append(a.Advice, *t.Advised)
		return l.rec.saveAudit(a)
	case policy.TransTaskFinished:
		ts := l.st.Tasks[t.Task]
		a := l.rec.audit(plan, l.st.Run, l.st.Phase, t.Task, l.tasks[t.Task].Title)
		a.Status, a.Reason, a.Escalated = t.Status, t.Reason, t.Status != policy.StatusDone
		if err := l.rec.saveAudit(a); err != nil {
			return err
		}
		l.learn(ctx, t.Task)
		if t.Status != policy.StatusDone {
			return nil
		}
		tr := l.runOf(t.Task, 0)
		h := &Handoff{Task: t.Task, Phase: l.phaseOf[t.Task], Status: t.Status, Attempts: ts.Attempts, Checks: tr.passed, Findings: tr.minor, FilesChanged: tr.files}
		if tr.last != nil {
			h.Summary = tr.last.Summary
		}
		delete(l.runs, t.Task)
		return l.rec.saveHandoff(h)
	case policy.TransRunFinished:
		switch {
		case t.Outcome == policy.Completed:
			var hs []*Handoff
			for _, pt := range l.cfg.Plan.Tasks() {
				if h := l.rec.handoff(pt.Task.ID); h != nil {
					hs = append(hs, h)
				}
			}
			return l.rec.writeText(summaryFile, completionSummary(l.st, hs))
		case t.Outcome == policy.StoppedByGuardrail || t.Outcome.NeedsPerson() && t.Outcome != policy.AwaitingApproval:
			// The task that ended the run: the one that did not get done, or
			// the one a guardrail stopped while it ran.
			for _, pt := range l.cfg.Plan.Tasks() {
				if ts := l.st.Tasks[pt.Task.ID]; ts != nil && (ts.Status == policy.StatusRunning || ts.Status.Terminal() && ts.Status != policy.StatusDone) {
					a := l.rec.audit(plan, l.st.Run, pt.Phase.ID, pt.Task.ID, pt.Task.Title)
					return l.rec.writeText(fmt.Sprintf(escalationFn, pt.Task.ID, l.st.Seq), escalationReport(l.st, a))
				}
			}
		}
	}
	return nil
}

// repairRecords writes what a crash kept the records from holding: records
// follow the state's commits, so a crash between the two leaves the state
// ahead. Each task's audit log gets the attempts and end the state knows
// of, a done task its handoff (what only the lost process knew, like the
// executor's summary, stays lost), and a completed run its summary.
func (l *Loop) repairRecords() {
	if l.cfg.RecordsDir == "" {
		return
	}
	plan := l.cfg.Plan.Name
	for _, pt := range l.cfg.Plan.Tasks() {
		id := pt.Task.ID
		ts := l.st.Tasks[id]
		if ts == nil || ts.Attempts == 0 {
			continue
		}
		a := l.rec.audit(plan, l.st.Run, pt.Phase.ID, id, pt.Task.Title)
		if a.repair(ts) {
			l.rec.saveAudit(a)
		}
		if ts.Status == policy.StatusDone && l.rec.handoff(id) == nil {
			l.rec.saveHandoff(&Handoff{Task: id, Phase: pt.Phase.ID, Status: ts.Status, Attempts: ts.Attempts})
		}
	}
	if err := l.rec.flush(); err != nil {
		l.log.Warn("loop: write records", "dir", l.cfg.RecordsDir, "err", err)
	}
	if l.st.Outcome == policy.Completed {
		var hs []*Handoff
		for _, pt := range l.cfg.Plan.Tasks() {
			if h := l.rec.handoff(pt.Task.ID); h != nil {
				hs = append(hs, h)
			}
		}
		if err := l.rec.writeText(summaryFile, completionSummary(l.st, hs)); err != nil {
			l.log.Warn("loop: write records", "dir", l.cfg.RecordsDir, "err", err)
		}
	}
}

func (l *Loop) emit(e Event) {
	l.emu.Lock()
	defer l.emu.Unlock()
	if e.Run == "" {
		e.Run = l.st.Run
	}
	if e.Time.IsZero() {
		e.Time = l.now()
	}
	l.log.Info(string(e.Type), "run", e.Run, "phase", e.Phase, "task", e.Task, "attempt", e.Attempt, "msg", e.Message)
	if l.cfg.Observer != nil {
		func() {
			defer func() { recover() }() // observers cannot fail the run
			l.cfg.Observer.Observe(e)
		}()
	}
}

// EventsOf returns the events of the run's stream that a committed
// transition stands for, as the loop reports them to its observer: for a
// follower in another process (a watch, a status page) to tell what the run
// tells.
func EventsOf(run string, t policy.Transition) []Event {
	e := Event{Time: t.Time, Run: run, Phase: t.Phase, Task: t.Task, Attempt: t.Attempt, Message: t.Reason}
	switch t.Kind {
	case policy.TransRunStarted:
		e.Type = RunStarted
	case policy.TransTaskStarted:
		e.Type = TaskStarted
	case policy.TransAttemptStarted:
		e.Type = AttemptStarted
	case policy.TransAttemptFinished:
		e.Type, e.Tokens, e.CostUSD = AttemptFinished, t.Tokens, t.CostUSD
		if f := t.Failure; f != nil {
			e.Fingerprint, e.Message = f.Fingerprint, string(f.Kind)+" failure"
			if f.Reason != "" {
				e.Message += ": " + f.Why()
			}
		}
	case policy.TransAttemptVoided:
		e.Type, e.Message = AttemptFinished, "voided: "+t.Reason
	case policy.TransDebuggerFinished:
		if t.NoDebugger {
			return nil // no debugger ran; the task's halt says why
		}
		e.Type, e.Message = DebuggerInvoked, "root cause found"
		if !t.Found {
			e.Message = "no root cause"
			return []Event{e, {Time: t.Time, Type: FiveWhysRecorded, Run: run, Task: t.Task}}
		}
	case policy.TransAdvised:
		e.Type, e.Tokens, e.CostUSD = AdvisorConsulted, t.Tokens, t.CostUSD
		e.Message = string(t.Advised.Point) + ": no answer"
		if a := t.Advised; a.Verdict != "" {
			e.Message = fmt.Sprintf("%s: %s %s", a.Point, a.Verdict, a.Text)
		}
	case policy.TransTaskFinished:
		e.Type = map[policy.TaskStatus]EventType{policy.StatusDone: TaskDone, policy.StatusEscalated: TaskEscalated, policy.StatusHalted: TaskHalted, policy.StatusBlocked: TaskBlocked}[t.Status]
	case policy.TransCauseShared:
		e.Type = CauseShared
	case policy.TransGateReached:
		e.Type = MilestoneReached
	case policy.TransGateApproved:
		e.Type = MilestoneApproved
	case policy.TransRunFinished:
		e.Type, e.Outcome = RunFinished, t.Outcome
	default:
		return nil
	}
	return []Event{e}
}
