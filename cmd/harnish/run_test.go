package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeTree writes files (path -> content) under a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
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

// agent.sh writes the file of its task, on its second attempt for T2.
const agentScript = `case "$HARNISH_TASK_ID/$HARNISH_ATTEMPT" in
T1/*) touch a.txt ;;
T2/1) ;;
T2/*) touch b.txt ;;
esac
`

func TestRunResumeStatus(t *testing.T) {
	dir := writeTree(t, map[string]string{"harnish.yaml": twoTaskPlan, "agent.sh": agentScript})
	var out, errb bytes.Buffer

	// No terminal, no --yes: the run stops at the milestone.
	if code := run([]string{"run", "--dir", dir, "--json"}, &out, &errb); code != 2 {
		t.Fatalf("run: exit %d, want 2\n%s%s", code, out.String(), errb.String())
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e struct {
			Type    string `json:"type"`
			Outcome string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event line %q: %v", line, err)
		}
		types = append(types, e.Type+e.Outcome)
	}
	want := []string{"run.started", "task.started", "attempt.started", "verify.passed", "attempt.finished", "task.done",
		"milestone.reached", "run.finishedawaiting-approval"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// A second run refuses to start over the recorded one.
	errb.Reset()
	if code := run([]string{"run", "--dir", dir}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "harnish resume") {
		t.Errorf("second run: exit %d, %s", code, errb.String())
	}

	// Resume with approval goes past the gate; T2 fails once, then passes.
	out.Reset()
	if code := run([]string{"resume", "--dir", dir, "--approve"}, &out, &errb); code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"milestone after phase p1 approved", "T2 attempt 1: checks fail", "T2 attempt 2: checks pass", "completed: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("resume output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if code := run([]string{"status", "--dir", dir}, &out, &errb); code != 0 {
		t.Fatalf("status: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"of plan cli-test: completed", "spent: 3 attempts", "p1         T1           done       1 attempts",
		"p2         T2           done       2 attempts"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
}

func TestHookStop(t *testing.T) {
	dir := writeTree(t, map[string]string{"harnish.yaml": twoTaskPlan, "agent.sh": agentScript})
	input := `{"hook_event_name": "Stop", "stop_hook_active": false, "cwd": "` + dir + `"}`
	stop := func(args ...string) (int, string) {
		var errb bytes.Buffer
		code := hookStop(append([]string{"--agent", "claude"}, args...), strings.NewReader(input), &errb)
		return code, errb.String()
	}
	t.Setenv("HARNISH_TASK_ID", "")
	if code, msg := stop(); code != 0 {
		t.Errorf("no task known: exit %d (%s), want 0", code, msg)
	}
	code, msg := stop("--task", "T1")
	if code != 2 || !strings.Contains(msg, "harnish: task T1 is not done: its checks fail") || !strings.Contains(msg, "$ test -f a.txt") {
		t.Errorf("failing checks: exit %d, stderr:\n%s", code, msg)
	}
	t.Setenv("HARNISH_TASK_ID", "T1")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, msg := stop(); code != 0 {
		t.Errorf("passing checks: exit %d (%s), want 0", code, msg)
	}
	if code, msg := stop("--task", "T9"); code != 2 || !strings.Contains(msg, `the plan has no task "T9"`) {
		t.Errorf("unknown task: exit %d (%s)", code, msg)
	}
}
