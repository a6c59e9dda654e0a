package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/internal/testkit"
)

// clearGitEnv unsets the variables that point git elsewhere (a test run
// from a git hook inherits them) until the test ends.
func clearGitEnv(t *testing.T) {
	for _, v := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES"} {
		if old, ok := os.LookupEnv(v); ok {
			os.Unsetenv(v)
			t.Cleanup(func() { os.Setenv(v, old) })
		}
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// head reads HEAD from git's files where they plainly say it and agrees
// with git rev-parse everywhere: a branch, a subdirectory, a linked
// worktree, a detached HEAD, packed refs, $GIT_DIR, a working tree reached
// through a symlink from inside another repository, and a stray .git that
// git walks past.
func TestHead(t *testing.T) {
	clearGitEnv(t)
	root := t.TempDir()
	newRepo := func(dir string, commits int) {
		os.MkdirAll(dir, 0o755)
		testkit.Git(t, dir, "init", "-q")
		for i := range commits {
			testkit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", strings.Repeat("c", i+1))
		}
	}
	repo := filepath.Join(root, "repo")
	newRepo(repo, 2)
	os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
	wt := filepath.Join(root, "wt")
	testkit.Git(t, repo, "worktree", "add", "-q", "-b", "side", wt)
	testkit.Git(t, wt, "commit", "-q", "--allow-empty", "-m", "three")
	// home is a repository (a dotfiles one, say) holding a symlink to a
	// project of another repository: git follows the link, so must head.
	home, mono := filepath.Join(root, "home"), filepath.Join(root, "mono")
	newRepo(home, 1)
	newRepo(mono, 3)
	os.MkdirAll(filepath.Join(mono, "proj"), 0o755)
	if err := os.Symlink(filepath.Join(mono, "proj"), filepath.Join(home, "proj")); err != nil {
		t.Fatal(err)
	}
	// A .git directory holding only HEAD is no repository: git walks past it.
	stray := filepath.Join(repo, "stray")
	os.MkdirAll(filepath.Join(stray, ".git"), 0o755)
	os.WriteFile(filepath.Join(stray, ".git", "HEAD"), []byte(strings.Repeat("1", 40)+"\n"), 0o644)

	tests := []struct {
		name     string
		dir      string
		setup    func(t *testing.T)
		fromFile bool
	}{
		{name: "branch", dir: repo, fromFile: true},
		{name: "subdirectory", dir: filepath.Join(repo, "sub"), fromFile: true},
		{name: "linked worktree", dir: wt, fromFile: true},
		{name: "through a symlink", dir: filepath.Join(home, "proj"), fromFile: true},
		{name: "stray .git", dir: stray},
		{name: "outside any repository", dir: t.TempDir()},
		{name: "detached", dir: repo, setup: func(t *testing.T) { testkit.Git(t, repo, "checkout", "-q", "--detach", "HEAD~1") }, fromFile: true},
		{name: "packed refs", dir: repo, setup: func(t *testing.T) {
			testkit.Git(t, repo, "checkout", "-q", "-")
			testkit.Git(t, repo, "pack-refs", "--all")
		}},
		{name: "GIT_DIR", dir: repo, setup: func(t *testing.T) { t.Setenv("GIT_DIR", filepath.Join(repo, ".git")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup(t)
			}
			if tt.name == "outside any repository" {
				if h, ok := readHead(tt.dir); ok {
					t.Errorf("readHead = %q, true; want no answer", h)
				}
				return
			}
			want := testkit.Git(t, tt.dir, "rev-parse", "HEAD")
			if h, ok := readHead(tt.dir); ok != tt.fromFile || ok && h != want {
				t.Errorf("readHead = %q, %v; want %q, %v", h, ok, want, tt.fromFile)
			}
			if h, err := head(context.Background(), tt.dir); err != nil || h != want {
				t.Errorf("head = %q, %v; want %q", h, err, want)
			}
		})
	}
}

// A task's commit (CommitAll) starts no git process beyond itself: no
// automatic maintenance; the run's records commit (CommitPaths) keeps it,
// once a run. git's trace names every child it starts.
func TestCommitMaintenance(t *testing.T) {
	clearGitEnv(t)
	dir := t.TempDir()
	testkit.Git(t, dir, "init", "-q")
	traced := func(commit func() (string, error)) string {
		t.Helper()
		trace := filepath.Join(t.TempDir(), "trace")
		t.Setenv("GIT_TRACE2_EVENT", trace)
		if h, err := commit(); err != nil || h == "" {
			t.Fatalf("commit: %q, %v", h, err)
		}
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"commit"`) {
			t.Fatalf("the trace shows no commit; is GIT_TRACE2_EVENT honoured?\n%s", b)
		}
		return string(b)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	if tr := traced(func() (string, error) { return CommitAll(context.Background(), dir, "task") }); strings.Contains(tr, `"child_start"`) {
		t.Errorf("CommitAll started a child process:\n%s", tr)
	}
	os.MkdirAll(filepath.Join(dir, "records"), 0o755)
	os.WriteFile(filepath.Join(dir, "records", "r.json"), []byte("{}\n"), 0o644)
	if tr := traced(func() (string, error) { return CommitPaths(context.Background(), dir, "records", "records") }); !strings.Contains(tr, `"maintenance"`) {
		t.Errorf("CommitPaths ran no automatic maintenance:\n%s", tr)
	}
}
