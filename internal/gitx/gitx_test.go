package gitx_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/internal/testkit"
)

func TestSnapshotDiff(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("a.txt", "one\n")
	write(".gitignore", ".state/\nbuild/\n")
	git("add", "-A")
	git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "init")
	ctx := context.Background()
	before, err := gitx.Snapshot(ctx, dir, ".state")
	if err != nil {
		t.Fatal(err)
	}
	write("a.txt", "two\n")
	write("new.txt", "fresh\n")
	write("build/out.bin", "ignored\n")
	write(".state/lock", "forced in\n")
	after, err := gitx.Snapshot(ctx, dir, ".state")
	if err != nil {
		t.Fatal(err)
	}
	diff, err := gitx.Diff(ctx, dir, before, after)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+++ b/a.txt", "-one", "+two", "+++ b/new.txt", "+++ b/.state/lock"} {
		if !strings.Contains(diff, want+"\n") {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, "build/out.bin") {
		t.Errorf("diff shows an ignored file:\n%s", diff)
	}
	// The repository's own index and HEAD are untouched.
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = dir
	out, _ := cmd.Output()
	if got := string(out); !strings.Contains(got, " M a.txt") || !strings.Contains(got, "?? new.txt") {
		t.Errorf("git status after snapshots:\n%s", got)
	}
	if _, err := gitx.Snapshot(ctx, t.TempDir()); err == nil {
		t.Error("Snapshot of a directory that is no repository succeeded")
	}
}

func TestChangesBranchCommit(t *testing.T) {
	// A machine with no git identity of its own.
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	run := func(args ...string) string { return testkit.Git(t, dir, args...) }
	run("init", "-q")
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".state", "x"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := gitx.Changes(ctx, dir, ".state")
	if err != nil || strings.Join(got, ",") != "a.txt" {
		t.Fatalf("Changes = %v, %v; want [a.txt]", got, err)
	}
	// No identity configured here: harnish's own is used.
	hash, err := gitx.CommitAll(ctx, dir, "feat(p1): T1 — a file", ".state")
	if err != nil || hash == "" {
		t.Fatalf("CommitAll: %q, %v", hash, err)
	}
	if got := run("log", "-1", "--format=%an <%ae>|%s"); got != "harnish <harnish@localhost>|feat(p1): T1 — a file" {
		t.Errorf("commit: %q", got)
	}
	if got := run("show", "--name-only", "--format=", "HEAD"); got != "a.txt" {
		t.Errorf("committed files: %q, want only a.txt", got)
	}
	if hash, err := gitx.CommitAll(ctx, dir, "nothing", ".state"); err != nil || hash != "" {
		t.Errorf("CommitAll with nothing to commit: %q, %v", hash, err)
	}
	if err := gitx.Branch(ctx, dir, "harnish/run-1"); err != nil {
		t.Fatal(err)
	}
	if got := run("branch", "--show-current"); got != "harnish/run-1" {
		t.Errorf("branch %q", got)
	}
}

// TestCommitAllWithIgnoredSkip: a skip path the repository ignores anyway.
func TestCommitAllWithIgnoredSkip(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for name, text := range map[string]string{".gitignore": ".state/\n", "a.txt": "a\n", ".state/x": "x\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if hash, err := gitx.CommitAll(context.Background(), dir, "m", ".state"); err != nil || hash == "" {
		t.Fatalf("CommitAll: %q, %v", hash, err)
	}

	// The ignored path holds tracked files (a run's committed records),
	// which changed: git still refuses the path, and the commit must leave
	// their change out.
	git := func(args ...string) string { return testkit.Git(t, dir, args...) }
	git("add", "-f", ".state/x")
	git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "records")
	for name, text := range map[string]string{".state/x": "changed\n", "b.txt": "b\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if hash, err := gitx.CommitAll(context.Background(), dir, "task", ".state"); err != nil || hash == "" {
		t.Fatalf("CommitAll over tracked files in an ignored skip path: %q, %v", hash, err)
	}
	if got := git("show", "--name-only", "--format=", "HEAD"); got != "b.txt" {
		t.Errorf("the commit holds %q, want b.txt only", got)
	}
	if got := git("status", "--porcelain"); got != "M .state/x" {
		t.Errorf("status after the commit %q, want the record's change left in the tree", got)
	}
}

