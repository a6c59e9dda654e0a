package hook_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/hook"
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

// preToolUse is "harnish hook pre-tool-use ARGS" with stdin as the hook
// input, answered by the zero Handler.
func preToolUse(args []string, stdin string, stderr io.Writer) int {
	var h hook.Handler
	return h.Run(context.Background(), append([]string{"pre-tool-use"}, args...), strings.NewReader(stdin), io.Discard, stderr)
}

// stop is "harnish hook stop ARGS" with stdin as the hook input, answered
// by the zero Handler.
func stop(args []string, stdin string, stderr io.Writer) int {
	var h hook.Handler
	return h.Run(context.Background(), append([]string{"stop"}, args...), strings.NewReader(stdin), io.Discard, stderr)
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
