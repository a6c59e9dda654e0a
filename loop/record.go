package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/internal/transcript"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
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
// logged and does not stop the run. Recording a transition again (a
// resume, a repair) changes nothing further.
func (l *Loop) record(ctx context.Context, t policy.Transition) error {
	switch t.Kind {
	case policy.TransAttemptFinished:
		a := l.auditOf(t.Task)
		a.put(AuditAttempt{Attempt: t.Attempt, Elapsed: t.Elapsed, Tokens: t.Tokens, CostUSD: t.CostUSD, Failure: t.Failure,
			Ended: t.Time, Transcript: l.transcriptRef(t.Task, t.Attempt)})
		a.putFindings(t.Attempt, t.Failure, l.runOf(t.Task, 0).minor)
		return l.rec.saveAudit(a)
	case policy.TransAttemptVoided:
		a := l.auditOf(t.Task)
		a.put(AuditAttempt{Attempt: t.Attempt, Voided: t.Reason, Ended: t.Time, Transcript: l.transcriptRef(t.Task, t.Attempt)})
		return l.rec.saveAudit(a)
	case policy.TransDebuggerFinished:
		if t.NoDebugger {
			return nil
		}
		a := l.auditOf(t.Task)
		a.Debugger = debuggerOf(l.st.Tasks[t.Task])
		return l.rec.saveAudit(a)
	case policy.TransTaskReopened:
		a := l.auditOf(t.Task)
		a.Status, a.Reason, a.EndedAt = policy.StatusRunning, "", time.Time{}
		return l.rec.saveAudit(a)
	case policy.TransAdvised:
		a := l.auditOf(t.Task)
		if !slices.ContainsFunc(a.Advice, func(x policy.Advised) bool { return x.Point == t.Advised.Point && x.Attempt == t.Advised.Attempt }) {
			a.Advice = append(a.Advice, *t.Advised)
		}
		return l.rec.saveAudit(a)
	case policy.TransTaskFinished:
		ts := l.st.Tasks[t.Task]
		a := l.auditOf(t.Task)
		a.Status, a.Reason, a.Escalated, a.EndedAt = t.Status, t.Reason, t.Status != policy.StatusDone, t.Time
		if err := l.rec.saveAudit(a); err != nil {
			return err
		}
		l.learn(ctx, t.Task)
		if t.Status != policy.StatusDone {
			return nil
		}
		tr := l.runOf(t.Task, 0)
		h := &Handoff{Task: t.Task, Phase: l.phaseOf[t.Task], Status: t.Status, Attempts: ts.Attempts, Checks: tr.passed, Findings: tr.minor, FilesChanged: tr.files}
		if len(h.FilesChanged) > 0 {
			h.FilesFrom = tr.filesFrom
		}
		if tr.last != nil {
			h.Summary = tr.last.Summary
			h.Decisions, h.OpenQuestions, h.Blocker = tr.last.Decisions, tr.last.OpenQuestions, tr.last.Blocker
		}
		delete(l.runs, t.Task)
		return l.rec.saveHandoff(h)
	case policy.TransTaskCommitted:
		// The commit is the change: its files replace what the diff or the
		// agent said.
		h := l.rec.handoff(t.Task)
		if h == nil || t.Commit == "" || h.FilesFrom == "commit" {
			return nil
		}
		if files := l.commitFiles(ctx, t.Commit); files != nil {
			h.FilesChanged, h.FilesFrom = files, "commit"
			return l.rec.saveHandoff(h)
		}
	case policy.TransRunFinished:
		switch {
		case t.Outcome == policy.Completed:
			return l.complete(ctx)
		case t.Outcome == policy.StoppedByGuardrail || t.Outcome.NeedsPerson() && t.Outcome != policy.AwaitingApproval:
			// The task that ended the run: the one that did not get done, or
			// the one a guardrail stopped while it ran.
			for _, pt := range l.cfg.Plan.Tasks() {
				if ts := l.st.Tasks[pt.Task.ID]; ts != nil && (ts.Status == policy.StatusRunning || ts.Status.Terminal() && ts.Status != policy.StatusDone) {
					a := l.auditOf(pt.Task.ID)
					return l.rec.writeText(fmt.Sprintf(escalationFn, pt.Task.ID, l.st.Seq), escalationReport(l.st, a))
				}
			}
		}
	}
	return nil
}

// auditOf returns the audit log of task id, its final check as the plan
// has it now.
func (l *Loop) auditOf(id string) *AuditLog {
	t := l.tasks[id]
	a := l.rec.audit(l.cfg.Plan.Name, l.st.Run, l.phaseOf[id], id, t.Title)
	a.FinalCheck = checksText(t.Acceptance)
	return a
}

