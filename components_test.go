package harnish_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/acp"
	"github.com/harnish/harnish/executor/claude"
	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// TestMain makes the test binary the plugin the tests start: a plugin host
// runs it with the handshake's cookie in its environment.
func TestMain(m *testing.M) {
	if os.Getenv("HARNISH_PLUGIN") != "" {
		plugins.Serve(testPlugin)
		return
	}
	os.Exit(m.Run())
}

// testPlugin serves an executor, a reviewer, a verifier, a debugger and an
// advisor that say who they are.
var testPlugin = plugins.Plugin{
	Name:    "tp",
	Version: "1.2.3",
	Executor: executor.Func(func(ctx context.Context, req *executor.Request) (*executor.Result, error) {
		return &executor.Result{Status: executor.StatusDone, Summary: "the plugin did " + req.Task.ID}, nil
	}),
	Reviewer: reviewerFunc(func(ctx context.Context, req *verify.ReviewRequest) (*verify.Review, error) {
		return &verify.Review{Findings: []verify.Finding{{Severity: verify.SeverityLow, Message: "the plugin reviewed " + req.Task.ID}}}, nil
	}),
	Debugger: executor.DebuggerFunc(func(ctx context.Context, req *executor.DebugRequest) (*executor.Diagnosis, error) {
		return &executor.Diagnosis{Found: true, RootCause: "the plugin looked at " + req.Task.ID, Fix: fmt.Sprint(len(req.Failures), " failures")}, nil
	}),
	Advisor: executor.AdvisorFunc(func(ctx context.Context, req *executor.AdviceRequest) (*executor.Advice, error) {
		return &executor.Advice{Verdict: schema.AdvisePlan, Text: "the plugin advises on " + req.Task.ID + " at " + string(req.Point)}, nil
	}),
	Verifier: verifierFunc(func(ctx context.Context, req *verify.Request) (*verify.Report, error) {
		return &verify.Report{Passed: true, Checks: []verify.CheckResult{{Name: "the plugin verified " + req.Task.ID + " in " + filepath.Base(req.WorkDir), Passed: true}}}, nil
	}),
}

type verifierFunc func(context.Context, *verify.Request) (*verify.Report, error)

func (f verifierFunc) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	return f(ctx, req)
}

type reviewerFunc func(context.Context, *verify.ReviewRequest) (*verify.Review, error)

func (f reviewerFunc) Review(ctx context.Context, req *verify.ReviewRequest) (*verify.Review, error) {
	return f(ctx, req)
}

// pluginManifest is a manifest that lists the test binary as plugin tp, and
// a plugin that cannot start, which no plan below names.
func pluginManifest(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return "plugins:\n" +
		"  - name: tp\n    path: " + self + "\n    sha256: " + hex.EncodeToString(sum[:]) + "\n    version: \"^1\"\n" +
		"  - name: broken\n    path: bin/missing\n    sha256: " + strings.Repeat("0", 64) + "\n"
}

// built is what a test compares of a loop.Config that Components built.
type built struct {
	Executor, Reviewer, Debugger, Verifier any
	Guarded                                bool // an edit guardrail
	CommitTasks, Rollback                  bool
	Branch                                 string
	DirWorkspace                           bool // the tree is read without git
}

