package gitx_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/harnish/harnish/internal/gitx"
)

// A task's commit carries trailers, so a run resumed after a crash finds it
// instead of committing the task again.
func ExampleFindCommit() {
	dir, _ := os.MkdirTemp("", "gitx-example-")
	defer os.RemoveAll(dir)
	exec.Command("git", "-C", dir, "init", "-q").Run()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	ctx := context.Background()

	trailers := []string{"Harnish-Run: 20261202-233000", "Harnish-Task: T1"}
	if hash, _ := gitx.FindCommit(ctx, dir, trailers...); hash == "" {
		msg := "feat(p1): T1 — a file\n\n" + trailers[0] + "\n" + trailers[1] + "\nHarnish-Attempts: 1\n"
		hash, err := gitx.CommitAll(ctx, dir, msg, ".harnish")
		fmt.Println("committed:", hash != "", err)
	}
	hash, _ := gitx.FindCommit(ctx, dir, trailers...)
	head, _ := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	fmt.Println("found again:", hash+"\n" == string(head))
	// Output:
	// committed: true <nil>
	// found again: true
}
