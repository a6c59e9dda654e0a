package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/proc"
)

// MaxDiff bounds the diff Diff returns; a larger one is an error, since a
// change that large is not one to judge line by line.
const MaxDiff = 64 << 20

// InRepo reports whether dir is in a git working tree: it or a directory
// above it holds .git, a directory that looks like a repository (it has a
// HEAD) or a file that points at one ("gitdir: ", as in a linked
// worktree). An empty .git, as sandboxes leave as mount targets, is none.
func InRepo(dir string) bool {
	for {
		dotGit := filepath.Join(dir, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			if fi.IsDir() {
				if _, err := os.Stat(filepath.Join(dotGit, "HEAD")); err == nil {
					return true
				}
			} else if b, err := readPrefix(dotGit, len("gitdir: ")); err == nil && string(b) == "gitdir: " {
				return true
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}

// readPrefix reads at most n bytes from the start of the file at path.
func readPrefix(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF {
		err = nil
	}
	return b[:k], err
}

// Snapshot returns the hash of a git tree holding the working tree at dir as
// it is now: tracked and untracked files, minus ignored ones, plus the force
// paths (e.g. the state directory) even when ignored.
func Snapshot(ctx context.Context, dir string, force ...string) (string, error) {
	return SnapshotExcept(ctx, dir, force, nil)
}

// SnapshotExcept is [Snapshot] with the except paths (directories or files,
// relative to dir) left out, forced or not.
func SnapshotExcept(ctx context.Context, dir string, force, except []string) (string, error) {
	gitDir, err := output(ctx, dir, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", err
	}
	tmp, err := fsx.CreateTempOwned("", "harnish-index-")
	if err != nil {
		return "", err
	}
	index := tmp.Name()
	defer os.Remove(index)
	// Start from the real index, so unchanged files are not hashed again. A
	// repository without one (no commit yet) starts from none: git reads an
	// empty file as a broken index.
	src, err := os.Open(filepath.Join(strings.TrimSpace(gitDir), "index"))
	if err == nil {
		st, serr := src.Stat()
		_, err = io.Copy(tmp, src)
		src.Close()
		if err == nil {
			err = serr
		}
		tmp.Close()
		if err == nil {
			// The copy keeps the index's time: git trusts an entry's stat
			// data only when the file is older than the index was written
			// (its racy-git rule), and a copy dated now would make a file
			// changed in the index's last second, at the same size, look
			// unchanged.
			err = os.Chtimes(index, st.ModTime(), st.ModTime())
		}
		if err != nil {
			return "", err
		}
	} else {
		tmp.Close()
		os.Remove(index)
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := output(ctx, dir, env, "add", "-A"); err != nil {
		return "", err
	}
	for _, p := range force {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			if _, err := output(ctx, dir, env, "add", "-A", "-f", "--", p); err != nil {
				return "", err
			}
		}
	}
	// Taken out of the index after adding, not left out of the adds: a
	// pathspec that names an ignored path makes git add fail.
	if len(except) > 0 {
		args := []string{"rm", "-r", "-q", "--cached", "--ignore-unmatch", "--"}
		for _, p := range except {
			args = append(args, ":(literal)"+filepath.ToSlash(p))
		}
		if _, err := output(ctx, dir, env, args...); err != nil {
			return "", err
		}
	}
	tree, err := output(ctx, dir, env, "write-tree")
	return strings.TrimSpace(tree), err
}

// Diff returns the unified diff from one snapshot to another, as git diff
// prints it.
func Diff(ctx context.Context, dir, from, to string) (string, error) {
	return output(ctx, dir, nil, "diff", "--no-color", "--no-ext-diff", from, to)
}

func output(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	return run(ctx, dir, env, nil, args...)
}

// run runs git with args in dir, stdin as its input, and returns its stdout
// (also with a failure, which is an [*Error]: merge-tree, say, tells of
// conflicts on stdout as it exits 1).
func run(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) (string, error) {
	i := 0
	for i+2 < len(args) && args[i] == "-c" {
		i += 2
	}
	op := args[i]
	out := &limited{max: MaxDiff}
	argv := append([]string{"git", "-c", "core.quotepath=off"}, args...)
	_, err := proc.Run(ctx, proc.Spec{Stage: "git " + op, Argv: argv, Root: dir, Env: env, Stdin: stdin, Stdout: out})
	if err != nil {
		return out.buf.String(), newError(op, err)
	}
	if out.over {
		return "", errors.New("gitx: git " + op + ": output larger than the limit")
	}
	return out.buf.String(), nil
}

type limited struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if l.buf.Len()+len(p) > l.max {
		l.over = true
		return len(p), nil
	}
	return l.buf.Write(p)
}

// Identity is the author harnish commits as when the repository has no
// identity of its own configured, so a fresh machine works.
var Identity = [2]string{"harnish", "harnish@localhost"}

// Changes lists the paths git status reports as changed or untracked, minus
// those under the skip prefixes (e.g. the state directory).
func Changes(ctx context.Context, dir string, skip ...string) ([]string, error) {
	out, err := output(ctx, dir, nil, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if len(line) < 4 {
			continue
		}
		p := line[3:]
		if i := strings.Index(p, " -> "); i >= 0 {
			p = p[i+4:]
		}
		if !under(p, skip) {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// CommitAll commits every change of the working tree but the skip paths,
// with the repository's identity or, when it has none, [Identity]. It
// returns the new commit's hash, or "" when there was nothing to commit.
//
// It skips git's automatic maintenance: after every commit git starts
// another git process only to decide whether the repository needs
// housekeeping, which would cost each task as much as its commit. A run's
// last commit, of its records ([CommitPaths]), keeps it.
func CommitAll(ctx context.Context, dir, message string, skip ...string) (string, error) {
	add := func(skip []string) error {
		args := []string{"add", "-A", "--", "."}
		for _, s := range skip {
			args = append(args, ":(exclude)"+s)
		}
		_, err := output(ctx, dir, nil, args...)
		return err
	}
	if err := add(skip); err != nil {
		if errors.Is(err, ErrLocked) {
			return "", err
		}
		// git refuses to be told to leave out a path its ignore rules
		// match, even one that holds tracked files (a run's committed
		// records); only then is it worth asking which skip paths those
		// are. They are left out of the pathspec, and what the add staged
		// under them is unstaged again.
		var keep, ignored []string
		for _, s := range skip {
			if _, ierr := output(ctx, dir, nil, "check-ignore", "-q", "--no-index", s); ierr == nil {
				ignored = append(ignored, s)
			} else {
				keep = append(keep, s)
			}
		}
		if len(ignored) == 0 {
			return "", err
		}
		if err := add(keep); err != nil {
			return "", err
		}
		if err := unstage(ctx, dir, ignored); err != nil {
			return "", err
		}
	}
	return commit(ctx, dir, message, nil, false)
}

// unstage gives the index entries under paths back their HEAD's content
// (none, on a branch with no commit yet).
func unstage(ctx context.Context, dir string, paths []string) error {
	_, err := output(ctx, dir, nil, append([]string{"reset", "-q", "--"}, paths...)...)
	if err != nil {
		if _, herr := output(ctx, dir, nil, "rev-parse", "-q", "--verify", "HEAD"); herr != nil {
			_, err = output(ctx, dir, nil, append([]string{"rm", "-r", "-q", "--cached", "--ignore-unmatch", "--"}, paths...)...)
		}
	}
	return err
}

// CommitPaths commits the given paths only (files or directories, relative
// to dir; ignored ones too, and missing ones are skipped), leaving every
// other change of the working tree and index alone. It returns the new
// commit's hash, or "" when the paths hold no change. git's automatic
// maintenance runs after it, as after any commit of a person's.
func CommitPaths(ctx context.Context, dir, message string, paths ...string) (string, error) {
	var present []string
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			present = append(present, p)
		}
	}
	if len(present) == 0 {
		return "", nil
	}
	if _, err := output(ctx, dir, nil, append([]string{"add", "-f", "-A", "--"}, present...)...); err != nil {
		return "", err
	}
	return commit(ctx, dir, message, present, true)
}

// commit commits what is staged (of paths, when given) as the repository's
// identity or, when it has none, [Identity], and returns the new commit's
// hash, or "" when nothing was staged. Both of those are rare, so they are
// looked into only when the commit fails; a lock is never taken for either.
// Without housekeeping, git's automatic maintenance is off for it.
func commit(ctx context.Context, dir, message string, paths []string, housekeeping bool) (string, error) {
	// The message goes on stdin, so a failure's argv stays short.
	args := []string{"commit", "-q", "-F", "-"}
	if paths != nil {
		args = append(append(args, "--"), paths...)
	}
	// useConfigOnly: no identity guessed from the host name; ours instead.
	var quiet []string
	if !housekeeping {
		quiet = []string{"-c", "maintenance.auto=false", "-c", "gc.auto=0"}
	}
	if _, err := run(ctx, dir, nil, strings.NewReader(message), slices.Concat(quiet, []string{"-c", "user.useConfigOnly=true"}, args)...); err != nil {
		if errors.Is(err, ErrLocked) {
			return "", err
		}
		if _, derr := output(ctx, dir, nil, append([]string{"diff", "--cached", "--quiet", "--"}, paths...)...); derr == nil {
			return "", nil // nothing staged
		}
		if email, _ := output(ctx, dir, nil, "config", "user.email"); strings.TrimSpace(email) != "" {
			return "", err // not for want of an identity: a hook refused, say
		}
		anon := slices.Concat(quiet, []string{"-c", "user.name=" + Identity[0], "-c", "user.email=" + Identity[1]}, args)
		if _, err := run(ctx, dir, nil, strings.NewReader(message), anon...); err != nil {
			return "", err
		}
	}
	return head(ctx, dir)
}

// head returns the commit HEAD names at dir.
func head(ctx context.Context, dir string) (string, error) {
	out, err := output(ctx, dir, nil, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// Restore puts the working tree back as the snapshot tree had it, except
// under the keep paths (e.g. the state directory): files the tree holds are
// written back, and files added since the snapshot current (a later
// snapshot of the tree as it is now) are removed. Ignored files are left
// alone, as snapshots do not hold them.
func Restore(ctx context.Context, dir, tree, current string, keep ...string) error {
	added, err := output(ctx, dir, nil, "diff", "--no-renames", "--name-only", "-z", "--diff-filter=A", tree, current)
	if err != nil {
		return err
	}
	tmp, err := fsx.CreateTempOwned("", "harnish-index-")
	if err != nil {
		return err
	}
	index := tmp.Name()
	tmp.Close()
	os.Remove(index) // git makes it; an empty file would read as a broken index
	defer os.Remove(index)
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := output(ctx, dir, env, "read-tree", tree); err != nil {
		return err
	}
	names, err := output(ctx, dir, nil, "ls-tree", "-r", "-z", "--name-only", tree)
	if err != nil {
		return err
	}
	var paths strings.Builder
	for _, p := range strings.Split(strings.TrimRight(names, "\x00"), "\x00") {
		if p != "" && !under(p, keep) {
			paths.WriteString(p + "\x00")
		}
	}
	if _, err := run(ctx, dir, env, strings.NewReader(paths.String()), "checkout-index", "-f", "-z", "--stdin"); err != nil {
		return err
	}
	for _, p := range strings.Split(strings.TrimRight(added, "\x00"), "\x00") {
		if p == "" || under(p, keep) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("gitx: restore: %w", err)
		}
	}
	return nil
}

func under(p string, prefixes []string) bool {
	for _, k := range prefixes {
		k = strings.TrimSuffix(k, "/")
		if p == k || strings.HasPrefix(p, k+"/") {
			return true
		}
	}
	return false
}