func TestComponents(t *testing.T) {
	command := &task.Component{Kind: task.KindCommand, Argv: []string{"sh", "agent.sh"}, Env: map[string]string{"K": "v"}}
	plugin := func(name string) *task.Component { return &task.Component{Kind: task.KindPlugin, Plugin: name} }
	hist := harnish.Options{CommitTasks: true, Rollback: true, Branch: "harnish/p-1"}
	tests := []struct {
		name               string
		executor           *task.Component
		reviewer, debugger *task.Component
		opts               harnish.Options
		git                bool
		manifest           bool // the tree holds the plugin manifest
		want               built
		wantErr            string // "" means none
	}{
		{
			name:     "command executor",
			executor: command,
			want:     built{Executor: &executor.Command{Argv: []string{"sh", "agent.sh"}, Env: map[string]string{"K": "v"}}, Verifier: verify.Acceptance{}},
		},
		{
			name:     "codex, whose hooks call the hook program with the plan file",
			executor: &task.Component{Kind: task.KindCodex, Model: "m1", Env: map[string]string{"K": "v"}},
			opts:     harnish.Options{HookProgram: "/opt/bin/harnish-hook", PlanFile: "/tree/.harnish/plan.yaml"},
			want: built{Executor: &codex.Executor{Harnish: "/opt/bin/harnish-hook", PlanFile: "/tree/.harnish/plan.yaml", Model: "m1", Env: map[string]string{"K": "v"}},
				Verifier: verify.Acceptance{}},
		},
		{
			name:     "claude, hooks from PATH by default",
			executor: &task.Component{Kind: task.KindClaude, Model: "m2"},
			want:     built{Executor: &claude.Executor{Model: "m2"}, Verifier: verify.Acceptance{}},
		},
		{
			name:     "the agents' settings from the plan",
			executor: &task.Component{Kind: task.KindCodex, Sandbox: "danger-full-access", Args: []string{"-c", "model_reasoning_effort=high"}},
			want: built{Executor: &codex.Executor{Sandbox: "danger-full-access", Args: []string{"-c", "model_reasoning_effort=high"}},
				Verifier: verify.Acceptance{}},
		},
		{
			name:     "claude's permission mode and tools from the plan",
			executor: &task.Component{Kind: task.KindClaude, PermissionMode: "acceptEdits", AllowedTools: []string{"Edit", "Bash(go test:*)"}, Args: []string{"--verbose"}},
			want: built{Executor: &claude.Executor{PermissionMode: "acceptEdits", AllowedTools: []string{"Edit", "Bash(go test:*)"}, Args: []string{"--verbose"}},
				Verifier: verify.Acceptance{}},
		},
		{
			name:     "command reviewer and debugger",
			executor: command,
			reviewer: &task.Component{Kind: task.KindCommand, Argv: []string{"./review"}, Env: map[string]string{"A": "1"}},
			debugger: &task.Component{Kind: task.KindCommand, Argv: []string{"./debug"}, Env: map[string]string{"B": "2"}},
			want: built{
				Executor: &executor.Command{Argv: []string{"sh", "agent.sh"}, Env: map[string]string{"K": "v"}},
				Reviewer: &verify.CommandReviewer{Argv: []string{"./review"}, Env: map[string]string{"A": "1"}},
				Debugger: &executor.CommandDebugger{Argv: []string{"./debug"}, Env: map[string]string{"B": "2"}},
				Verifier: verify.Acceptance{},
			},
		},
		{
			name:     "a git tree: the edit guardrail, commits, rollback and branch",
			executor: command,
			opts:     hist,
			git:      true,
			want: built{Executor: &executor.Command{Argv: []string{"sh", "agent.sh"}, Env: map[string]string{"K": "v"}}, Verifier: verify.Acceptance{},
				Guarded: true, CommitTasks: true, Rollback: true, Branch: "harnish/p-1"},
		},
		{
			name:     "not a git tree: the guardrail and rollback on the directory's snapshots, no commits or branch",
			executor: command,
			opts:     hist,
			want:     built{Executor: &executor.Command{Argv: []string{"sh", "agent.sh"}, Env: map[string]string{"K": "v"}}, Verifier: verify.Acceptance{}, Rollback: true},
		},
		{
			name:    "no executor",
			wantErr: "harnish: the plan names no executor (executor: {kind: command, argv: [...]})",
		},
		{
			name:     "unknown executor kind",
			executor: &task.Component{Kind: "gemini"},
			wantErr:  `harnish: executor kind "gemini" is not available in this harnish`,
		},
		{
			name:     "unknown reviewer kind",
			executor: command,
			reviewer: &task.Component{Kind: task.KindCodex},
			wantErr:  `harnish: reviewer kind "codex" is not available in this harnish; use kind command or plugin`,
		},
		{
			name:     "debugger of kind codex",
			executor: command,
			debugger: &task.Component{Kind: task.KindCodex},
			wantErr:  `harnish: debugger kind "codex" is not available in this harnish; use kind command or plugin`,
		},
		{
			name:     "a plugin the manifest does not list",
			executor: command,
			reviewer: plugin("absent"),
			manifest: true,
			wantErr:  `harnish: the plan names plugin "absent", which DIR/` + guardrail.PluginManifest + " does not list",
		},
		{
			name:     "plugins, and no manifest",
			executor: plugin("tp"),
			wantErr:  "harnish: the plan names plugins, and the plugin manifest DIR/" + guardrail.PluginManifest + " cannot be read: ",
		},
		{
			name:     "plugins from the manifest the options name",
			executor: plugin("tp"),
			opts:     harnish.Options{PluginManifest: "DIR/other.yaml"},
			manifest: true,
			wantErr:  "harnish: the plan names plugins, and the plugin manifest DIR/other.yaml cannot be read: ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.git {
				dir = testkit.GitTree(t)
			}
			if tt.manifest {
				if err := os.WriteFile(filepath.Join(dir, guardrail.PluginManifest), []byte(pluginManifest(t)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			plan := &task.Plan{Version: "1", Name: "p", Executor: tt.executor, Reviewer: tt.reviewer, Debugger: tt.debugger}
			tt.opts.Dir = dir
			tt.opts.PluginManifest = strings.ReplaceAll(tt.opts.PluginManifest, "DIR", dir)
			cfg, closer, err := harnish.Components(t.Context(), plan, tt.opts)
			if tt.wantErr != "" {
				if want := strings.ReplaceAll(tt.wantErr, "DIR", dir); err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("err = %v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer closer.Close()
			got := built{Executor: cfg.Executor, Reviewer: cfg.Reviewer, Debugger: cfg.Debugger, Verifier: cfg.Verifier, Guarded: cfg.Guardrail != nil,
				CommitTasks: cfg.CommitTasks, Rollback: cfg.Rollback, Branch: cfg.Branch}
			_, got.DirWorkspace = cfg.Workspace.(*loop.DirWorkspace)
			if !tt.git { // a plain directory: guarded through its snapshots
				tt.want.Guarded, tt.want.DirWorkspace = true, true
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("components (-want +got):\n%s", diff)
			}
			if cfg.Plan != plan || cfg.WorkDir != dir {
				t.Errorf("Plan, WorkDir = %p, %q; want %p, %q", cfg.Plan, cfg.WorkDir, plan, dir)
			}
		})
	}
}

// TestComponentsPlugins: components of kind plugin come from the manifest's
// plugin of that name, started for real; a plugin the plan does not name is
// not started (the broken one would fail).
// Kind acp is an acp.Executor of the agent named, judging by the plan; an
// agent with no profile is an error.
func TestComponentsACP(t *testing.T) {
	for _, tt := range []struct {
		c       *task.Component
		want    *acp.Executor
		wantErr string
	}{
		{c: &task.Component{Kind: task.KindACP, Agent: "gemini", Model: "m", Env: map[string]string{"K": "v"}},
			want: &acp.Executor{Agent: "gemini", Model: "m", Env: map[string]string{"K": "v"}}},
		{c: &task.Component{Kind: task.KindACP, Argv: []string{"my-agent", "--acp"}},
			want: &acp.Executor{Command: []string{"my-agent", "--acp"}}},
		{c: &task.Component{Kind: task.KindACP, Agent: "cursor"},
			wantErr: `harnish: executor agent "cursor": want one of claude, codex, gemini, or argv alone for another ACP agent`},
	} {
		plan := &task.Plan{Version: "1", Name: "p", Executor: tt.c}
		cfg, closer, err := harnish.Components(t.Context(), plan, harnish.Options{Dir: t.TempDir()})
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		closer.Close()
		got, ok := cfg.Executor.(*acp.Executor)
		if !ok || got.Plan != plan {
			t.Fatalf("executor %T, judging by the plan: %t", cfg.Executor, ok && got.Plan == plan)
		}
		g := *got
		g.Plan = nil
		if diff := cmp.Diff(tt.want, &g); diff != "" {
			t.Errorf("executor (-want +got):\n%s", diff)
		}
	}
}

func TestComponentsPlugins(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, guardrail.PluginManifest), []byte(pluginManifest(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	plugin := &task.Component{Kind: task.KindPlugin, Plugin: "tp"}
	plan := &task.Plan{Version: "1", Name: "p", Executor: plugin, Reviewer: plugin, Debugger: plugin,
		Advisor: &task.Advisor{Kind: task.KindPlugin, Plugin: "tp"}}
	cfg, closer, err := harnish.Components(t.Context(), plan, harnish.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	tk := &task.Task{ID: "T1", Title: "t"}
	res, err := cfg.Executor.Execute(t.Context(), &executor.Request{Task: tk, Attempt: 1, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := cfg.Reviewer.Review(t.Context(), &verify.ReviewRequest{Task: tk, Attempt: 1, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	diag, err := cfg.Debugger.Debug(t.Context(), &executor.DebugRequest{Task: tk, WorkDir: dir,
		Failures: []executor.Failure{{Attempt: 1, Fingerprint: "a"}, {Attempt: 2, Fingerprint: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	adv, err := cfg.Advisor.Advise(t.Context(), &executor.AdviceRequest{Task: tk, WorkDir: dir, Point: schema.AtPlateau})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{string(res.Status), res.Summary, rev.Findings[0].Message, diag.RootCause + ": " + diag.Fix, string(adv.Verdict) + " " + adv.Text}
	if diff := cmp.Diff([]string{"done", "the plugin did T1", "the plugin reviewed T1", "the plugin looked at T1: 2 failures",
		"PLAN the plugin advises on T1 at plateau"}, got); diff != "" {
		t.Errorf("the plugin's answers (-want +got):\n%s", diff)
	}
	if err := closer.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// A check of kind plugin runs the verifier plugin the manifest lists, in
// the check's directory, after the task's other checks; the plan's other
// components stay as they are.
func TestComponentsPluginCheck(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, guardrail.PluginManifest), []byte(pluginManifest(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "native"), 0o755)
	tk := task.Task{ID: "T1", Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}, {Plugin: "tp", Dir: "native"}}}
	plan := &task.Plan{Version: "1", Name: "p", Executor: &task.Component{Kind: task.KindCommand, Argv: []string{"true"}},
		Phases: []task.Phase{{ID: "a", Title: "A", Tasks: []task.Task{tk}}}}
	cfg, closer, err := harnish.Components(t.Context(), plan, harnish.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	rep, err := cfg.Verifier.Verify(t.Context(), &verify.Request{Task: &tk, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name)
	}
	if !rep.Passed || len(names) != 2 || names[1] != "the plugin verified T1 in native" {
		t.Errorf("report %+v: checks %q", rep, names)
	}

	// A plugin the manifest does not list is an error before anything runs.
	tk.Acceptance[1].Plugin = "absent"
	if _, _, err := harnish.Components(t.Context(), plan, harnish.Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), `plugin "absent"`) {
		t.Errorf("Components with an unlisted plugin check: %v", err)
	}
}
