package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/hooksock"
	"github.com/harnish/harnish/task"
)

const plan = `version: 1
name: hooks
phases:
  - id: p1
    tasks:
      - id: T1
        title: make a
        acceptance: [{sh: "test -f a.txt"}]
`

// answer is what one run of a hook binary gives back.
type answer struct {
	Code           int
	Stdout, Stderr string
	Log            []guardrail.HookRecord // the hook log, without times
}

// TestSameAsHarnishHook runs harnish-hook, as "harnish-hook hook ARGS" and
// "harnish-hook ARGS", and "harnish hook ARGS", as processes on the same
// input, and wants the same exit status, output and hook log from each;
// and the same again from harnish-hook inside a run, which sends a
// pre-tool-use call to the run's socket (the run judges it), and from
// harnish-hook given a socket that is gone (it judges itself).
func TestSameAsHarnishHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds harnish and harnish-hook")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator),
		"github.com/harnish/harnish/cmd/harnish", "github.com/harnish/harnish/cmd/harnish-hook")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	exe := func(name string) string { p, _ := exec.LookPath(filepath.Join(bin, name)); return p }
	harnish, hook := exe("harnish"), exe("harnish-hook")

	failing, passing := t.TempDir(), t.TempDir()
	for _, dir := range []string{failing, passing} {
		if err := os.WriteFile(filepath.Join(dir, "harnish.yaml"), []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(passing, "a.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(tool, command, cwd string) string {
		b, err := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": tool,
			"tool_input": map[string]any{"command": command}, "cwd": cwd})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	patch := "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n"
	tests := []struct {
		name     string
		args     []string
		stdin    string
		workdir  string // $HARNISH_WORKDIR
		wantCode int
		wantErr  string // a prefix of standard error
	}{
		{name: "blocked command", args: []string{"pre-tool-use", "--agent", "claude"},
			stdin: call("Bash", "rm -rf /", failing), workdir: failing, wantCode: 2,
			wantErr: "harnish guardrail fs.recursive-delete blocked this: "},
		{name: "bare shell for codex", args: []string{"pre-tool-use", "--agent", "codex"},
			stdin: call("Bash", "bash", failing), wantCode: 2,
			wantErr: "harnish guardrail shell.interactive blocked this: "},
		{name: "allowed patch", args: []string{"pre-tool-use", "--agent", "codex", "--plan", filepath.Join(failing, "harnish.yaml")},
			stdin: call("apply_patch", patch, failing), workdir: failing},
		{name: "allowed command", args: []string{"pre-tool-use", "--agent", "claude"},
			stdin: call("Bash", "go test ./...", passing), workdir: passing},
		{name: "allowed, outside any working tree", args: []string{"pre-tool-use", "--agent", "claude"},
			stdin: call("Bash", "go test ./...", passing)},
		{name: "undecodable input", args: []string{"pre-tool-use", "--agent", "claude"}, stdin: "{", workdir: failing, wantCode: 2,
			wantErr: "harnish: cannot judge the tool call: decoding the hook input: "},
		{name: "unknown agent", args: []string{"pre-tool-use", "--agent", "gemini"}, stdin: call("Bash", "ls", failing), workdir: failing,
			wantCode: 2, wantErr: "harnish: hook pre-tool-use: --agent \"gemini\": want claude or codex"},
		{name: "plan that does not load", args: []string{"pre-tool-use", "--agent", "codex", "--plan", filepath.Join(failing, "nothing.yaml")},
			stdin: call("Bash", "ls", failing), workdir: failing, wantCode: 2, wantErr: "harnish: cannot judge the tool call: the plan does not load: "},
		{name: "flags of another shape", args: []string{"pre-tool-use", "--plan=" + filepath.Join(failing, "harnish.yaml"), "-agent", "codex"},
			stdin: call("Bash", "git push --force", failing), workdir: failing, wantCode: 2, wantErr: "harnish guardrail git.force-push blocked this: "},
		{name: "relative plan file", args: []string{"pre-tool-use", "--agent", "codex", "--plan", "harnish.yaml"},
			stdin: call("Bash", "ls", failing), workdir: failing, wantCode: 2, wantErr: "harnish: cannot judge the tool call: the plan does not load: "},
		{name: "stop while the checks fail", args: []string{"stop", "--agent", "codex", "--task", "T1"},
			stdin: `{"hook_event_name":"Stop"}`, workdir: failing, wantCode: 2,
			wantErr: "harnish: task T1 is not done: its checks fail"},
		{name: "stop when they pass", args: []string{"stop", "--agent", "claude", "--task", "T1"},
			stdin: `{"hook_event_name":"Stop"}`, workdir: passing},
		{name: "stop for an unknown agent", args: []string{"stop", "--agent", "gemini"}, stdin: "{}", wantCode: 1,
			wantErr: "harnish hook stop: --agent must be claude or codex"},
		{name: "no event", stdin: "{}", wantCode: 2, wantErr: "harnish hook: want pre-tool-use or stop\n"},
		{name: "help", args: []string{"--help"}},
	}
	sock, judged := openRun(t)
	gone := filepath.Join(t.TempDir(), "gone.sock")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := map[string][]string{
				"harnish hook":      append([]string{harnish, "hook"}, tt.args...),
				"harnish-hook hook": append([]string{hook, "hook"}, tt.args...),
				"harnish-hook":      append([]string{hook}, tt.args...),
			}
			want := answerOf(t, runs["harnish hook"], tt.stdin, tt.workdir)
			if want.Code != tt.wantCode || !strings.HasPrefix(want.Stderr, tt.wantErr) || tt.wantErr == "" && want.Stderr != "" {
				t.Fatalf("harnish hook: exit %d, stderr %q; want %d, %q", want.Code, want.Stderr, tt.wantCode, tt.wantErr)
			}
			for _, name := range []string{"harnish-hook hook", "harnish-hook"} {
				if diff := cmp.Diff(want, answerOf(t, runs[name], tt.stdin, tt.workdir)); diff != "" {
					t.Errorf("%s answers otherwise than harnish hook (-harnish hook +%s):\n%s", name, name, diff)
				}
			}
			before := judged.Load()
			if diff := cmp.Diff(want, answerOf(t, runs["harnish-hook"], tt.stdin, tt.workdir, hooksock.EnvSocket+"="+sock)); diff != "" {
				t.Errorf("harnish-hook in a run answers otherwise than harnish hook (-harnish hook +in a run):\n%s", diff)
			}
			// Every pre-tool-use call with the working tree set, as the
			// executors set it, and arguments the run can read is the run's.
			wantJudged := len(tt.args) > 0 && tt.args[0] == "pre-tool-use" && tt.workdir != "" && tt.name != "relative plan file"
			if got := judged.Load() - before; got != map[bool]int64{true: 1}[wantJudged] {
				t.Errorf("the run judged %d calls, want the run to judge it: %v", got, wantJudged)
			}
			if diff := cmp.Diff(want, answerOf(t, runs["harnish-hook"], tt.stdin, tt.workdir, hooksock.EnvSocket+"="+gone)); diff != "" {
				t.Errorf("harnish-hook with its socket gone answers otherwise than harnish hook (-harnish hook +socket gone):\n%s", diff)
			}
		})
	}
	// The help is "harnish help hook".
	help, err := exec.Command(harnish, "help", "hook").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"help"}, {"-h"}, {"hook", "-h"}} {
		out, err := exec.Command(hook, args...).Output()
		if err != nil || string(out) != string(help) {
			t.Errorf("harnish-hook %s: %v, output:\n%s\nwant harnish help hook's:\n%s", strings.Join(args, " "), err, out, help)
		}
	}
}

