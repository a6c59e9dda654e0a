// Package testkit holds what harnish's own tests share: git working trees,
// trees of files, and plans for the CLI's tests. It is for tests only.
package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/internal/fsx"
)

// Git runs git with args in dir, as the identity t <t@localhost>, and
// returns its output, trimmed; a failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@localhost"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// GitTree makes a git working tree with one empty commit and returns its
// real path (agents report paths with symlinks resolved).
func GitTree(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
	return dir
}

// WriteTree writes files (path -> content) under a new temporary directory
// and returns it. The files are executable, and can be run at once
// (fsx.WriteExecutable).
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := fsx.WriteExecutable(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// WriteGuardPlan writes a one-task plan with the guardrails section given
// (indented YAML) to dir/name and returns its path.
func WriteGuardPlan(t testing.TB, dir, name, guardrails string) string {
	t.Helper()
	src := "version: 1\nname: p\nguardrails:\n" + guardrails + `phases:
  - id: a
    tasks:
      - id: T1
        title: t
        acceptance: [{run: [go, test, ./...]}]
`
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TwoTaskPlan is a plan of two phases of one task each, carried out by
// the command executor running agent.sh; T1 passes when a.txt exists, T2
// when b.txt does.
const TwoTaskPlan = `version: 1
name: cli-test
executor: {kind: command, argv: [sh, agent.sh]}
phases:
  - id: p1
    title: One
    tasks:
      - id: T1
        title: make a
        acceptance: [{sh: "test -f a.txt"}]
  - id: p2
    title: Two
    tasks:
      - id: T2
        title: make b
        acceptance: [{sh: "test -f b.txt"}]
`