// checksText is a task's acceptance checks as commands, one after another.
func checksText(cs []task.Check) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		var s string
		switch c.Kind() {
		case "run":
			s = strings.Join(c.Run, " ")
		case "sh":
			s = "sh -c " + strconv.Quote(c.Sh)
		case "manual":
			s = "manual: " + c.Manual
		case "gotest":
			pkgs := c.GoTest.Packages
			if len(pkgs) == 0 {
				pkgs = []string{"./..."}
			}
			s = strings.Join(slices.Concat([]string{"go", "test", "-json"}, c.GoTest.Flags, pkgs), " ")
		case "cmake":
			s = "cmake configure, build, ctest"
			if c.CMake.Preset != "" {
				s += " (preset " + c.CMake.Preset + ")"
			}
		default:
			continue
		}
		if c.Dir != "" && c.Dir != "." {
			s += " (in " + c.Dir + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// transcriptRef names the transcript of a task's attempt for its audit
// log, when the attempt left one: the one its executor named, else the
// one in the host's TranscriptDir (an attempt that failed, or a repair).
func (l *Loop) transcriptRef(id string, attempt int) string {
	path := ""
	if tr := l.runs[id]; tr != nil && tr.last != nil { // this attempt's: reset as each begins
		path = tr.last.Transcript
	}
	if path == "" && l.cfg.TranscriptDir != "" {
		path = TranscriptPath(l.cfg.TranscriptDir, id, attempt)
		if _, err := os.Stat(path); err != nil {
			return ""
		}
	}
	if path == "" {
		return ""
	}
	if l.cfg.RecordsDir != "" {
		if rel, err := filepath.Rel(l.cfg.RecordsDir, path); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// TranscriptsDir is where in the working tree a host keeps the attempts'
// transcripts (the CLI does: Config.TranscriptDir). harnish writes them
// while the agent works, so the workspaces leave this directory out of
// their snapshots: it is never part of the agent's change.
const TranscriptsDir = StateDir + "/transcripts"

// TranscriptPath is where an attempt's transcript is kept in dir:
// <task>-<attempt>.jsonl, the task ID made safe for a file name.
func TranscriptPath(dir, task string, attempt int) string {
	return filepath.Join(dir, transcript.SafeName(task)+"-"+strconv.Itoa(attempt)+".jsonl")
}

// commitFiles returns the files a task's commit changed; nil when they
// cannot be read.
func (l *Loop) commitFiles(ctx context.Context, commit string) []string {
	g, ok := l.hist.(*GitWorkspace)
	if !ok {
		return nil
	}
	files, err := gitx.CommitFiles(ctx, g.Dir, commit)
	if err != nil {
		l.log.Warn("loop: read a task's commit", "commit", commit, "err", err)
		return nil
	}
	return files
}

// complete holds the run's completion ceremony, once: the session notes,
// when the host saves them (SessionNotes), then summary.md, whose presence
// says the ceremony is over, so a later resume of the completed run
// neither asks nor writes again. A crash between the two asks again, and
// the notes are written again where they were.
func (l *Loop) complete(ctx context.Context) error {
	if l.cfg.RecordsDir == "" {
		return nil
	}
	path := filepath.Join(l.cfg.RecordsDir, summaryFile)
	if done, notes := summaryOf(path, l.st.Run); done {
		l.rec.notes = notes
		return nil
	}
	var hs []*Handoff
	for _, pt := range l.cfg.Plan.Tasks() {
		if h := l.rec.handoff(pt.Task.ID); h != nil {
			hs = append(hs, h)
		}
	}
	title := func(id string) string { return l.tasks[id].Title }
	text := completionSummary(l.st, hs, title, l.decisionAssets(ctx))
	if notes := l.sessionNotes(ctx, text); notes != "" {
		l.rec.notes = notes
		text += "\n" + notesLine + notes + "\n"
	}
	return fsx.ReplaceFile(path, []byte(text), 0o644)
}

// maxDecisionAssets bounds the decision assets a completion summary lists.
const maxDecisionAssets = 20

// decisionAssets are the decisions recorded as assets since the run started.
func (l *Loop) decisionAssets(ctx context.Context) []string {
	if l.cfg.Assets == nil {
		return nil
	}
	found, err := guard(func() ([]*asset.Asset, error) {
		return l.cfg.Assets.Query(ctx, asset.Query{Type: asset.TypeDecision, Limit: maxDecisionAssets})
	})
	if err != nil {
		l.log.Warn("loop: query the decisions for the summary", "err", err)
		return nil
	}
	var ds []string
	for _, a := range found {
		if !a.Date.Before(l.st.Started) || a.Session == l.st.Run {
			ds = append(ds, oneLine(a.Title))
		}
	}
	return ds
}

// sessionNotes asks the host whether and where to save the completion
// summary in the working tree, saves it there, and returns where (relative
// to the tree's root), or "".
func (l *Loop) sessionNotes(ctx context.Context, text string) string {
	ask := l.cfg.SessionNotes
	if ask == nil {
		return ""
	}
	root := l.workDir()
	req := &SessionNotesRequest{Run: l.st.Run, Plan: l.st.Plan, Text: text, Path: sessionNotesPath(root, l.st.Updated, text)}
	path, err := guard(func() (string, error) { return ask(ctx, req) })
	if err != nil || path == "" {
		if err != nil {
			l.log.Warn("loop: session notes", "err", err)
		}
		return ""
	}
	if filepath.IsAbs(path) {
		path, err = filepath.Rel(root, path)
	}
	path = filepath.Clean(filepath.FromSlash(path))
	if err != nil || !filepath.IsLocal(path) || strings.HasPrefix(filepath.ToSlash(path), StateDir+"/") {
		l.log.Warn("loop: session notes: not saved, the path is not in the working tree", "path", path)
		return ""
	}
	if err := saveWithin(root, path, []byte(text)); err != nil {
		l.log.Warn("loop: session notes", "path", filepath.Join(root, path), "err", err)
		return ""
	}
	return filepath.ToSlash(path)
}

// saveWithin replaces the file at path, relative to root, with data: a
// temporary file renamed over it, all through os.Root, so no symbolic link
// takes the write out of root.
func saveWithin(root, path string, data []byte) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".harnish-tmp"
	if err := r.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := r.Rename(tmp, path); err != nil {
		r.Remove(tmp)
		return err
	}
	return nil
}

// repairRecords writes what a crash kept the records from holding: records
// follow the state's commits, so a crash between the two leaves the state
// ahead. Each task's audit log gets the attempts and end the state knows
// of, a done task its handoff (what only the lost process knew, like the
// executor's summary, stays lost; its files come from its commit), and a
// completed run its summary and session notes.
func (l *Loop) repairRecords(ctx context.Context) {
	if l.cfg.RecordsDir == "" {
		return
	}
	// The summary is written last, after every other record: when it is
	// there for this run, a crash cut nothing off, and only a record gone
	// since (a person removed it) needs writing again. So a resume of a
	// finished run of 10,000 tasks looks at its files, not reads them all.
	summed := false
	l.rec.listed = nil // what the directories hold now, not at an earlier drive
	if l.st.Outcome == policy.Completed {
		summed, _ = summaryOf(filepath.Join(l.cfg.RecordsDir, summaryFile), l.st.Run)
	}
	for _, pt := range l.cfg.Plan.Tasks() {
		id := pt.Task.ID
		ts := l.st.Tasks[id]
		if ts == nil || ts.Attempts == 0 {
			continue
		}
		if summed && l.rec.present(l.cfg.Plan.Name, id, ts.Status == policy.StatusDone) {
			continue
		}
		a := l.auditOf(id)
		if a.repair(ts) {
			l.rec.saveAudit(a)
		}
		if ts.Status != policy.StatusDone {
			continue
		}
		h := l.rec.handoff(id)
		if h == nil {
			h = &Handoff{Task: id, Phase: pt.Phase.ID, Status: ts.Status, Attempts: ts.Attempts}
			l.rec.saveHandoff(h)
		}
		if ts.Commit != "" && h.FilesFrom != "commit" {
			l.record(ctx, policy.Transition{Kind: policy.TransTaskCommitted, Task: id, Commit: ts.Commit})
		}
	}
	if err := l.rec.flush(); err != nil {
		l.log.Warn("loop: write records", "dir", l.cfg.RecordsDir, "err", err)
	}
	if l.st.Outcome == policy.Completed {
		if err := l.complete(ctx); err != nil {
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
			e.Failure, e.Class = string(f.Kind), f.Class
			e.Fingerprint, e.Message = f.Fingerprint, string(f.Kind)+" failure"
			if f.Reason != "" {
				e.Message += ": " + f.Why()
			}
		}
	case policy.TransAttemptVoided:
		e.Type, e.Message, e.Failure = AttemptFinished, "voided: "+t.Reason, "voided"
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
