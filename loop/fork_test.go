package loop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
)

// TestGitFork: a task's working copy is a worktree of its own, outside the
// tree; its change comes back as one commit, once, however often a crash
// makes the loop ask; a change that conflicts with what the branch gained
// leaves the tree alone and names the files.
func TestGitFork(t *testing.T) {
	ctx := context.Background()
	dir := testkit.GitTree(t)
	write := func(dir, name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(dir, "shared.txt", "base\n")
	testkit.Git(t, dir, "add", ".")
	testkit.Git(t, dir, "commit", "-q", "-m", "base")
	g := &loop.GitWorkspace{Dir: dir}
	var _ loop.Forker = g

	a, err := g.Fork(ctx, "r1-T1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Fork(ctx, "r1-T2")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(a.Dir, dir+string(filepath.Separator)) && !strings.Contains(a.Dir, ".git") {
		t.Errorf("the fork %s is inside the working tree", a.Dir)
	}
	write(a.Dir, "a.txt", "from T1\n")
	write(a.Dir, "shared.txt", "T1\n")
	write(b.Dir, "shared.txt", "T2\n")
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Fatal("a fork's change showed in the tree before it was integrated")
	}
	// A crash after the worktree was made: Fork finds it as it stands.
	if again, err := g.Fork(ctx, "r1-T1"); err != nil || again.Dir != a.Dir {
		t.Fatalf("Fork again: %v, %v", again, err)
	}
	if b, _ := os.ReadFile(filepath.Join(a.Dir, "a.txt")); string(b) != "from T1\n" {
		t.Fatalf("the fork lost its change on Fork again: %q", b)
	}

	req := &loop.CommitRequest{Message: "T1\n\nHarnish-Task: T1", Find: []string{"Harnish-Task: T1"}}
	c1, err := g.Integrate(ctx, a, req)
	if err != nil || c1 == "" {
		t.Fatalf("Integrate T1: %q, %v", c1, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "from T1\n" {
		t.Errorf("a.txt in the tree after T1: %q", got)
	}
	if again, err := g.Integrate(ctx, a, req); err != nil || again != c1 {
		t.Errorf("Integrate T1 again: %q, %v; want %q", again, err, c1)
	}
	if n := strings.Count(testkit.Git(t, dir, "log", "--format=%s"), "\n"); n != 2 {
		t.Errorf("%d commits on the branch, want 2 (base and T1)", n)
	}

	_, err = g.Integrate(ctx, b, &loop.CommitRequest{Message: "T2", Find: []string{"Harnish-Task: T2"}})
	var ce *loop.ConflictError
	if !errors.As(err, &ce) || len(ce.Paths) != 1 || ce.Paths[0] != "shared.txt" {
		t.Fatalf("Integrate T2: %v, want a conflict in shared.txt", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "shared.txt")); string(got) != "T1\n" {
		t.Errorf("shared.txt after the conflict: %q", got)
	}
	if st := testkit.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("the tree after the conflict:\n%s", st)
	}

	for _, f := range []*loop.Fork{a, b, b} {
		if err := g.Discard(ctx, f); err != nil {
			t.Fatalf("Discard %s: %v", f.Name, err)
		}
	}
	if _, err := os.Stat(a.Dir); !os.IsNotExist(err) {
		t.Errorf("the fork's tree is still there: %v", err)
	}
	if br := testkit.Git(t, dir, "branch", "--list", "harnish/fork/*"); br != "" {
		t.Errorf("branches left: %s", br)
	}
	// A crash while git made a worktree leaves a directory git does not
	// know: Fork makes it again.
	half := filepath.Join(filepath.Dir(a.Dir), "r1-T3")
	if err := os.MkdirAll(half, 0o755); err != nil {
		t.Fatal(err)
	}
	write(half, "junk", "x")
	if f, err := g.Fork(ctx, "r1-T3"); err != nil || f.Dir != half {
		t.Fatalf("Fork over a half-made worktree: %v, %v", f, err)
	} else if _, err := os.Stat(filepath.Join(half, "junk")); !os.IsNotExist(err) {
		t.Errorf("the half-made worktree's junk is still there")
	}
	if _, err := g.Fork(ctx, "../escape"); err == nil {
		t.Error("a fork name with a path in it was accepted")
	}
}
