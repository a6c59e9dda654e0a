package gitx_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/internal/testkit"
)

func TestFindCommit(t *testing.T) {
	dir := newRepo(t)
	commit := func(msg string) string {
		testkit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
		return testkit.Git(t, dir, "rev-parse", "HEAD")
	}
	task := func(run, id string) string {
		return "feat(p1): " + id + " — a title\n\nsummary\n\nHarnish-Run: " + run + "\nHarnish-Task: " + id + "\nHarnish-Attempts: 1\n"
	}
	t1 := commit(task("20261202-233000", "T1"))
	t10 := commit(task("20261202-233000", "T10"))
	other := commit(task("20261203-080000", "T1"))
	commit("chore: mentions Harnish-Task: T2 in passing\n\nsee Harnish-Task: T2 later\n")
	// A commit on another branch is not reachable from HEAD.
	testkit.Git(t, dir, "switch", "-q", "-c", "side")
	commit(task("20261202-233000", "T3"))
	testkit.Git(t, dir, "switch", "-q", "main")

	tests := []struct {
		name     string
		trailers []string
		want     string
	}{
		{name: "task of a run", trailers: []string{"Harnish-Run: 20261202-233000", "Harnish-Task: T1"}, want: t1},
		{name: "not its prefix", trailers: []string{"Harnish-Run: 20261202-233000", "Harnish-Task: T10"}, want: t10},
		{name: "the other run", trailers: []string{"Harnish-Run: 20261203-080000", "Harnish-Task: T1"}, want: other},
		{name: "newest of several", trailers: []string{"Harnish-Task: T1"}, want: other},
		{name: "every trailer must be there", trailers: []string{"Harnish-Run: 20261203-080000", "Harnish-Task: T10"}},
		{name: "a line of its own, not inside one", trailers: []string{"Harnish-Task: T2"}},
		{name: "a prefix of a line", trailers: []string{"Harnish-Run: 20261202"}},
		{name: "not reachable from HEAD", trailers: []string{"Harnish-Task: T3"}},
		{name: "regexp characters are plain", trailers: []string{"Harnish-Task: T."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gitx.FindCommit(context.Background(), dir, tt.trailers...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FindCommit(%q) (-want +got):\n%s", tt.trailers, diff)
			}
		})
	}
}

func TestFindCommitEdges(t *testing.T) {
	ctx := context.Background()
	empty := newRepo(t)
	testkit.Git(t, empty, "switch", "-q", "--orphan", "fresh")
	if got, err := gitx.FindCommit(ctx, empty, "Harnish-Task: T1"); err != nil || got != "" {
		t.Errorf("FindCommit on a branch without commits: %q, %v", got, err)
	}
	for _, bad := range [][]string{nil, {""}, {"Harnish-Task: T1\nHarnish-Run: 1"}} {
		if _, err := gitx.FindCommit(ctx, empty, bad...); err == nil {
			t.Errorf("FindCommit(%q) took it", bad)
		}
	}
	if _, err := gitx.FindCommit(ctx, t.TempDir(), "Harnish-Task: T1"); err == nil {
		t.Error("FindCommit outside a repository succeeded")
	}
}
