package loop

import (
	"context"
	"strings"
)

// Workspace is what the loop does to the working tree: read it as
// snapshots, and diff and restore them. The audit of each attempt's change,
// the reviewer's and debugger's diffs and the rollback of a failed attempt
// go through it. [GitWorkspace] is the implementation for a git working
// tree.
//
// A Workspace is used by one loop at a time. Snapshots leave out the state
// directory's own files as the loop's writes; they are not the agent's.
type Workspace interface {
	// Snapshot records the tree as it is now and returns its ID.
	Snapshot(ctx context.Context) (string, error)
	// Diff returns the change from snapshot from to snapshot to as a
	// unified diff, as git diff prints it; "" when they are the same.
	Diff(ctx context.Context, from, to string) (string, error)
	// Restore puts the tree back as snapshot to had it; current is a
	// snapshot of the tree as it is now, so files added since are removed.
	Restore(ctx context.Context, to, current string) error
}

// History keeps a run's record in version control: the run's branch, one
// commit per task done and one of the records when the run ends. Every
// method is idempotent under replay: a resume after any crash calls them
// again and they do exactly what is missing. [GitWorkspace] implements it.
type History interface {
	// Prepare readies the tree for the run's next step: what a crash left
	// behind (a stale lock) is cleared, and the tree is put on branch (made
	// at HEAD when it does not exist yet, unless it must have existed; see
	// PrepareRequest). It returns what it did that a person should hear of.
	Prepare(ctx context.Context, req *PrepareRequest) (notes []string, err error)
	// Commit commits a change and returns its ID, or "" when there was
	// nothing to commit. With Find set, it first looks for a commit whose
	// message holds every Find line (one a crash cut off before it was
	// recorded) and returns that instead.
	Commit(ctx context.Context, req *CommitRequest) (string, error)
}

// PrepareRequest says what [History.Prepare] readies the tree for.
type PrepareRequest struct {
	// Branch is the branch the run works on; empty leaves the tree where it is.
	Branch string
	// Existed says that the branch must exist already (the run has
	// committed on it): its absence is an error, not a branch to make.
	Existed bool
}

// CommitRequest is one commit of [History.Commit].
type CommitRequest struct {
	Message string
	// Paths are the paths to commit, relative to the tree's root (records);
	// nil commits every change of the tree but the state directory.
	Paths []string
	// Find lists message lines (trailers) that name this commit, to find it
	// when a crash came between making and recording it.
	Find []string
}

// Forker is a [Workspace] that gives a task a working copy of its own and
// brings the copy's change back: what tasks side by side need, so that no
// task sees another's change half made. [GitWorkspace] implements it with
// git worktrees. Every method is idempotent under replay, as History's.
type Forker interface {
	// Fork returns the working copy named name: made from the tree's
	// current commit the first time, and the copy as it stands (a crash
	// left it) every time after, until Discard.
	Fork(ctx context.Context, name string) (*Fork, error)
	// Update brings what the tree's branch gained since the fork into the
	// copy, after committing the copy's change on its branch, and reports
	// whether the copy changed. A conflict is a [*ConflictError] and is left
	// in the copy, with its markers, for the task's next attempt to resolve.
	Update(ctx context.Context, f *Fork) (bool, error)
	// Integrate commits what the copy changed and brings it onto the tree's
	// branch as one commit with req's message, and returns it ("" when the
	// copy changed nothing). With req.Find set, a commit a crash cut off
	// from being recorded is found and returned instead of made again. A
	// change that conflicts with what the branch gained since the fork is a
	// [*ConflictError], and leaves the tree as it was.
	Integrate(ctx context.Context, f *Fork, req *CommitRequest) (string, error)
	// Discard removes the copy; one already gone is no error.
	Discard(ctx context.Context, f *Fork) error
}

// Fork is a task's working copy, made by a [Forker].
type Fork struct {
	Name string
	// Dir is the copy's working tree, where the task's executor, checks and
	// reviewer work.
	Dir string
	// Workspace reads the copy's tree for the audit, the diffs and the
	// rollback, as the tree's own Workspace does.
	Workspace Workspace
	// Branch is the copy's git branch.
	Branch string
}

// ConflictError is a forked change that does not merge with what the
// branch gained since the fork: Paths are the files both changed.
type ConflictError struct {
	Paths []string
}

func (e *ConflictError) Error() string {
	return "loop: the change conflicts with the branch in " + strings.Join(e.Paths, ", ")
}
