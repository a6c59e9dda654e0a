package hook_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/hook"
	"github.com/harnish/harnish/internal/testkit"
)

func TestHookStop(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan})
	input := `{"hook_event_name": "Stop", "stop_hook_active": false, "cwd": "` + dir + `"}`
	stop := func(args ...string) (int, string) {
		var errb bytes.Buffer
		code := stop(append([]string{"--agent", "claude"}, args...), input, &errb)
		return code, errb.String()
	}
	t.Setenv("HARNISH_TASK_ID", "")
	t.Setenv("HARNISH_WORKDIR", "")
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
	// The agent is sent back at most hook.MaxStopRefusals times in one attempt
	// (counted in the hook log), then the loop's own checks decide.
	os.Remove(filepath.Join(dir, "a.txt"))
	t.Setenv(guardrail.EnvHookLog, filepath.Join(t.TempDir(), "hooks.jsonl"))
	for i := range hook.MaxStopRefusals {
		if code, _ := stop(); code != 2 {
			t.Fatalf("refusal %d: exit %d", i+1, code)
		}
	}
	if code, msg := stop(); code != 0 || !strings.Contains(msg, "refused 3 times") {
		t.Errorf("after %d refusals: exit %d (%s), want 0", hook.MaxStopRefusals, code, msg)
	}
	// Without a hook log, a stop that is already a continuation goes.
	t.Setenv(guardrail.EnvHookLog, "")
	input = strings.Replace(input, `"stop_hook_active": false`, `"stop_hook_active": true`, 1)
	if code, _ := stop(); code != 0 {
		t.Errorf("stop_hook_active: exit %d, want 0", code)
	}
}

// TestHookStopWorkdir: the stop hook finds the plan and runs the checks in
// the tree $HARNISH_WORKDIR names, whatever its cwd (relative included).
func TestHookStopWorkdir(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan})
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(guardrail.EnvHookLog, "")
	t.Setenv("HARNISH_TASK_ID", "T1")
	t.Setenv("HARNISH_WORKDIR", dir)
	for _, cwd := range []string{"sub", filepath.Join(dir, "sub")} {
		var stderr bytes.Buffer
		input := `{"hook_event_name": "Stop", "cwd": "` + cwd + `"}`
		if code := stop([]string{"--agent", "codex"}, input, &stderr); code != 2 ||
			!strings.Contains(stderr.String(), "harnish: task T1 is not done") {
			t.Errorf("cwd %q: exit %d, stderr %q; want the checks of T1 to fail", cwd, code, stderr.String())
		}
	}
}

// TestHookStopCannotLoad: a stop refused because the plan or the task does
// not load is counted like any refusal, and the cap lets the agent go.
func TestHookStopCannotLoad(t *testing.T) {
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "plan.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	planned := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan})
	// The run's kept plan is broken: the plan in the tree is not a stand-in.
	keptBroken := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, ".harnish/plan.yaml": "version: 1\n"})
	tests := []struct {
		name, dir string
		args      []string
		wantErr   string
	}{
		{"plan does not load", broken, nil, "harnish hook stop: "},
		{"kept plan does not load", keptBroken, nil, "harnish hook stop: " + filepath.Join(keptBroken, ".harnish", "plan.yaml")},
		{"unknown task", planned, []string{"--task", "T9"}, `harnish hook stop: the plan has no task "T9"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "hooks.jsonl")
			t.Setenv(guardrail.EnvHookLog, logPath)
			t.Setenv("HARNISH_TASK_ID", "T1")
			t.Setenv("HARNISH_WORKDIR", "")
			input := `{"hook_event_name": "Stop", "stop_hook_active": true, "cwd": "` + tt.dir + `"}`
			for i := range hook.MaxStopRefusals + 1 {
				var stderr bytes.Buffer
				code := stop(append([]string{"--agent", "codex"}, tt.args...), input, &stderr)
				if i < hook.MaxStopRefusals {
					if code != 2 || !strings.HasPrefix(stderr.String(), tt.wantErr) {
						t.Fatalf("stop %d: exit %d, stderr %q", i+1, code, stderr.String())
					}
				} else if code != 0 {
					t.Fatalf("stop %d, after %d refusals: exit %d (%s), want 0", i+1, hook.MaxStopRefusals, code, stderr.String())
				}
			}
			recs, err := guardrail.ReadHookLog(logPath)
			if err != nil {
				t.Fatal(err)
			}
			refused := 0
			for _, r := range recs {
				if r.Event == guardrail.HookStop && r.Refused {
					refused++
				}
			}
			if refused != hook.MaxStopRefusals {
				t.Errorf("%d refusals logged, want %d: %+v", refused, hook.MaxStopRefusals, recs)
			}
		})
	}
}
