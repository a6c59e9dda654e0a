package gitx_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/internal/gitx"
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
