package gitx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Worktree returns the linked worktree at dir on branch, made from base (a
// commit-ish of the repository at repo) when it does not exist. It is
// idempotent: a worktree a crash left behind half made is made again, and
// one that is whole is returned as it is, on its own branch. Calls for one
// repository must not overlap: git worktree prune, which clearing a half
// made one may need, would take another's half made one for dead.
func Worktree(ctx context.Context, repo, dir, branch, base string) error {
	if whole(ctx, dir, branch) {
		return nil
	}
	// Half made, or not at all: clear what a crash left (the tree, and git's
	// record of it, which may be marked locked or be half written), then
	// make it.
	if err := forget(ctx, repo, dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("gitx: worktree %s: %w", dir, err)
	}
	_, err := output(ctx, repo, nil, "worktree", "add", "-q", "-B", branch, dir, base)
	return err
}

// forget removes the worktree at dir and git's record of it, whatever state
// a crash left them in.
func forget(ctx context.Context, repo, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("gitx: worktree %s: %w", dir, err)
	}
	common, err := CommonDir(ctx, repo)
	if err != nil {
		return err
	}
	admins, _ := filepath.Glob(filepath.Join(common, "worktrees", "*"))
	for _, admin := range admins {
		gd, err := os.ReadFile(filepath.Join(admin, "gitdir"))
		_, lerr := os.Lstat(filepath.Join(admin, "locked"))
		_, cerr := os.Lstat(filepath.Join(admin, "commondir"))
		// Ours by where it points or by name (when a git that died left its
		// gitdir unwritten); or any a git adding it died on (still locked,
		// never finished), which breaks every other worktree command.
		ours := err == nil && filepath.Dir(strings.TrimSpace(string(gd))) == filepath.Clean(dir) || filepath.Base(admin) == filepath.Base(dir)
		if ours || (lerr == nil && cerr != nil) {
			if err := os.RemoveAll(admin); err != nil {
				return fmt.Errorf("gitx: worktree %s: %w", dir, err)
			}
		}
	}
	_, err = output(ctx, repo, nil, "worktree", "prune")
	return err
}

// whole reports whether dir is a finished linked worktree on branch: git
// made it to the end (its "locked" mark of a worktree in the making is
// gone) and it is on its branch.
func whole(ctx context.Context, dir, branch string) bool {
	out, err := output(ctx, dir, nil, "rev-parse", "--show-toplevel", "--absolute-git-dir")
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !sameDir(lines[0], dir) {
		return false
	}
	if _, err := os.Lstat(filepath.Join(lines[1], "locked")); err == nil {
		return false
	}
	cur, err := CurrentBranch(ctx, dir)
	return err == nil && cur == branch
}

// RemoveWorktree removes the linked worktree at dir and its branch; one
// already gone is no error.
func RemoveWorktree(ctx context.Context, repo, dir, branch string) error {
	if _, err := output(ctx, repo, nil, "worktree", "remove", "--force", dir); err != nil {
		if rerr := os.RemoveAll(dir); rerr != nil {
			return err
		}
		if _, err := output(ctx, repo, nil, "worktree", "prune"); err != nil {
			return err
		}
	}
	if ok, err := BranchExists(ctx, repo, branch); err != nil || !ok {
		return err
	}
	_, err := output(ctx, repo, nil, "branch", "-q", "-D", branch)
	return err
}

// ConflictError is a change that does not merge with what the branch gained
// since it forked: Paths are the files both changed.
type ConflictError struct {
	Paths []string
}

func (e *ConflictError) Error() string {
	return "gitx: the change conflicts with the branch in " + strings.Join(e.Paths, ", ")
}

// SquashOnto merges the branch from onto the branch checked out at dir as one
// commit with message, and moves the checked-out branch and its working tree
// to it. The merge is made in git's object store first (git merge-tree), so a
// conflict leaves the tree as it was: it is a *ConflictError naming the
// paths. It returns the new commit, or "" when from adds nothing.
func SquashOnto(ctx context.Context, dir, from, message string) (string, error) {
	out, err := output(ctx, dir, nil, "merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", from)
	if err != nil {
		// Exit 1 is a merge with conflicts: the tree, then the paths.
		if lines := strings.Split(strings.TrimRight(out, "\n"), "\n"); exitCode(err) == 1 && len(lines) > 1 {
			return "", &ConflictError{Paths: lines[1:]}
		}
		return "", err
	}
	tree := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	headTree, err := output(ctx, dir, nil, "rev-parse", "HEAD^{tree}")
	if err != nil {
		return "", err
	}
	if tree == strings.TrimSpace(headTree) {
		return "", nil
	}
	c, err := commitTree(ctx, dir, tree, message)
	if err != nil {
		return "", err
	}
	if _, err := output(ctx, dir, nil, "merge", "-q", "--ff-only", c); err != nil {
		// A merge a crash cut off may have written files of the change
		// into the working tree without moving HEAD: they are in the way
		// now. Take back what holds exactly the change's content, then
		// try once more; anything else in the way is not ours to touch.
		if n, cerr := clearMergeRemnants(ctx, dir, c); cerr != nil || n == 0 {
			return "", err
		}
		if _, err := output(ctx, dir, nil, "merge", "-q", "--ff-only", c); err != nil {
			return "", err
		}
	}
	return c, nil
}

