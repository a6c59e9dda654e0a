package loop

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// owedCommit is a done task whose commit the state does not yet record.
// lookFirst: a crash may have come between making and recording it, so it
// is looked for before it is made.
type owedCommit struct {
	task      string
	lookFirst bool
}

// commits reports whether the run commits its tasks: the host asks for it,
// and the run was started to (a run started on a dirty tree was not, and a
// resume must not sweep those changes into a commit).
func (l *Loop) commits() bool {
	return l.cfg.CommitTasks && l.st.Commits && l.hist != nil
}

// prepare readies the working tree before a drive's first step: what a
// crash left behind cleared (and said), back on the run's branch, and the
// done tasks whose commit a crash may have cut off queued for settle.
func (l *Loop) prepare(ctx context.Context) error {
	if l.hist == nil || (l.st.Branch == "" && !l.commits()) {
		return nil
	}
	req := &PrepareRequest{Branch: l.st.Branch}
	for _, ts := range l.st.Tasks {
		req.Existed = req.Existed || ts.Commit != ""
	}
	notes, err := l.hist.Prepare(ctx, req)
	for _, n := range notes {
		l.log.Warn("loop: " + n)
	}
	if err != nil {
		return fmt.Errorf("loop: run %s: %w", l.st.Run, err)
	}
	l.rec.sweep()
	if !l.commits() {
		return nil
	}
	l.pending = l.pending[:0]
	for _, pt := range l.cfg.Plan.Tasks() {
		if ts := l.st.Tasks[pt.Task.ID]; ts != nil && ts.Status == policy.StatusDone && !ts.Committed && ts.Attempts > 0 {
			l.pending = append(l.pending, owedCommit{task: pt.Task.ID, lookFirst: true})
		}
	}
	return nil
}

// settle makes the commits the durable state owes, each recorded as made
// (task.committed, records.committed): every done task's, in order, and
// once the run has ended, its records'. A commit that fails is an error:
// the run does not go on, or end completed, with its work uncommitted.
func (l *Loop) settle(ctx context.Context) error {
	if l.commitFailed || !l.commits() {
		return nil
	}
	ctx = context.WithoutCancel(ctx) // a commit owed is made, cancelled or not
	for len(l.pending) > 0 {
		id := l.pending[0].task
		hash, err := l.commitTask(ctx, l.pending[0])
		if err != nil {
			l.commitFailed = true
			return err
		}
		if err := l.commit(ctx, []policy.Transition{{Kind: policy.TransTaskCommitted, Time: l.now(), Task: id, Commit: hash}}); err != nil {
			return err
		}
		l.pending = l.pending[1:]
		if hash != "" {
			l.log.Info("loop: task committed", "task", id, "commit", hash)
		}
	}
	if l.st.Outcome == "" || l.st.RecordsCommitted {
		return nil
	}
	hash, err := l.commitRecords(ctx)
	if err != nil {
		l.commitFailed = true
		return err
	}
	return l.commit(ctx, []policy.Transition{{Kind: policy.TransRecordsCommitted, Time: l.now(), Commit: hash}})
}

// commitTask commits a done task's changes, or finds the commit a crash cut
// off before it was recorded (or that the merge queue made, for a task that
// ran in a fork). It returns "" when the task changed nothing.
func (l *Loop) commitTask(ctx context.Context, owed owedCommit) (string, error) {
	id := owed.task
	var summary string
	if h := l.rec.handoff(id); h != nil {
		summary = h.Summary
	}
	req := l.taskCommit(id, l.st.Tasks[id].Attempts, summary)
	if !owed.lookFirst {
		req.Find = nil
	}
	hash, err := l.hist.Commit(ctx, req)
	if err != nil {
		return "", fmt.Errorf("loop: commit task %s: %w", id, err)
	}
	return hash, nil
}

// taskCommit is the commit of task id after attempts, with the executor's
// summary. l.mu must be held.
func (l *Loop) taskCommit(id string, attempts int, summary string) *CommitRequest {
	return TaskCommit(l.st.Run, l.phaseOf[id], l.tasks[id], attempts, summary)
}

// TaskCommit is the commit of task t of phase in run after attempts, with
// the executor's summary as its body: "feat(<phase>): <task id> — <title>",
// and the run's metadata as trailers (Harnish-Run, Harnish-Task,
// Harnish-Attempts), which Find lists to find it again after a crash.
func TaskCommit(run, phase string, t *task.Task, attempts int, summary string) *CommitRequest {
	trailers := []string{"Harnish-Run: " + run, "Harnish-Task: " + t.ID}
	msg := fmt.Sprintf("feat(%s): %s — %s\n\n", phase, t.ID, t.Title)
	if summary != "" {
		msg += summary + "\n\n"
	}
	msg += fmt.Sprintf("%s\n%s\nHarnish-Attempts: %d\n", trailers[0], trailers[1], attempts)
	return &CommitRequest{Message: msg, Find: trailers}
}

// commitRecords commits the run's records (handoffs, audit logs, the
// summary or escalation report), apart from the tasks' commits, when they
// are kept inside the working tree. It returns "" when there was nothing to
// commit (or a crash came after the commit and before its record: the
// records are then committed already).
func (l *Loop) commitRecords(ctx context.Context) (string, error) {
	if l.cfg.RecordsDir == "" {
		return "", nil
	}
	root := l.workDir()
	records, err := filepath.Abs(l.cfg.RecordsDir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, records)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", nil // outside the working tree: not the repository's business
	}
	paths := []string{} // only these, even when there are none
	for _, p := range recordPaths {
		matches, _ := filepath.Glob(filepath.Join(records, p))
		for _, m := range matches {
			r, _ := filepath.Rel(root, m)
			paths = append(paths, filepath.ToSlash(r))
		}
	}
	if l.rec.notes != "" {
		paths = append(paths, l.rec.notes) // the session notes the host saved in the tree
	}
	o := l.st.Outcome
	msg := fmt.Sprintf("chore(harnish): records of run %s (%s)\n\nHarnish-Run: %s\nHarnish-Outcome: %s\n", l.st.Run, o, l.st.Run, o)
	hash, err := l.hist.Commit(ctx, &CommitRequest{Message: msg, Paths: paths})
	if err != nil {
		return "", fmt.Errorf("loop: commit the run's records: %w", err)
	}
	return hash, nil
}
