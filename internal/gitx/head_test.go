package gitx

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// head reads HEAD from git's files where they are plain and agrees with
// git rev-parse everywhere: a branch, a subdirectory, a detached HEAD, a
// linked worktree, packed refs and $GIT_DIR.
func TestHead(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@localhost"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
	git(repo, "init", "-q")
	git(repo, "commit", "-q", "--allow-empty", "-m", "one")
	git(repo, "commit", "-q", "--allow-empty", "-m", "two")
	wt := filepath.Join(root, "wt")
	git(repo, "worktree", "add", "-q", "-b", "side", wt)
	git(wt, "commit", "-q", "--allow-empty", "-m", "three")

	tests := []struct {
		name     string
		dir      string
		setup    func()
		fromFile bool
	}{
		{name: "branch", dir: repo, fromFile: true},
		{name: "subdirectory", dir: filepath.Join(repo, "sub"), fromFile: true},
		{name: "linked worktree", dir: wt, fromFile: true},
		{name: "detached", dir: repo, setup: func() { git(repo, "checkout", "-q", "--detach", "HEAD~1") }, fromFile: true},
		{name: "packed refs", dir: repo, setup: func() {
			git(repo, "checkout", "-q", "-")
			git(repo, "pack-refs", "--all")
		}},
		{name: "GIT_DIR", dir: repo, setup: func() { t.Setenv("GIT_DIR", filepath.Join(repo, ".git")) }},
	}
	for _, tt := range tests {
		if tt.setup != nil {
			tt.setup()
		}
		want := git(tt.dir, "rev-parse", "HEAD")
		if h, ok := readHead(tt.dir); ok != tt.fromFile || ok && h != want {
			t.Errorf("%s: readHead = %q, %v; want %q, %v", tt.name, h, ok, want, tt.fromFile)
		}
		if h, err := head(context.Background(), tt.dir); err != nil || h != want {
			t.Errorf("%s: head = %q, %v; want %q", tt.name, h, err, want)
		}
	}
	if _, ok := readHead(t.TempDir()); ok {
		t.Error("readHead outside any repository found one")
	}
}

// A commit starts no git process beyond itself: no automatic maintenance
// (git's trace names every child it starts).
func TestCommitStartsNoMaintenance(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	if h, err := CommitAll(context.Background(), dir, "m"); err != nil || h == "" {
		t.Fatalf("CommitAll: %q, %v", h, err)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"commit"`) {
		t.Fatalf("the trace shows no commit; is GIT_TRACE2_EVENT honoured?\n%s", b)
	}
	if strings.Contains(string(b), `"child_start"`) {
		t.Errorf("the commit started a child process:\n%s", b)
	}
}
