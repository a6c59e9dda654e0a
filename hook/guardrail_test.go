package hook_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/hook"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// recorder is a guardrail that records what it is asked and answers with
// decide.
type recorder struct {
	mu     sync.Mutex
	seen   []guardrail.Action
	decide func(a guardrail.Action) (guardrail.Decision, error)
}

func (r *recorder) Check(_ context.Context, a guardrail.Action) (guardrail.Decision, error) {
	r.mu.Lock()
	r.seen = append(r.seen, a)
	r.mu.Unlock()
	if r.decide == nil {
		return guardrail.Decision{}, nil
	}
	return r.decide(a)
}

// only returns a Handler.Guardrail func that judges by g alone.
func only(g guardrail.Guardrail) func(context.Context, *hook.Call) (guardrail.Guardrail, error) {
	return func(context.Context, *hook.Call) (guardrail.Guardrail, error) { return g, nil }
}

// TestCustomGuardrail: the guardrail a Handler is given is consulted for
// every live tool call, once per file of an edit, with the diff the call
// would make; what it says is the answer.
func TestCustomGuardrail(t *testing.T) {
	root := testkit.WriteTree(t, map[string]string{"calc/calc.go": "package calc\n"})
	twoFiles := "*** Begin Patch\n*** Add File: calc/div.go\n+package calc\n+\n+const token = \"ghp_x\"\n" +
		"*** Update File: calc/calc.go\n@@\n package calc\n+// Add adds.\n*** End Patch\n"
	cmd := func(c string) guardrail.Action {
		return guardrail.Action{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: c, Task: "T1"}
	}
	edit := func(path, diff string) guardrail.Action {
		return guardrail.Action{Kind: guardrail.KindEdit, Path: path, Diff: diff, Task: "T1"}
	}
	divGo := edit("calc/div.go", "--- /dev/null\n+++ b/calc/div.go\n@@ -0,0 +1,3 @@\n+package calc\n+\n+const token = \"ghp_x\"\n")
	calcGo := edit("calc/calc.go", "--- a/calc/calc.go\n+++ b/calc/calc.go\n@@ -1,1 +1,2 @@\n package calc\n+// Add adds.\n")
	hard := func(path string) func(a guardrail.Action) (guardrail.Decision, error) {
		return func(a guardrail.Action) (guardrail.Decision, error) {
			if a.Path == path {
				return guardrail.Decision{Level: guardrail.Hard, Rule: "corp.secret", Reason: "a token in " + a.Path}, nil
			}
			return guardrail.Decision{}, nil
		}
	}
	tests := []struct {
		name     string
		agent    hook.Agent
		tool     string
		input    map[string]any
		decide   func(a guardrail.Action) (guardrail.Decision, error)
		wantSeen []guardrail.Action
		wantCode int
		wantMsg  string
	}{
		{name: "a Bash call", agent: hook.Claude, tool: "Bash", input: map[string]any{"command": "curl -s example.com"},
			wantSeen: []guardrail.Action{cmd("curl -s example.com")}},
		{name: "a Bash call blocked", agent: hook.Claude, tool: "Bash", input: map[string]any{"command": "curl -s example.com"},
			decide: func(guardrail.Action) (guardrail.Decision, error) {
				return guardrail.Decision{Level: guardrail.Hard, Rule: "net.fetch", Reason: "no network", Match: "curl"}, nil
			},
			wantSeen: []guardrail.Action{cmd("curl -s example.com")},
			wantCode: hook.ExitBlock, wantMsg: "harnish guardrail net.fetch blocked this: no network (in \"curl\")\n"},
		{name: "each file of a Codex patch", agent: hook.Codex, tool: "apply_patch", input: map[string]any{"command": twoFiles},
			wantSeen: []guardrail.Action{divGo, calcGo}},
		{name: "the second file of a Codex patch blocked", agent: hook.Codex, tool: "apply_patch", input: map[string]any{"command": twoFiles},
			decide: hard("calc/calc.go"), wantSeen: []guardrail.Action{divGo, calcGo},
			wantCode: hook.ExitBlock, wantMsg: "harnish guardrail corp.secret blocked this: a token in calc/calc.go\n"},
		{name: "the first file blocked, the second not asked", agent: hook.Codex, tool: "apply_patch", input: map[string]any{"command": twoFiles},
			decide: hard("calc/div.go"), wantSeen: []guardrail.Action{divGo},
			wantCode: hook.ExitBlock, wantMsg: "harnish guardrail corp.secret blocked this: a token in calc/div.go\n"},
		{name: "an apply_patch command, then each file", agent: hook.Codex, tool: "Bash",
			input:    map[string]any{"command": "apply_patch <<'EOF'\n" + twoFiles + "EOF"},
			wantSeen: []guardrail.Action{cmd("apply_patch <<'EOF'\n" + twoFiles + "EOF"), divGo, calcGo}},
		{name: "a Claude write", agent: hook.Claude, tool: "Write",
			input:    map[string]any{"file_path": filepath.Join(root, "calc", "calc.go"), "content": "package calc\n\nvar x = 1\n"},
			wantSeen: []guardrail.Action{edit("calc/calc.go", "--- a/calc/calc.go\n+++ b/calc/calc.go\n@@ -1 +1,3 @@\n package calc\n+\n+var x = 1\n")}},
		{name: "an install", agent: hook.Claude, tool: "Bash", input: map[string]any{"command": "npm i left-pad"},
			decide: func(a guardrail.Action) (guardrail.Decision, error) {
				if a.Kind == guardrail.KindInstall {
					return guardrail.Decision{Level: guardrail.Soft, Rule: "corp.pkg", Reason: a.Ecosystem + " " + a.Package + " is unvetted"}, nil
				}
				return guardrail.Decision{}, nil
			},
			wantSeen: []guardrail.Action{cmd("npm i left-pad"), {Kind: guardrail.KindInstall, Ecosystem: "npm", Package: "left-pad", Task: "T1"}},
			wantMsg:  "harnish guardrail corp.pkg warns: npm left-pad is unvetted\n"},
		{name: "a guardrail that errs", agent: hook.Claude, tool: "Bash", input: map[string]any{"command": "ls"},
			decide: func(guardrail.Action) (guardrail.Decision, error) {
				return guardrail.Decision{}, errors.New("registry down")
			},
			wantSeen: []guardrail.Action{cmd("ls")},
			wantCode: hook.ExitBlock, wantMsg: "harnish guardrail guardrail.error blocked this: guardrail: registry down\n"},
		{name: "a guardrail that panics", agent: hook.Codex, tool: "apply_patch", input: map[string]any{"command": twoFiles},
			decide:   func(guardrail.Action) (guardrail.Decision, error) { panic("boom") },
			wantSeen: []guardrail.Action{divGo},
			wantCode: hook.ExitBlock, wantMsg: "harnish guardrail guardrail.error blocked this: guardrail: panic: boom\n"},
		{name: "a tool not judged", agent: hook.Claude, tool: "Read", input: map[string]any{"file_path": "calc/calc.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "hooks.jsonl")
			rec := &recorder{decide: tt.decide}
			h := hook.Handler{Guardrail: only(rec)}
			ans := h.PreToolUse(context.Background(), &hook.Request{Agent: tt.agent, TaskID: "T1", WorkDir: root, HookLog: logPath,
				Input: strings.NewReader(hookCall(t, tt.tool, tt.input, root))})
			if diff := cmp.Diff(tt.wantSeen, rec.seen); diff != "" {
				t.Errorf("the guardrail was asked (-want +got):\n%s", diff)
			}
			if ans.Code != tt.wantCode || ans.Message != tt.wantMsg {
				t.Errorf("answer %d %q, want %d %q", ans.Code, ans.Message, tt.wantCode, tt.wantMsg)
			}
			recs, err := guardrail.ReadHookLog(logPath)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]guardrail.HookRecord{ans.Record}, recs, cmpopts.EquateApproxTime(0)); diff != "" {
				t.Errorf("hook log (-answer's record +logged):\n%s", diff)
			}
		})
	}
}

