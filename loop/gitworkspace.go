package loop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/harnish/harnish/internal/gitx"
)

// GitWorkspace is the [Workspace] and [History] of a git working tree, with
// real git: snapshots are tree objects written from a private index (the
// repository's index, HEAD and refs are untouched), commits use the
// repository's identity or harnish's own. The state directory is left out
// of snapshots' diffs and of task commits. Its zero value is not usable:
// Dir is required.
type GitWorkspace struct {
	// Dir is the working tree's root.
	Dir string

	forks sync.Mutex // git's worktree bookkeeping takes one change at a time
}

// Snapshot writes the tree, untracked files and the state directory
// included (but for TranscriptsDir, harnish's own), as a git tree object
// and returns its hash.
func (g *GitWorkspace) Snapshot(ctx context.Context) (string, error) {
	return gitx.SnapshotExcept(ctx, g.Dir, []string{StateDir}, []string{TranscriptsDir})
}

// Diff returns git diff between two snapshots.
func (g *GitWorkspace) Diff(ctx context.Context, from, to string) (string, error) {
	if from == to {
		return "", nil
	}
	return gitx.Diff(ctx, g.Dir, from, to)
}

// Restore checks snapshot to out over the tree and removes what current
// added; the state directory and ignored files are left alone.
func (g *GitWorkspace) Restore(ctx context.Context, to, current string) error {
	return gitx.Restore(ctx, g.Dir, to, current, StateDir)
}

// Prepare clears git locks a crash left behind (only those no live process
// holds and no git works beside), then switches to the branch: it stays
// when it is checked out, is switched to when the switch carries no changes
// along (else an error naming them), and is made at HEAD when it does not
// exist and req does not say it did.
func (g *GitWorkspace) Prepare(ctx context.Context, req *PrepareRequest) ([]string, error) {
	var notes []string
	removed, err := gitx.ClearStaleLocks(ctx, g.Dir, req.Branch, forkBranches+"*")
	for _, p := range removed {
		notes = append(notes, "removed a git lock a crash left behind: "+p)
	}
	if err != nil || req.Branch == "" {
		return notes, err
	}
	cur, err := gitx.CurrentBranch(ctx, g.Dir)
	if err != nil || cur == req.Branch {
		return notes, err
	}
	exists, err := gitx.BranchExists(ctx, g.Dir, req.Branch)
	switch {
	case err != nil:
		return notes, err
	case !exists && req.Existed:
		return notes, fmt.Errorf("branch %s, which the run committed on, is gone; restore it to go on", req.Branch)
	case !exists:
		return notes, gitx.Branch(ctx, g.Dir, req.Branch)
	}
	from := cmp.Or(cur, "a detached HEAD")
	if err := gitx.Switch(ctx, g.Dir, req.Branch, StateDir); err != nil {
		return notes, fmt.Errorf("%s is checked out, not the run's branch %s: %w", from, req.Branch, err)
	}
	return append(notes, fmt.Sprintf("switched back to the run's branch %s from %s", req.Branch, from)), nil
}

