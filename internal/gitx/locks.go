package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ClearStaleLocks removes the lock files a git killed mid-commit left in the
// repository at dir, which make every later commit fail ([ErrLocked]), and
// returns the paths it removed, so the caller can say so. It looks at every
// lock file (NAME.lock) in dir's git directory, the common directory and
// every linked worktree's, at the current branch's ref lock, and at those of
// the branches named (one a crash cut off while git made it, say; a name may
// be a glob, as harnish/fork/*).
//
// A lock is removed only when it is stale: on Linux, when no live
// process has it open, and no live git process works inside the work tree
// or the git directories (git closes a ref's lock before renaming it, and
// holds the index lock while a hook runs). Where that cannot be told (another
// OS, no /proc, another user's git) it must be older than ten minutes.
func ClearStaleLocks(ctx context.Context, dir string, branches ...string) ([]string, error) {
	out, err := output(ctx, dir, nil, "rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	dirs := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(dirs) != 3 {
		return nil, fmt.Errorf("gitx: git rev-parse: unexpected output %q", out)
	}
	if !filepath.IsAbs(dirs[1]) {
		dirs[1] = filepath.Join(dir, dirs[1])
	}
	for i, d := range dirs {
		// /proc names files by their real paths.
		if dirs[i], err = filepath.EvalSymlinks(d); err != nil {
			return nil, fmt.Errorf("gitx: clear stale locks: %w", err)
		}
	}
	gitDir, common, top := dirs[0], dirs[1], dirs[2]
	// Every lock git takes in a git directory is NAME.lock beside NAME (the
	// index, HEAD, ORIG_HEAD, next-index-<pid>...): all of the worktree's
	// and every linked worktree's are looked at, the common directory's
	// shared ones, and the refs' of the branches named.
	locks := []string{filepath.Join(common, "packed-refs.lock"), filepath.Join(common, "config.lock")}
	for _, pattern := range []string{filepath.Join(gitDir, "*.lock"), filepath.Join(common, "worktrees", "*", "*.lock")} {
		m, _ := filepath.Glob(pattern)
		locks = append(locks, m...)
	}
	for _, b := range branches {
		if b == "" || strings.Contains(b, "..") {
			continue
		}
		m, _ := filepath.Glob(filepath.Join(common, "refs", "heads", filepath.FromSlash(b)+".lock"))
		locks = append(locks, m...)
	}
	if ref, err := output(ctx, dir, nil, "symbolic-ref", "-q", "HEAD"); err == nil {
		locks = append(locks, filepath.Join(common, filepath.FromSlash(strings.TrimSpace(ref))+".lock"))
	} else if exitCode(err) != 1 { // 1: detached, no branch to lock
		return nil, err
	}

	seen := map[string]bool{} // the worktree's git directory may be the common one
	locks = slices.DeleteFunc(locks, func(l string) bool { dup := seen[l]; seen[l] = true; return dup })

	// /proc is read only when a lock is there at all, as after a crash. A
	// lock dated in the future (a clock set back) waits.
	now := time.Now()
	old := map[string]os.FileInfo{}
	for _, l := range locks {
		if fi, err := os.Lstat(l); err == nil && fi.Mode().IsRegular() && !fi.ModTime().After(now) {
			old[l] = fi
		}
	}
	if len(old) == 0 {
		return nil, nil
	}
	work := []string{top, gitDir, common}
	if filepath.Base(common) == ".git" {
		work = append(work, filepath.Dir(common)) // the main worktree of a linked one
	}
	open, gitInside, known := holders(locks, work)
	if gitInside {
		return nil, nil
	}
	var removed []string
	for _, l := range locks {
		fi, ok := old[l]
		if !ok || open[l] || (!known && now.Sub(fi.ModTime()) <= unknownAge) {
			continue
		}
		// The same file still, not one a git made since.
		if again, err := os.Lstat(l); err != nil || !os.SameFile(fi, again) || !again.ModTime().Equal(fi.ModTime()) {
			continue
		}
		if err := os.Remove(l); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, fmt.Errorf("gitx: clear stale locks: %w", err)
		}
		removed = append(removed, l)
	}
	return removed, nil
}

// unknownAge is how old a lock must be when no process can be asked
// whether it holds it.
const unknownAge = 10 * time.Minute

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