// answerOf runs argv on stdin in an environment of its own, with a fresh
// hook log and $HARNISH_WORKDIR set to workdir.
func answerOf(t *testing.T, argv []string, stdin, workdir string, env ...string) answer {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "hooks.jsonl")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = t.TempDir()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HARNISH_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, guardrail.EnvHookLog+"="+logPath, "HARNISH_WORKDIR="+workdir)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	a := answer{}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("%s: %v", strings.Join(argv, " "), err)
		}
		a.Code = exit.ExitCode()
	}
	a.Stdout, a.Stderr = stdout.String(), stderr.String()
	if _, err := os.Stat(logPath); err == nil {
		recs, err := guardrail.ReadHookLog(logPath)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			r.Time = time.Time{}
			a.Log = append(a.Log, r)
		}
	}
	return a
}

// openRun opens a run, as "harnish run" does, in a directory of its own,
// and returns its hook socket and the count of the calls it judged.
func openRun(t testing.TB) (string, *atomic.Int64) {
	judged := new(atomic.Int64)
	logger := slog.New(handlerFunc(func(r slog.Record) {
		if r.Message == "harnish: answered a pre-tool-use hook" {
			judged.Add(1)
		}
	}))
	p := &task.Plan{Version: "1", Name: "run", Executor: &task.Component{Kind: task.KindCommand, Argv: []string{"true"}},
		Phases: []task.Phase{{ID: "p", Tasks: []task.Task{{ID: "T1", Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}}}}}}}
	r, err := harnish.Open(t.Context(), p, harnish.Options{Dir: t.TempDir(), NoAssets: true, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	sock := os.Getenv(hooksock.EnvSocket)
	if sock == "" {
		t.Fatal("the open run names no hook socket")
	}
	return sock, judged
}

// handlerFunc is a slog.Handler of every level that hands each record to
// its func.
type handlerFunc func(slog.Record)

func (h handlerFunc) Enabled(context.Context, slog.Level) bool      { return true }
func (h handlerFunc) Handle(_ context.Context, r slog.Record) error { h(r); return nil }
func (h handlerFunc) WithAttrs([]slog.Attr) slog.Handler            { return h }
func (h handlerFunc) WithGroup(string) slog.Handler                 { return h }