// TestHandlerFailsClosed: a Handler whose funcs fail, or panic, blocks the
// call or refuses the stop, and stays up.
func TestHandlerFailsClosed(t *testing.T) {
	root := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan})
	bash := hookCall(t, "Bash", map[string]any{"command": "ls"}, root)
	tests := []struct {
		name    string
		h       hook.Handler
		stop    bool
		wantMsg string
	}{
		{name: "Guardrail errs", h: hook.Handler{Guardrail: func(context.Context, *hook.Call) (guardrail.Guardrail, error) {
			return nil, errors.New("no plugin")
		}}, wantMsg: "harnish: cannot judge the tool call: no plugin\n"},
		{name: "Guardrail panics", h: hook.Handler{Guardrail: func(context.Context, *hook.Call) (guardrail.Guardrail, error) {
			panic("boom")
		}}, wantMsg: "harnish: cannot judge the tool call: hook: Guardrail: panic: boom\n"},
		{name: "Guardrail gives none", h: hook.Handler{Guardrail: only(nil)},
			wantMsg: "harnish: cannot judge the tool call: hook: no guardrail\n"},
		{name: "Plan panics", h: hook.Handler{Plan: func(context.Context, *hook.Call) (*task.Plan, error) { panic("boom") }},
			wantMsg: "harnish: cannot judge the tool call: the plan does not load: hook: Plan: panic: boom\n"},
		{name: "Task panics", stop: true, h: hook.Handler{Task: func(context.Context, *hook.Call) (*task.Task, error) { panic("boom") }},
			wantMsg: "harnish hook stop: hook: Task: panic: boom\n"},
		{name: "Verifier panics", stop: true, h: hook.Handler{Verifier: verifierFunc(func(context.Context, *verify.Request) (*verify.Report, error) {
			panic("boom")
		})}, wantMsg: "harnish: the checks of task T1 could not run, so the task is not done: hook: Verifier: panic: boom\n"},
		{name: "Verifier gives no report", stop: true, h: hook.Handler{Verifier: verifierFunc(func(context.Context, *verify.Request) (*verify.Report, error) {
			return nil, nil
		})}, wantMsg: "harnish: the checks of task T1 could not run, so the task is not done: hook: the verifier returned no report\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &hook.Request{Agent: hook.Claude, TaskID: "T1", WorkDir: root, HookLog: filepath.Join(t.TempDir(), "hooks.jsonl")}
			var ans *hook.Answer
			if tt.stop {
				req.Input = strings.NewReader(`{"hook_event_name":"Stop"}`)
				ans = tt.h.Stop(context.Background(), req)
			} else {
				req.Input = strings.NewReader(bash)
				ans = tt.h.PreToolUse(context.Background(), req)
			}
			if ans.Code != hook.ExitBlock || ans.Message != tt.wantMsg {
				t.Errorf("answer %d %q, want %d %q", ans.Code, ans.Message, hook.ExitBlock, tt.wantMsg)
			}
			if !tt.stop && (ans.Record.Decision.Level != guardrail.Hard || ans.Record.Decision.Rule != hook.RuleError) {
				t.Errorf("record %+v, want a hard %s", ans.Record, hook.RuleError)
			}
			if tt.stop && !ans.Record.Refused {
				t.Errorf("record %+v, want the stop refused", ans.Record)
			}
		})
	}
}

