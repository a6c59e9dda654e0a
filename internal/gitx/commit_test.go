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