func TestRestore(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write("keep.txt", "v1\n")
	write("gone.txt", "still here\n")
	write(".state/journal", "1\n")
	ctx := context.Background()
	before, err := gitx.Snapshot(ctx, dir, ".state")
	if err != nil {
		t.Fatal(err)
	}
	// The attempt edits, deletes, adds, and the state moves on.
	write("keep.txt", "v2\n")
	os.Remove(filepath.Join(dir, "gone.txt"))
	write("new/added.txt", "new\n")
	write(".state/journal", "1\n2\n")
	after, err := gitx.Snapshot(ctx, dir, ".state")
	if err != nil {
		t.Fatal(err)
	}
	if err := gitx.Restore(ctx, dir, before, after, ".state"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"keep.txt": "v1\n", "gone.txt": "still here\n", "new/added.txt": "<missing>", ".state/journal": "1\n2\n"} {
		if got := read(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// TestCommitRefused: a pre-commit hook that refuses is an error, not
// "nothing to commit", and CommitPaths commits its paths only.
func TestCommitRefused(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string { return testkit.Git(t, dir, args...) }
	run("init", "-q")
	run("config", "user.email", "t@localhost")
	run("config", "user.name", "t")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	ctx := context.Background()
	if hash, err := gitx.CommitPaths(ctx, dir, "records", "b.txt", "missing.txt"); err != nil || hash == "" {
		t.Fatalf("CommitPaths: %q, %v", hash, err)
	}
	if got := run("show", "--name-only", "--format=%s", "HEAD"); got != "records\n\nb.txt" {
		t.Errorf("CommitPaths committed:\n%s", got)
	}
	if hash, err := gitx.CommitPaths(ctx, dir, "again", "b.txt"); err != nil || hash != "" {
		t.Errorf("CommitPaths with nothing new: %q, %v", hash, err)
	}
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	if err := fsx.WriteExecutable(hook, []byte("#!/bin/sh\necho refused >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if hash, err := gitx.CommitAll(ctx, dir, "task"); err == nil || hash != "" {
		t.Errorf("CommitAll past a refusing hook: %q, %v", hash, err)
	}
}

// TestInRepo: a repository is found from any directory below it, through a
// linked worktree's .git file too; an empty .git is not one.
func TestInRepo(t *testing.T) {
	repo := testkit.GitTree(t)
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(t.TempDir(), "wt")
	testkit.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "c")
	testkit.Git(t, repo, "worktree", "add", "-q", linked)
	fake := t.TempDir()
	if err := os.Mkdir(filepath.Join(fake, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{repo: true, sub: true, linked: true, fake: false, filepath.Join(fake, ".git"): false} {
		if got := gitx.InRepo(dir); got != want {
			t.Errorf("InRepo(%s) = %t, want %t", dir, got, want)
		}
	}
}

// A file rewritten at the same size within the second the index was
// written is seen as changed: the snapshot's copy of the index keeps the
// index's time, or git's racy-git rule would trust the stale stat data.
func TestSnapshotSeesRacyRewrites(t *testing.T) {
	for i := range 3 {
		dir := t.TempDir()
		git := func(args ...string) {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		git("init", "-q")
		file := filepath.Join(dir, "a.txt")
		if err := os.WriteFile(file, []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "init")
		// The file keeps the index's second, as a quick edit would.
		idx, err := os.Stat(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		before, err := gitx.Snapshot(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(idx.ModTime().Truncate(time.Second).Add(time.Second))) // the next second
		if err := os.WriteFile(file, []byte("two\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, idx.ModTime(), idx.ModTime()); err != nil {
			t.Fatal(err)
		}
		after, err := gitx.Snapshot(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if before == after {
			t.Fatalf("round %d: the rewrite of a.txt at the same size in the index's second is not seen", i)
		}
	}
}

// TestIgnoreDir: the .gitignore hides the whole directory, itself
// included, from git status, and one already there is left alone.
func TestIgnoreDir(t *testing.T) {
	dir := testkit.GitTree(t)
	state := filepath.Join(dir, ".harnish")
	if err := os.MkdirAll(filepath.Join(state, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"journal.jsonl", "logs/task-T1.json"} {
		if err := os.WriteFile(filepath.Join(state, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := gitx.IgnoreDir(state); err != nil {
		t.Fatal(err)
	}
	if st := testkit.Git(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status:\n%s", st)
	}
	mine := "journal.jsonl\n"
	if err := os.WriteFile(filepath.Join(state, ".gitignore"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := gitx.IgnoreDir(state); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(state, ".gitignore")); err != nil || string(b) != mine {
		t.Errorf("the user's .gitignore became %q, %v", b, err)
	}
}