// clearMergeRemnants takes back to HEAD's state every path that commit c
// changes against HEAD and that the working tree already holds as c has it
// (a file c adds or changes, with c's content; a file c deletes, missing),
// which is what a fast-forward to c cut off by a crash leaves. It returns
// how many paths it took back.
func clearMergeRemnants(ctx context.Context, dir, c string) (int, error) {
	out, err := output(ctx, dir, nil, "diff", "--no-renames", "--name-status", "-z", "HEAD", c)
	if err != nil {
		return 0, err
	}
	var restore, present []string
	added := map[string]bool{}
	removed := 0
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		status, p := fields[i], fields[i+1]
		fi, statErr := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
		switch {
		case status == "D" && errors.Is(statErr, fs.ErrNotExist):
			restore = append(restore, p)
		case (status == "A" || status == "M") && statErr == nil && fi.Mode().IsRegular():
			present = append(present, p)
			added[p] = status == "A"
		}
	}
	if len(present) > 0 {
		// c's blobs and the files' hashes, one git process each.
		tree, err := output(ctx, dir, nil, append([]string{"ls-tree", "-z", "--full-tree", c, "--"}, present...)...)
		if err != nil {
			return 0, err
		}
		want := map[string]string{}
		for _, entry := range strings.Split(strings.TrimSuffix(tree, "\x00"), "\x00") {
			meta, p, ok := strings.Cut(entry, "\t")
			if f := strings.Fields(meta); ok && len(f) == 3 {
				want[p] = f[2]
			}
		}
		got, err := run(ctx, dir, nil, strings.NewReader(strings.Join(present, "\n")+"\n"), "hash-object", "--stdin-paths")
		if err != nil {
			return 0, err
		}
		for i, h := range strings.Fields(got) {
			if i >= len(present) || want[present[i]] != h {
				continue
			}
			if p := present[i]; !added[p] {
				restore = append(restore, p)
			} else if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
				return removed, err
			} else {
				removed++
			}
		}
	}
	if len(restore) > 0 {
		if _, err := output(ctx, dir, nil, append([]string{"checkout", "HEAD", "--"}, restore...)...); err != nil {
			return removed, err
		}
	}
	return removed + len(restore), nil
}

// commitTree makes a commit of tree on HEAD with message, as the
// repository's identity or, when it has none, [Identity].
func commitTree(ctx context.Context, dir, tree, message string) (string, error) {
	out, err := asSomeone(ctx, dir, strings.NewReader(message), "commit-tree", tree, "-p", "HEAD", "-F", "-")
	return strings.TrimSpace(out), err
}

// asSomeone runs a git command that makes commits as the repository's
// identity or, when it has none configured, as [Identity]; whether it has
// one is asked only when the command fails. stdin, when not nil, is read
// once: a retry needs a message given another way.
func asSomeone(ctx context.Context, dir string, stdin *strings.Reader, args ...string) (string, error) {
	var in io.Reader // a nil *strings.Reader is not a nil io.Reader
	if stdin != nil {
		in = stdin
	}
	out, err := run(ctx, dir, nil, in, append([]string{"-c", "user.useConfigOnly=true"}, args...)...)
	if err == nil {
		return out, nil
	}
	if email, _ := output(ctx, dir, nil, "config", "user.email"); strings.TrimSpace(email) != "" {
		return out, err // not for want of an identity
	}
	if stdin != nil {
		stdin.Seek(0, io.SeekStart)
	}
	return run(ctx, dir, nil, in, append([]string{"-c", "user.name=" + Identity[0], "-c", "user.email=" + Identity[1]}, args...)...)
}

func sameDir(a, b string) bool {
	ai, aerr := os.Stat(a)
	bi, berr := os.Stat(b)
	return aerr == nil && berr == nil && os.SameFile(ai, bi)
}

// CommonDir returns the absolute path of the repository's common git
// directory at dir (the main .git, also from a linked worktree).
func CommonDir(ctx context.Context, dir string) (string, error) {
	out, err := output(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	return strings.TrimSpace(out), err
}

// MergeInto merges commit into the branch checked out at dir (a merge
// commit when both moved); the tree must hold no uncommitted change. It
// reports whether the branch moved. A merge with conflicts is a
// *ConflictError and is left in the tree, markers and all, for someone to
// resolve: committing the tree (CommitAll) concludes it.
func MergeInto(ctx context.Context, dir, commit string) (bool, error) {
	before, err := head(ctx, dir)
	if err != nil {
		return false, err
	}
	if _, err := asSomeone(ctx, dir, nil, "merge", "--no-edit", "-q", commit); err != nil {
		if paths, _ := output(ctx, dir, nil, "diff", "--name-only", "--diff-filter=U"); strings.TrimSpace(paths) != "" {
			return true, &ConflictError{Paths: strings.Split(strings.TrimSpace(paths), "\n")}
		}
		return false, err
	}
	after, err := head(ctx, dir)
	return after != before, err
}

// Head returns the commit HEAD names at dir.
func Head(ctx context.Context, dir string) (string, error) { return head(ctx, dir) }