type verifierFunc func(context.Context, *verify.Request) (*verify.Report, error)

func (f verifierFunc) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	return f(ctx, req)
}

// TestHandlerStop: a stop is held to the task the Task func names, checked
// by the Verifier, in the phase that holds it.
func TestHandlerStop(t *testing.T) {
	root := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan})
	var got *verify.Request
	h := hook.Handler{
		Task: func(_ context.Context, c *hook.Call) (*task.Task, error) {
			if c.Plan == nil || c.Event != guardrail.HookStop || c.Root != root {
				return nil, errors.New("not the call wanted")
			}
			return &c.Plan.Phases[1].Tasks[0], nil
		},
		Verifier: verifierFunc(func(_ context.Context, req *verify.Request) (*verify.Report, error) {
			got = req
			return &verify.Report{Passed: false, Fingerprint: verify.Fingerprint{Summary: "b.txt missing"},
				Checks: []verify.CheckResult{{Name: "test -f b.txt", OutputTail: "exit 1\n"}}}, nil
		}),
	}
	ans := h.Stop(context.Background(), &hook.Request{Agent: hook.Codex, WorkDir: root, Input: strings.NewReader(`{}`)})
	want := "harnish: task T2 is not done: its checks fail (b.txt missing). Keep working until they pass.\n\n$ test -f b.txt\nexit 1\n"
	if ans.Code != hook.ExitBlock || ans.Message != want {
		t.Errorf("answer %d %q, want 2 %q", ans.Code, ans.Message, want)
	}
	if got == nil || got.Task.ID != "T2" || got.PhaseID != "p2" || got.WorkDir != root {
		t.Errorf("verify request %+v, want T2 of p2 in %s", got, root)
	}
	if r := ans.Record; r.Event != guardrail.HookStop || !r.Refused || r.Reason != "checks fail: b.txt missing" {
		t.Errorf("record %+v", r)
	}
}
