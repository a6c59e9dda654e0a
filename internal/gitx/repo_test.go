package gitx_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/testkit"
)

// newRepo makes a repository with one commit on branch main, where git reads
// no configuration but the repository's own, and returns its real path.
func newRepo(t *testing.T) string {
	t.Helper()
	// A test run from a git hook inherits variables pointing git elsewhere.
	for _, v := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, dir, "init", "-q", "-b", "main")
	testkit.Git(t, dir, "config", "user.name", "t")
	testkit.Git(t, dir, "config", "user.email", "t@localhost")
	testkit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
	return dir
}

// write writes files (path relative to dir -> content).
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// read returns the file's content, or "<missing>".
func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// leaveLock makes the lock file a crashed git leaves: empty, and an hour old,
// which is stale by any rule.
func leaveLock(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}
