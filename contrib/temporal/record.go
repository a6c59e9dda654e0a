package temporal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// RecordInput carries transitions the workflow committed to the working
// tree's record of the run, which the worker keeps as the CLI keeps its
// own (see [Activities.Record]).
type RecordInput struct {
	Ref
	// CommitTasks and Branch are the run's (RunInput).
	CommitTasks bool   `json:"commit_tasks,omitempty"`
	Branch      string `json:"branch,omitempty"`
	// From is the number of transitions the workflow had applied before
	// Transitions.
	From        uint64              `json:"from"`
	Transitions []policy.Transition `json:"transitions"`
	// Notes are what the workflow knows of the last attempt of each task
	// that Transitions touch, for its handoff, audit log and experience.
	Notes map[string]*loop.TaskNotes `json:"notes,omitempty"`
	// Owed lists the done tasks whose commit the workflow's state, after
	// Transitions, does not record; Ended and RecordsCommitted say whether
	// it records the run's end and its records' commit.
	Owed             []string `json:"owed,omitempty"`
	Ended            bool     `json:"ended,omitempty"`
	RecordsCommitted bool     `json:"records_committed,omitempty"`
}

// RecordOutput is what the record made that the workflow's state must
// record in turn: the commits (task.committed, records.committed) and,
// when a commit failed, the run's end with outcome error.
type RecordOutput struct {
	Then []policy.Transition `json:"then,omitempty"`
}

// follower is a run's record in a working tree, kept by a loop that
// follows the workflow ([loop.Loop.Follow]).
type follower struct {
	mu      sync.Mutex // one Record of a run at a time
	l       *loop.Loop
	closers []io.Closer
}

func (f *follower) close() error {
	var errs []error
	for i := len(f.closers) - 1; i >= 0; i-- {
		errs = append(errs, f.closers[i].Close())
	}
	return errors.Join(errs...)
}

// Record keeps the working tree's record of the run exactly as the CLI's
// loop keeps its own, by the same code ([loop.Loop.Follow]): the run's
// state and journal in Dir/.harnish, the audit logs, handoffs, reports and
// completion summary beside them, the experience store, and, with
// CommitTasks, the run's branch, one commit per task done and one of the
// records at the end, each with the CLI's message and trailers.
//
// It is idempotent: Temporal may run it again after a worker crashed at
// any point of it, and it then does only what is missing. The state's
// sequence number says which transitions are on record, and a commit made
// but not recorded is found by its trailers (Harnish-Run, Harnish-Task),
// never made twice.
func (a *Activities) Record(ctx context.Context, in RecordInput) (*RecordOutput, error) {
	key := runKey(in.Ref)
	f, err := a.follower(ctx, key, in)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	defer a.heartbeat(ctx, in.Ref)()
	st, err := f.l.Follow(ctx, in.From, in.Transitions, in.Notes)
	if err != nil {
		a.dropFollower(key, f) // a store that failed is reopened by the next try
		return nil, fmt.Errorf("temporal: the record of run %s in %s: %w", in.Run, in.Dir, err)
	}
	out := &RecordOutput{}
	for _, id := range in.Owed {
		if ts := st.Tasks[id]; ts != nil && ts.Committed {
			out.Then = append(out.Then, policy.Transition{Kind: policy.TransTaskCommitted, Time: st.Updated, Task: id, Commit: ts.Commit})
		}
	}
	if st.Outcome != "" && !in.Ended {
		out.Then = append(out.Then, policy.Transition{Kind: policy.TransRunFinished, Time: st.Updated, Outcome: st.Outcome, Reason: st.Reason})
	}
	if st.RecordsCommitted && !in.RecordsCommitted {
		out.Then = append(out.Then, policy.Transition{Kind: policy.TransRecordsCommitted, Time: st.Updated})
	}
	if st.Outcome != "" && (st.RecordsCommitted || !st.Commits) {
		a.dropFollower(key, f) // the run's end is on record: release the state's lock
	}
	return out, nil
}

// follower returns the run's follower, opening the tree's state, records
// and experience store as the CLI does the first time.
func (a *Activities) follower(ctx context.Context, key string, in RecordInput) (*follower, error) {
	a.mu.Lock()
	f := a.followers[key]
	a.mu.Unlock()
	if f != nil {
		return f, nil
	}
	c, plan, _, err := a.components(ctx, in.Ref)
	if err != nil {
		return nil, err
	}
	stateDir := filepath.Join(in.Dir, loop.StateDir)
	f = &follower{}
	store, err := loop.OpenDir(stateDir, nil)
	if err != nil {
		return nil, fmt.Errorf("temporal: the state of run %s in %s: %w", in.Run, stateDir, err)
	}
	f.closers = append(f.closers, store)
	if gitx.InRepo(in.Dir) {
		if err := gitx.IgnoreDir(stateDir); err != nil {
			f.close()
			return nil, fmt.Errorf("temporal: %w", err)
		}
	}
	if st, err := store.Load(ctx); err == nil && st.Run != in.Run {
		f.close()
		return nil, nonRetryable(fmt.Errorf("temporal: %s holds run %s, not run %s: one run's record per tree", stateDir, st.Run, in.Run))
	}
	assets, err := asset.OpenFile(asset.StorePath(stateDir), nil)
	if err != nil {
		f.close()
		return nil, fmt.Errorf("temporal: the experience store of %s: %w", stateDir, err)
	}
	f.closers = append(f.closers, assets)
	f.l, err = loop.New(loop.Config{Plan: plan, WorkDir: in.Dir, Executor: c.Executor, Verifier: c.Verifier, Store: store,
		RecordsDir: stateDir, TranscriptDir: filepath.Join(in.Dir, loop.TranscriptsDir), Assets: assets,
		CommitTasks: in.CommitTasks, Branch: in.Branch, Workspace: c.Workspace, Logger: a.Logger})
	if err != nil {
		f.close()
		return nil, nonRetryable(err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if old := a.followers[key]; old != nil {
		f.close()
		return old, nil
	}
	if a.followers == nil {
		a.followers = map[string]*follower{}
	}
	a.followers[key] = f
	return f, nil
}

// dropFollower closes f and forgets it, if it is still the run's.
func (a *Activities) dropFollower(key string, f *follower) {
	a.mu.Lock()
	if a.followers[key] == f {
		delete(a.followers, key)
	}
	a.mu.Unlock()
	if err := f.close(); err != nil {
		a.log().Warn("temporal: close the record of a run", "err", err)
	}
}

func runKey(ref Ref) string { return ref.Run + "\x00" + ref.PlanDigest + "\x00" + ref.Dir }

// prompt is the attempt's prompt made from the run's record in the tree,
// by the loop's own code.
func (a *Activities) prompt(ctx context.Context, in ExecuteInput) (executor.PromptParts, error) {
	f, err := a.follower(ctx, runKey(in.Ref), RecordInput{Ref: in.Ref, CommitTasks: in.CommitTasks, Branch: in.Branch})
	if err != nil {
		return executor.PromptParts{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	parts, err := f.l.Prompt(ctx, policy.Step{Kind: policy.StepAttempt, Phase: in.Phase, Task: in.Task, Attempt: in.Attempt})
	if err != nil {
		return executor.PromptParts{}, nonRetryable(err)
	}
	return parts, nil
}