// Commit finds the commit (with req.Find) or makes it. A commit git refuses
// for a lock a crash left behind is made again once the lock is cleared; a
// git of the crashed process may take a moment to die, so it waits a little.
func (g *GitWorkspace) Commit(ctx context.Context, req *CommitRequest) (string, error) {
	if len(req.Find) > 0 {
		if hash, err := gitx.FindCommit(ctx, g.Dir, req.Find...); err != nil || hash != "" {
			return hash, err
		}
	}
	commit := func() (string, error) {
		if req.Paths != nil {
			return gitx.CommitPaths(ctx, g.Dir, req.Message, req.Paths...)
		}
		return gitx.CommitAll(ctx, g.Dir, req.Message, StateDir)
	}
	hash, err := commit()
	for wait := 50 * time.Millisecond; errors.Is(err, gitx.ErrLocked) && wait < 2*time.Second; wait *= 2 {
		removed, cerr := gitx.ClearStaleLocks(ctx, g.Dir)
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

// Fork makes (or finds) the git worktree named name, on branch
// harnish/fork/NAME, beside the repository's own data (in its common git
// directory, under harnish-forks), so that it is no part of the tree's
// snapshots and survives a crash of the host.
func (g *GitWorkspace) Fork(ctx context.Context, name string) (*Fork, error) {
	if !validForkName(name) {
		return nil, fmt.Errorf("loop: fork name %q: want letters, digits, '.', '_' and '-'", name)
	}
	forks, err := g.forksDir(ctx)
	if err != nil {
		return nil, err
	}
	f := &Fork{Name: name, Dir: filepath.Join(forks, name), Branch: forkBranches + name}
	g.forks.Lock()
	defer g.forks.Unlock()
	if err := gitx.Worktree(ctx, g.Dir, f.Dir, f.Branch, "HEAD"); err != nil {
		return nil, err
	}
	f.Workspace = &GitWorkspace{Dir: f.Dir}
	return f, nil
}

// Update commits the fork's change on its branch and merges the tree's
// current commit into it.
func (g *GitWorkspace) Update(ctx context.Context, f *Fork) (bool, error) {
	if _, err := gitx.CommitAll(ctx, f.Dir, "harnish: the task's change so far", StateDir); err != nil {
		return false, err
	}
	head, err := gitx.Head(ctx, g.Dir)
	if err != nil {
		return false, err
	}
	changed, err := gitx.MergeInto(ctx, f.Dir, head)
	if ce, ok := errors.AsType[*gitx.ConflictError](err); ok {
		return changed, &ConflictError{Paths: ce.Paths}
	}
	return changed, err
}

// Integrate commits the fork's change on its branch, then squashes the
// branch onto the tree's: merged in git's object store first, so a conflict
// touches nothing.
func (g *GitWorkspace) Integrate(ctx context.Context, f *Fork, req *CommitRequest) (string, error) {
	if len(req.Find) > 0 {
		if c, err := gitx.FindCommit(ctx, g.Dir, req.Find...); err != nil || c != "" {
			return c, err
		}
	}
	if _, err := gitx.CommitAll(ctx, f.Dir, req.Message, StateDir); err != nil {
		return "", err
	}
	c, err := gitx.SquashOnto(ctx, g.Dir, f.Branch, req.Message)
	if ce, ok := errors.AsType[*gitx.ConflictError](err); ok {
		return "", &ConflictError{Paths: ce.Paths}
	}
	return c, err
}

// Discard removes the fork's worktree and branch.
func (g *GitWorkspace) Discard(ctx context.Context, f *Fork) error {
	g.forks.Lock()
	defer g.forks.Unlock()
	return gitx.RemoveWorktree(ctx, g.Dir, f.Dir, f.Branch)
}

// Forks lists the forks that exist, made by Fork and not yet discarded: a
// failed task's, kept for a person, or one a crash left.
func (g *GitWorkspace) Forks(ctx context.Context) ([]*Fork, error) {
	forks, err := g.forksDir(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(forks)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var out []*Fork
	for _, e := range entries {
		if e.IsDir() && validForkName(e.Name()) {
			dir := filepath.Join(forks, e.Name())
			out = append(out, &Fork{Name: e.Name(), Dir: dir, Branch: forkBranches + e.Name(), Workspace: &GitWorkspace{Dir: dir}})
		}
	}
	return out, nil
}

// forksDir is where the forks live: in the repository's common git
// directory, outside the tree's snapshots.
func (g *GitWorkspace) forksDir(ctx context.Context) (string, error) {
	common, err := gitx.CommonDir(ctx, g.Dir)
	return filepath.Join(common, "harnish-forks"), err
}

// forkBranches is the prefix of the forks' branches.
const forkBranches = "harnish/fork/"

func validForkName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
