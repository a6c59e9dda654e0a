package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// Tasks side by side. A phase whose plan lets tasks run at once has each
// task work in a fork of the tree of its own ([Forker]), so that no task
// sees another's change half made; its checks and review run there. A change
// that passed them joins the run's branch through the merge queue, one at a
// time in the order they passed: the fork first takes in what the branch
// gained since it forked (a conflict is the attempt's failure, left in the
// fork with its markers for the next attempt to resolve), the checks run
// again on that integrated tree when it changed (a failure there is the
// attempt's too), and only then does the change become the task's commit
// on the branch. It is found by its trailers if a crash comes before it is
// recorded, so no task is integrated twice.

// sideBySide reports whether the tasks of phase run in forks: the phase
// runs several at once, and the run can fork and commit.
func (l *Loop) sideBySide(phase string) bool {
	return l.forker != nil && l.cfg.Plan.Parallelism(l.phase(phase)) > 1
}

// fork points the attempt at its task's fork, made at its first attempt.
func (l *Loop) fork(ctx context.Context, a *attemptCtx) error {
	if !l.sideBySide(a.step.Phase) {
		return nil
	}
	if a.tr.fork == nil {
		f, err := l.forker.Fork(context.WithoutCancel(ctx), l.st.Run+"-"+a.step.Task)
		if err != nil {
			return fmt.Errorf("loop: the working copy of task %s: %w", a.step.Task, err)
		}
		a.tr.fork = f
	}
	a.ws, a.dir = a.tr.fork.Workspace, a.tr.fork.Dir
	return nil
}

// integrate brings an attempt whose checks and review passed in its fork
// onto the run's branch, through the merge queue, or fails it (r.Failure)
// on a conflict or on checks that fail on the integrated tree. An error is a
// fault of the harness.
func (l *Loop) integrate(ctx context.Context, t *task.Task, a *attemptCtx, r *policy.AttemptReport) error {
	l.enqueue(t.ID, true)
	defer l.enqueue(t.ID, false)
	l.queue.Lock()
	defer l.queue.Unlock()
	ctx = context.WithoutCancel(ctx) // the queue's git work is not cut half done
	f := a.tr.fork
	a.integrated = true
	l.mu.Lock()
	var summary string
	if a.tr.last != nil {
		summary = a.tr.last.Summary
	}
	req := l.taskCommit(t.ID, a.step.Attempt, summary)
	l.mu.Unlock()
	hash, fail, err := IntegrateFork(ctx, l.forker, f, req, a.step.Attempt, func(ctx context.Context) (*verify.Report, error) {
		return retryCheck(ctx, l, a.step, "verify", func() (*verify.Report, error) {
			return l.cfg.Verifier.Verify(ctx, &verify.Request{Task: t, PhaseID: a.step.Phase, WorkDir: f.Dir, Attempt: a.step.Attempt})
		})
	})
	if err != nil {
		return fmt.Errorf("loop: integrate task %s: %w", t.ID, err)
	}
	if r.Failure = fail; fail != nil {
		if fail.Class != "conflict" {
			l.emit(Event{Type: VerifyFailed, Phase: a.step.Phase, Task: t.ID, Attempt: a.step.Attempt, Fingerprint: fail.Fingerprint, Message: fail.Reason})
		}
		return nil
	}
	l.log.Info("loop: task integrated", "task", t.ID, "commit", hash)
	if err := l.forker.Discard(ctx, f); err != nil {
		l.log.Warn("loop: remove a working copy", "task", t.ID, "dir", f.Dir, "err", err)
	}
	a.tr.fork = nil
	return nil
}

// IntegrateFork brings the change of a task's fork f, whose checks passed
// there, onto the tree's branch as one commit (req): the fork first takes
// in what the branch gained since it forked, and when that changed it,
// verify runs the task's checks again in it. It returns the commit (""
// when the fork changed nothing), or the attempt's failure: a conflict
// (left in the fork, with its markers, for the next attempt) or checks
// that fail on the integrated tree. An error is a fault of the harness.
// The caller takes one task at a time through it (the merge queue) and
// discards the fork once it is integrated. A host that takes the steps
// itself (a workflow engine) integrates as the loop does with it.
func IntegrateFork(ctx context.Context, fk Forker, f *Fork, req *CommitRequest, attempt int, verify func(context.Context) (*verify.Report, error)) (string, *policy.Failure, error) {
	changed, err := fk.Update(ctx, f)
	if ce, ok := errors.AsType[*ConflictError](err); ok {
		return "", conflictFailure(attempt, ce), nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("bring the branch into the working copy: %w", err)
	}
	if changed {
		rep, err := verify(ctx)
		if err != nil {
			return "", nil, fmt.Errorf("verify on the integrated tree: %w", err)
		}
		if rep == nil {
			return "", nil, errors.New("verify on the integrated tree: the verifier returned no report")
		}
		if f := VerifyFailure(attempt, rep); f != nil {
			f.Reason = "with what the run's branch gained since the task forked, the checks fail: " + f.Reason
			return "", f, nil
		}
	}
	hash, err := fk.Integrate(ctx, f, req)
	if ce, ok := errors.AsType[*ConflictError](err); ok {
		return "", conflictFailure(attempt, ce), nil // the branch moved under the queue: not ours alone
	}
	return hash, nil, err
}

// QueueFile is the file, in the records directory, that lists the tasks
// waiting in the merge queue or being integrated, in the order they came,
// for a person watching from another shell (harnish status). It is rewritten
// as the queue changes and removed when it empties.
const QueueFile = "queue.json"

// enqueue adds task id to the queue's list, or takes it off, and writes the
// list for a person to see; a failure to is logged.
func (l *Loop) enqueue(id string, in bool) {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	if in {
		l.waiting = append(l.waiting, id)
	} else {
		l.waiting = slices.DeleteFunc(l.waiting, func(w string) bool { return w == id })
	}
	if l.cfg.RecordsDir == "" {
		return
	}
	path := filepath.Join(l.cfg.RecordsDir, QueueFile)
	var err error
	if len(l.waiting) == 0 {
		if err = os.Remove(path); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	} else {
		data, _ := json.Marshal(l.waiting)
		if err = os.MkdirAll(l.cfg.RecordsDir, 0o755); err == nil {
			err = fsx.ReplaceFile(path, append(data, '\n'), 0o644)
		}
	}
	if err != nil {
		l.log.Warn("loop: write the merge queue's list", "err", err)
	}
}

// ReadQueue returns the tasks in the merge queue of the run whose records
// are in dir, in the order they came; none when it is empty.
func ReadQueue(dir string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, QueueFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var q []string
	if err := json.Unmarshal(data, &q); err != nil {
		return nil, fmt.Errorf("loop: %s: %w", filepath.Join(dir, QueueFile), err)
	}
	return q, nil
}

// conflictFailure is the failure of an attempt whose change conflicts with
// the run's branch; its fingerprint is the files, so the same conflict twice
// is two strikes.
func conflictFailure(attempt int, ce *ConflictError) *policy.Failure {
	files := strings.Join(ce.Paths, ", ")
	return &policy.Failure{Attempt: attempt, Kind: policy.FailVerify, Class: "conflict", Fingerprint: "conflict:" + files,
		Reason: "the change conflicts with what the run's branch gained since the task forked, in " + files,
		OutputTail: "CONFLICT in " + files + "\nThe run's branch is merged into your working copy with conflict markers in these files:" +
			" resolve them, keeping both changes' intent, and make the checks pass."}
}
