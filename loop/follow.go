package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop/policy"
)

// TaskNotes is what the driver of a run held elsewhere knows of a task's
// last attempt beyond the run state, for the task's handoff, audit log and
// experience: what the executor claimed and the checks passed.
type TaskNotes struct {
	Summary       string   `json:"summary,omitempty"`
	Decisions     []string `json:"decisions,omitempty"`
	OpenQuestions []string `json:"open_questions,omitempty"`
	Blocker       string   `json:"blocker,omitempty"`
	Generalizable bool     `json:"generalizable,omitempty"`
	Transcript    string   `json:"transcript,omitempty"`
	// Passed names the checks that passed; Files are the files the task's
	// change touches, as FilesFrom says ("diff" or "executor"); Minor are
	// the review's findings below critical.
	Passed    []string `json:"passed,omitempty"`
	Files     []string `json:"files,omitempty"`
	FilesFrom string   `json:"files_from,omitempty"`
	Minor     []string `json:"minor,omitempty"`
}

// Follow keeps the working tree's record of a run whose steps are decided
// and taken elsewhere (a workflow engine holds its state), exactly as Run
// keeps its own: ts are the driver's transitions after its first from,
// which Follow commits to the Store, reports to the Observer, writes to
// the records (audit logs, handoffs, reports, the completion summary) and
// learns from (Assets), before it makes the commits the state then owes
// (CommitTasks: each task done, the records at the end) and records them.
// notes, by task, are what the driver knows of a task's last attempt; a
// handoff is made from them.
//
// It returns the state the Store holds after: the commits Follow made are
// in it (task.committed, records.committed), and, when a commit failed,
// the run's end with outcome error, which the driver applies in turn.
//
// Follow is idempotent under replay: called again with the same
// transitions after a crash at any point, it commits only what the Store
// lacks (by its Seq), and finds a commit the crash cut off from being
// recorded by its trailers instead of making it twice, as a resume does.
func (l *Loop) Follow(ctx context.Context, from uint64, ts []policy.Transition, notes map[string]*TaskNotes) (*policy.RunState, error) {
	if err := l.follow(ctx, from, ts, notes); err != nil {
		return nil, err
	}
	if err := (*host)(l).commitLocked(ctx, nil); err != nil { // the commits owed, as Run makes them
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st.Clone(), nil
}

func (l *Loop) follow(ctx context.Context, from uint64, ts []policy.Transition, notes map[string]*TaskNotes) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.load(ctx); err != nil {
		return err
	}
	if l.st.Seq < from {
		return fmt.Errorf("loop: the store holds %d transitions of run %s, and the driver's go on from %d", l.st.Seq, l.st.Run, from)
	}
	if from == 0 && len(ts) > 0 && l.st.Run != "" && ts[0].Run != l.st.Run {
		return fmt.Errorf("loop: the store holds run %s, not run %s", l.st.Run, ts[0].Run)
	}
	ts = ts[min(uint64(len(ts)), l.st.Seq-from):]
	if l.st.Run == "" && len(ts) > 0 {
		if err := l.commit(ctx, ts[:1]); err != nil { // run.started: what prepare reads
			return err
		}
		ts = ts[1:]
	}
	if !l.followed && l.st.Run != "" {
		// This process's first look at the run: what a crash left behind
		// is repaired, and commits it may have cut off are owed.
		l.repairRecords(ctx)
		if err := l.prepare(ctx); err != nil {
			return err
		}
		l.followed = true
	}
	if fk, ok := l.ws.(Forker); ok && l.commits() {
		// The driver may integrate a forked task's change itself (see
		// IntegrateFork): its commit is looked for before one is made.
		l.forker = fk
	}
	for id, n := range notes {
		l.runs[id] = &taskRun{trees: map[int]string{}, passed: n.Passed, files: n.Files, filesFrom: n.FilesFrom, minor: n.Minor,
			last: &executor.Result{Summary: n.Summary, Decisions: n.Decisions, OpenQuestions: n.OpenQuestions, Blocker: n.Blocker,
				Generalizable: n.Generalizable, Transcript: n.Transcript}}
	}
	return l.commit(ctx, ts)
}

// load reads the store's state the first time a host that follows asks;
// l.mu must be held.
func (l *Loop) load(ctx context.Context) error {
	if l.st != nil {
		return nil
	}
	st, err := l.cfg.Store.Load(ctx)
	switch {
	case errors.Is(err, ErrNoState):
		st = &policy.RunState{}
	case err != nil:
		return err
	}
	l.st, l.followed = st, false
	return nil
}

// Prompt returns what the loop tells the executor at an attempt step of
// the run it follows, as Run's own attempt does: the task's spec and the
// plan's prohibitions, the handoffs, where the task stands and what was
// done before it, its failures, findings and warnings, the diagnosis and
// advice it was given, and the experience store's assets (asking marks
// them accessed: call it before the tree's snapshot). The plan's context
// files, read from the attempt's own tree, are the caller's to add.
func (l *Loop) Prompt(ctx context.Context, step policy.Step) (executor.PromptParts, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tasks[step.Task]
	if t == nil {
		return executor.PromptParts{}, fmt.Errorf("loop: plan %s has no task %q", l.cfg.Plan.Name, step.Task)
	}
	if err := l.load(ctx); err != nil {
		return executor.PromptParts{}, err
	}
	return l.promptParts(ctx, t, step), nil
}
