package loop

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/loop/policy"
)

// commits reports whether the run commits its tasks: the host asks for it,
// and the run was started to (a run started on a dirty tree was not, and a
// resume must not sweep those changes into a commit).
func (l *Loop) commits() bool {
	return l.cfg.CommitTasks && l.st.Commits && l.isGit()
}

// prepare readies the working tree before a drive's first step: back on the
// run's branch, git locks a crash left behind removed (and said so), and
// the done tasks whose commit a crash may have cut off queued for settle.
func (l *Loop) prepare(ctx context.Context) error {
	if !l.isGit() || (l.st.Branch == "" && !l.commits()) {
		return nil
	}
	if err := l.clearLocks(ctx); err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	l.rec.sweep()
	if err := l.onBranch(ctx); err != nil {
		return err
	}
	if !l.commits() {
		return nil
	}
	l.pending = l.pending[:0]
	for _, pt := range l.cfg.Plan.Tasks() {
		if ts := l.st.Tasks[pt.Task.ID]; ts != nil && ts.Status == policy.StatusDone && !ts.Committed && ts.Attempts > 0 {
			l.pending = append(l.pending, pt.Task.ID)
			l.recovered[pt.Task.ID] = true
		}
	}
	return nil
}

// clearLocks removes the git locks a crash left behind, and says so.
func (l *Loop) clearLocks(ctx context.Context) error {
	removed, err := gitx.ClearStaleLocks(ctx, l.workDir(), l.st.Branch)
	l.saidLocks(removed)
	return err
}

func (l *Loop) saidLocks(removed []string) {
	for _, p := range removed {
		l.log.Warn("loop: removed a git lock that a crash left behind", "path", p)
	}
}

// onBranch puts the working tree on the run's branch: it is there, it is
// switched to (when that carries no changes along), or, when a crash came
// before it was made, it is made at HEAD.
func (l *Loop) onBranch(ctx context.Context) error {
	want := l.st.Branch
	if want == "" {
		return nil
	}
	dir := l.workDir()
	cur, err := gitx.CurrentBranch(ctx, dir)
	if err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	if cur == want {
		return nil
	}
	exists, err := gitx.BranchExists(ctx, dir, want)
	if err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	if !exists {
		for id, ts := range l.st.Tasks {
			if ts.Commit != "" {
				return fmt.Errorf("loop: run %s works on branch %s, which is gone (task %s was committed on it as %s); restore the branch to go on",
					l.st.Run, want, id, ts.Commit)
			}
		}
		if err := gitx.Branch(ctx, dir, want); err != nil {
			return fmt.Errorf("loop: make the run's branch: %w", err)
		}
		return nil
	}
	if err := gitx.Switch(ctx, dir, want, StateDir); err != nil {
		return fmt.Errorf("loop: run %s works on branch %s, but %s is checked out: %w", l.st.Run, want, cmpOr(cur, "a detached HEAD"), err)
	}
	l.log.Warn("loop: switched back to the run's branch", "from", cmpOr(cur, "a detached HEAD"), "to", want)
	return nil
}

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
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
		id := l.pending[0]
		hash, err := l.commitTask(ctx, id)
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
// off before it was recorded. It returns "" when the task changed nothing.
func (l *Loop) commitTask(ctx context.Context, id string) (string, error) {
	dir := l.workDir()
	if l.recovered[id] {
		hash, err := gitx.FindCommit(ctx, dir, "Harnish-Run: "+l.st.Run, "Harnish-Task: "+id)
		if err != nil {
			return "", fmt.Errorf("loop: look for task %s's commit: %w", id, err)
		}
		if hash != "" {
			return hash, nil
		}
	}
	t, ts := l.tasks[id], l.st.Tasks[id]
	msg := fmt.Sprintf("feat(%s): %s — %s\n\n", l.phaseOf[id], id, t.Title)
	if h := l.rec.handoff(id); h != nil && h.Summary != "" {
		msg += h.Summary + "\n\n"
	}
	msg += fmt.Sprintf("Harnish-Run: %s\nHarnish-Task: %s\nHarnish-Attempts: %d\n", l.st.Run, id, ts.Attempts)
	hash, err := l.gitCommit(ctx, func() (string, error) { return gitx.CommitAll(ctx, dir, msg, StateDir) })
	if err != nil {
		return "", fmt.Errorf("loop: commit task %s: %w", id, err)
	}
	return hash, nil
}

// gitCommit runs commit, and again after removing the git locks a crash
// left behind when those are what stopped it; a git of the crashed process
// may take a moment to die, so it waits for that a little.
func (l *Loop) gitCommit(ctx context.Context, commit func() (string, error)) (string, error) {
	hash, err := commit()
	for wait := 50 * time.Millisecond; errors.Is(err, gitx.ErrLocked) && wait < 2*time.Second; wait *= 2 {
		removed, cerr := gitx.ClearStaleLocks(ctx, l.workDir(), l.st.Branch)
		l.saidLocks(removed)
		if cerr != nil {
			return "", errors.Join(err, cerr)
		}
		if len(removed) == 0 {
			time.Sleep(wait)
		}
		hash, err = commit()
	}
	return hash, err
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
	var paths []string
	for _, p := range recordPaths {
		matches, _ := filepath.Glob(filepath.Join(records, p))
		for _, m := range matches {
			r, _ := filepath.Rel(root, m)
			paths = append(paths, filepath.ToSlash(r))
		}
	}
	o := l.st.Outcome
	msg := fmt.Sprintf("chore(harnish): records of run %s (%s)\n\nHarnish-Run: %s\nHarnish-Outcome: %s\n", l.st.Run, o, l.st.Run, o)
	hash, err := l.gitCommit(ctx, func() (string, error) { return gitx.CommitPaths(ctx, root, msg, paths...) })
	if err != nil {
		return "", fmt.Errorf("loop: commit the run's records: %w", err)
	}
	return hash, nil
}
