package gitx_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/internal/testkit"
)

// A commit that meets a lock a killed git left fails, says so with git's
// words, and goes through once ClearStaleLocks has removed it.
func TestCommitStaleLock(t *testing.T) {
	commits := map[string]func(ctx context.Context, dir string) (string, error){
		"CommitAll": func(ctx context.Context, dir string) (string, error) {
			return gitx.CommitAll(ctx, dir, "task", ".harnish")
		},
		"CommitPaths": func(ctx context.Context, dir string) (string, error) {
			return gitx.CommitPaths(ctx, dir, "records", "a.txt")
		},
	}
	for _, lock := range []string{"index.lock", "HEAD.lock", "refs/heads/main.lock"} {
		for name, commit := range commits {
			t.Run(name+"/"+lock, func(t *testing.T) {
				dir := newRepo(t)
				write(t, dir, map[string]string{"a.txt": "a\n"})
				path := filepath.Join(dir, ".git", filepath.FromSlash(lock))
				leaveLock(t, path)
				before := testkit.Git(t, dir, "rev-parse", "HEAD")
				ctx := context.Background()
				hash, err := commit(ctx, dir)
				if err == nil || hash != "" {
					t.Fatalf("commit past %s: %q, %v", lock, hash, err)
				}
				if !errors.Is(err, gitx.ErrLocked) {
					t.Errorf("error does not match ErrLocked: %v", err)
				}
				if want := "Unable to create '" + path + "': File exists"; !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks git's %q:\n%v", want, err)
				}
				var ge *gitx.Error
				if errors.As(err, &ge) && ge.Lock != path {
					t.Errorf("Lock = %q, want %q", ge.Lock, path)
				}
				if got := testkit.Git(t, dir, "rev-parse", "HEAD"); got != before {
					t.Errorf("HEAD moved from %s to %s", before, got)
				}

				removed, err := gitx.ClearStaleLocks(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{path}, removed); diff != "" {
					t.Errorf("ClearStaleLocks removed (-want +got):\n%s", diff)
				}
				if hash, err := commit(ctx, dir); err != nil || hash == "" {
					t.Fatalf("commit after clearing: %q, %v", hash, err)
				}
				if got := testkit.Git(t, dir, "show", "--name-only", "--format=", "HEAD"); got != "a.txt" {
					t.Errorf("committed %q, want a.txt", got)
				}
			})
		}
	}
}

