package hookcmd_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/hookcmd"
)

// TestMain clears what an agent's environment may set: tests run by an
// agent that harnish drives must not judge by its working tree or write to
// its hook log.
func TestMain(m *testing.M) {
	for _, k := range []string{guardrail.EnvHookLog, executor.EnvWorkDir, executor.EnvTaskID} {
		os.Unsetenv(k)
	}
	os.Exit(m.Run())
}

// preToolUse is "harnish hook pre-tool-use ARGS" with stdin as the hook input.
func preToolUse(args []string, stdin string, stderr io.Writer) int {
	return hookcmd.Run(append([]string{"pre-tool-use"}, args...), strings.NewReader(stdin), io.Discard, stderr)
}

// stop is "harnish hook stop ARGS" with stdin as the hook input.
func stop(args []string, stdin string, stderr io.Writer) int {
	return hookcmd.Run(append([]string{"stop"}, args...), strings.NewReader(stdin), io.Discard, stderr)
}

// hookCall is a PreToolUse call as Claude Code and Codex send it.
func hookCall(t testing.TB, tool string, input map[string]any, cwd string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"session_id": "s", "transcript_path": "/tmp/t.jsonl", "hook_event_name": "PreToolUse",
		"tool_name": tool, "tool_input": input, "cwd": cwd,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeGuardPlan writes a one-task plan with the guardrails section given
// (indented YAML) to dir/name and returns its path.
func writeGuardPlan(t *testing.T, dir, name, guardrails string) string {
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

// writeTree writes files (path -> content) under a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
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

const twoTaskPlan = `version: 1
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
