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

// TestSnapshotExcept: the paths left out are in no snapshot, whether the
// state directory they lie in is ignored or not; the rest of it is.
func TestSnapshotExcept(t *testing.T) {
	for _, ignore := range []string{"", ".state/\n"} {
		dir := t.TempDir()
		git := func(args ...string) string {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
			return string(out)
		}
		write := func(name, text string) {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("init", "-q")
		write(".gitignore", ignore)
		ctx := context.Background()
		before, err := gitx.SnapshotExcept(ctx, dir, []string{".state"}, []string{".state/transcripts"})
		if err != nil {
			t.Fatalf("ignored %q: %v", ignore, err)
		}
		write(".state/transcripts/T1-1.jsonl", "{}\n")
		write(".state/lock", "x\n")
		after, err := gitx.SnapshotExcept(ctx, dir, []string{".state"}, []string{".state/transcripts"})
		if err != nil {
			t.Fatalf("ignored %q: %v", ignore, err)
		}
		diff, err := gitx.Diff(ctx, dir, before, after)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(diff, "+++ b/.state/lock") || strings.Contains(diff, "transcripts") {
			t.Errorf("ignored %q: diff\n%s", ignore, diff)
		}
		files, err := gitx.CommitFiles(ctx, dir, "HEAD")
		if err == nil {
			t.Errorf("files of a commit of a repository with none: %v", files)
		}
		write("a.txt", "a\n")
		git("add", "a.txt")
		git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "a")
		if files, err := gitx.CommitFiles(ctx, dir, "HEAD"); err != nil || len(files) != 1 || files[0] != "a.txt" {
			t.Errorf("files of the root commit: %v, %v", files, err)
		}
	}
}