func TestClearStaleLocks(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) (cleanup func())
		locks []string // made an hour old, relative to dir
		fresh []string // made now
		want  []string // removed
		linux bool     // Linux only
		// branches are named to ClearStaleLocks.
		branches []string
	}{
		{
			name: "none",
		},
		{
			name:  "left by a crash",
			locks: []string{".git/index.lock", ".git/HEAD.lock", ".git/ORIG_HEAD.lock", ".git/refs/heads/main.lock", ".git/packed-refs.lock", ".git/config.lock"},
			want:  []string{".git/index.lock", ".git/HEAD.lock", ".git/ORIG_HEAD.lock", ".git/packed-refs.lock", ".git/config.lock", ".git/refs/heads/main.lock"},
		},
		{
			name:  "a partial commit's index",
			locks: []string{".git/next-index-4242.lock"},
			want:  []string{".git/next-index-4242.lock"},
		},
		{
			name:  "dated in the future (a clock set back): waits",
			fresh: []string{".git/index.lock", ".git/HEAD.lock"},
		},
		{
			name:     "a branch named, one a crash cut off while git made it",
			locks:    []string{".git/refs/heads/harnish/run-1.lock", ".git/refs/heads/other.lock"},
			branches: []string{"harnish/run-1"},
			want:     []string{".git/refs/heads/harnish/run-1.lock"},
		},
		{
			name:  "another branch's, and files that are no lock git takes here",
			locks: []string{".git/refs/heads/other.lock", ".git/ORIG_HEAD", ".git/index.lock.bak"},
		},
		{
			name: "on a branch below a directory",
			setup: func(t *testing.T, dir string) func() {
				testkit.Git(t, dir, "switch", "-q", "-c", "harnish/plan-1")
				return nil
			},
			locks: []string{".git/refs/heads/harnish/plan-1.lock", ".git/refs/heads/main.lock"},
			want:  []string{".git/refs/heads/harnish/plan-1.lock"},
		},
		{
			name: "detached HEAD",
			setup: func(t *testing.T, dir string) func() {
				testkit.Git(t, dir, "switch", "-q", "--detach")
				return nil
			},
			locks: []string{".git/HEAD.lock", ".git/refs/heads/main.lock"},
			want:  []string{".git/HEAD.lock"},
		},
		// Processes are asked on Linux only.
		{
			name:  "held open by a process",
			linux: true,
			setup: func(t *testing.T, dir string) func() {
				leaveLock(t, filepath.Join(dir, ".git", "index.lock"))
				f, err := os.Open(filepath.Join(dir, ".git", "index.lock"))
				if err != nil {
					t.Fatal(err)
				}
				return func() { f.Close() }
			},
			locks: []string{".git/HEAD.lock"},
			want:  []string{".git/HEAD.lock"},
		},
		{
			name:  "a git at work in the tree",
			linux: true,
			setup: func(t *testing.T, dir string) func() {
				return startGit(t, filepath.Join(dir, "sub"))
			},
			locks: []string{".git/index.lock", ".git/refs/heads/main.lock"},
		},
		{
			name:  "a git at work in the git directory",
			linux: true,
			setup: func(t *testing.T, dir string) func() {
				return startGit(t, filepath.Join(dir, ".git"))
			},
			locks: []string{".git/index.lock"},
		},
		{
			name:  "a git at work elsewhere",
			linux: true,
			setup: func(t *testing.T, dir string) func() {
				other := t.TempDir()
				testkit.Git(t, other, "init", "-q")
				return startGit(t, other)
			},
			locks: []string{".git/index.lock"},
			want:  []string{".git/index.lock"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.linux && runtime.GOOS != "linux" {
				t.Skip("processes are asked on Linux only")
			}
			dir := newRepo(t)
			if tt.setup != nil {
				if cleanup := tt.setup(t, dir); cleanup != nil {
					defer cleanup()
				}
			}
			for _, l := range tt.locks {
				leaveLock(t, filepath.Join(dir, l))
			}
			for _, l := range tt.fresh {
				write(t, dir, map[string]string{l: ""})
				// Made just now even on a machine too loaded to call at once.
				soon := time.Now().Add(time.Second)
				if err := os.Chtimes(filepath.Join(dir, l), soon, soon); err != nil {
					t.Fatal(err)
				}
			}
			removed, err := gitx.ClearStaleLocks(context.Background(), dir, tt.branches...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range removed {
				rel, _ := filepath.Rel(dir, p)
				got = append(got, filepath.ToSlash(rel))
				if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s was reported removed but is there", p)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("removed (-want +got):\n%s", diff)
			}
			for _, l := range slices.Concat(tt.locks, tt.fresh) {
				if !slices.Contains(tt.want, l) {
					if _, err := os.Lstat(filepath.Join(dir, l)); err != nil {
						t.Errorf("%s is gone: %v", l, err)
					}
				}
			}
		})
	}
}

// In a linked worktree, the worktree's own index and HEAD locks and its
// branch's are its; the main worktree's are not.
func TestClearStaleLocksWorktree(t *testing.T) {
	main := newRepo(t)
	wt := filepath.Join(filepath.Dir(main), "wt")
	testkit.Git(t, main, "worktree", "add", "-q", "-b", "side", wt)
	locks := []string{".git/index.lock", ".git/refs/heads/main.lock", ".git/worktrees/wt/index.lock", ".git/worktrees/wt/HEAD.lock", ".git/refs/heads/side.lock", ".git/packed-refs.lock"}
	for _, l := range locks {
		leaveLock(t, filepath.Join(main, l))
	}
	removed, err := gitx.ClearStaleLocks(context.Background(), wt)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range removed {
		rel, _ := filepath.Rel(main, p)
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{".git/worktrees/wt/index.lock", ".git/worktrees/wt/HEAD.lock", ".git/packed-refs.lock", ".git/refs/heads/side.lock"}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
}

// startGit starts a git that waits for its input, in dir, and returns what
// ends it.
func startGit(t *testing.T, dir string) func() {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "hash-object", "--stdin")
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() {
		in.Close()
		cmd.Wait()
	}
}
