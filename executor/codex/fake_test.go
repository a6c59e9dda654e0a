//go:build unix

package codex_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/task"
)

// fakeCodex is a codex stand-in: it records its arguments, environment,
// stdin and hooks.json in $FAKE_DIR, appends $FAKE_DIR/hooklog to the hook
// log (as hooks that ran would have), prints $FAKE_DIR/stream, lingers a
// minute if $FAKE_DIR/linger exists, and exits with $FAKE_DIR/exit. As
// "codex sandbox" it records its arguments in $FAKE_DIR/sandbox-args and
// fails with $FAKE_DIR/sandbox on stderr if that exists.
const fakeCodex = `#!/bin/sh
d="$FAKE_DIR"
if [ "$1" = sandbox ]; then
	printf '%s\n' "$@" > "$d/sandbox-args"
	if [ -f "$d/sandbox" ]; then cat "$d/sandbox" >&2; exit 1; fi
	exit 0
fi
printf '%s\n' "$@" > "$d/args"
env > "$d/env"
cat > "$d/stdin"
cp "$CODEX_HOME/hooks.json" "$d/hooks.json"
if [ -f "$d/hooklog" ]; then cat "$d/hooklog" >> "$HARNISH_HOOK_LOG"; fi
if [ -f "$d/hang" ]; then echo $$ > "$d/pid"; sleep 60 & echo $! > "$d/child"; wait; fi
cat "$d/stream"
if [ -f "$d/linger" ]; then sleep 60; fi
if [ -f "$d/signal" ]; then kill -9 $$; fi
exit $(cat "$d/exit" 2>/dev/null || echo 0)
`

// fake sets up a fake codex and returns the executor running it, the
// directory of its records, and a working tree.
func fake(t *testing.T) (*codex.Executor, string, string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "codex")
	if err := fsx.WriteExecutable(bin, []byte(fakeCodex), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := t.TempDir()
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &codex.Executor{Codex: bin, Harnish: "/bin/true", Env: map[string]string{"FAKE_DIR": rec}}, rec, work
}

func request(work string) *executor.Request {
	return &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 2, WorkDir: work, Prompt: "Do T1."}
}

// A stream, one event a line; W stands for the working tree.
const (
	started  = `{"type":"thread.started","thread_id":"x"}` + "\n" + `{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for ` + "`test-model`" + ` not found."}}` + "\n" + `{"type":"turn.started"}` + "\n"
	goTest   = `{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'go test ./...'","aggregated_output":"","exit_code":null,"status":"in_progress"}}` + "\n" + `{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'go test ./...'","aggregated_output":"ok\n","exit_code":0,"status":"completed"}}` + "\n"
	quoted   = `{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -lc 'echo '\"'\"'hi there'\"'\"' > x.txt'","aggregated_output":"","exit_code":0,"status":"completed"}}` + "\n"
	patch    = `{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"W/a.txt","kind":"add"},{"path":"W/b/c.txt","kind":"update"}],"status":"completed"}}` + "\n"
	turnDone = `{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":20,"output_tokens":30,"reasoning_output_tokens":0}}` + "\n"
)

func message(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "item.completed", "item": map[string]any{"id": "item_9", "type": "agent_message", "text": text}})
	return string(b) + "\n"
}

func record(cmd, level, rule string) string {
	b, _ := json.Marshal(map[string]any{"event": "pre-tool-use", "agent": "codex", "tool": "Bash", "command": cmd,
		"decision": map[string]any{"level": level, "rule": rule, "reason": "because " + rule}})
	return string(b) + "\n"
}

// TestExecuteStream reads canned event streams: the claim, the summary, the
// files, the usage, the hooks' verdicts, and the errors of a bad run.
func TestExecuteStream(t *testing.T) {
	applyPatch := "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b/c.txt\n@@\n-y\n+z\n*** End Patch\nPATCH"
	allSeen := record("go test ./...", "allow", "") + record("echo 'hi there' > x.txt", "allow", "") + record(applyPatch, "allow", "")
	tests := []struct {
		name    string
		stream  string
		hooklog string
		exit    string
		want    *executor.Result
		kind    executor.ErrorKind // with wantErr
		wantErr bool
		tail    string // the error's tail contains it
		errMsg  string // the error contains it
		usage   executor.Usage
	}{
		{name: "done", stream: started + goTest + quoted + patch + message("Added a.txt.\n") + turnDone + turnDone, hooklog: allSeen,
			want: &executor.Result{Status: executor.StatusDone, Summary: "Added a.txt.", FilesChanged: []string{"a.txt", "b/c.txt"},
				Usage: executor.Usage{InputTokens: 200, OutputTokens: 60}}},
		{name: "blocked", stream: started + message("I tried.\nHARNISH-BLOCKED: the API key is missing") + turnDone,
			want: &executor.Result{Status: executor.StatusBlocked, Reason: "the API key is missing",
				Summary: "I tried.\nHARNISH-BLOCKED: the API key is missing", Usage: executor.Usage{InputTokens: 100, OutputTokens: 30}}},
		{name: "hooks never ran", stream: started + goTest + patch + message("done") + turnDone,
			want: &executor.Result{Status: executor.StatusDone, Summary: "done", FilesChanged: []string{"a.txt", "b/c.txt"},
				Usage: executor.Usage{InputTokens: 100, OutputTokens: 30}, Violations: []executor.Violation{
					{Hard: true, Rule: "hook.unguarded", Action: "go test ./..."},
					{Hard: true, Rule: "hook.unguarded", Action: "a.txt"},
					{Hard: true, Rule: "hook.unguarded", Action: "b/c.txt"},
				}}},
		{name: "hook verdicts", stream: started + goTest + message("done") + turnDone,
			hooklog: record("curl x", "soft", "shell.network") + record("go test ./...", "allow", "") + record("rm -r src", "hard", "fs.recursive-delete"),
			want: &executor.Result{Status: executor.StatusDone, Summary: "done", Usage: executor.Usage{InputTokens: 100, OutputTokens: 30},
				Violations: []executor.Violation{
					{Rule: "shell.network", Reason: "because shell.network", Action: "curl x"},
					{Hard: true, Rule: "fs.recursive-delete", Reason: "because fs.recursive-delete", Action: "rm -r src"},
				}}},
		{name: "garbage", stream: started + "this is not JSON\n" + turnDone, wantErr: true, kind: executor.KindProtocol,
			tail: "this is not JSON", errMsg: "does not parse at line 4", usage: executor.Usage{InputTokens: 100, OutputTokens: 30}},
		{name: "no turn.completed", stream: started + message("done"), wantErr: true, kind: executor.KindProtocol,
			errMsg: "no turn.completed"},
		{name: "turn failed", stream: started + turnDone + `{"type":"turn.failed","error":{"message":"model overloaded"}}` + "\n", exit: "1",
			wantErr: true, kind: executor.KindCrashed, errMsg: "model overloaded", tail: "turn.failed",
			usage: executor.Usage{InputTokens: 100, OutputTokens: 30}},
		{name: "unguarded crash", stream: started + goTest, exit: "3", wantErr: true, kind: executor.KindCrashed, errMsg: "exit status 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ex, rec, work := fake(t)
			write(t, filepath.Join(rec, "stream"), strings.ReplaceAll(tt.stream, `"W/`, `"`+work+`/`))
			write(t, filepath.Join(rec, "hooklog"), tt.hooklog)
			if tt.exit != "" {
				write(t, filepath.Join(rec, "exit"), tt.exit)
			}
			res, err := ex.Execute(context.Background(), request(work))
			if tt.wantErr {
				ee, ok := errors.AsType[*executor.Error](err)
				if !ok || ee.Kind != tt.kind {
					t.Fatalf("Execute = %+v, %v; want an *executor.Error of kind %s", res, err, tt.kind)
				}
				if !strings.Contains(ee.Tail, tt.tail) || !strings.Contains(err.Error(), tt.errMsg) {
					t.Errorf("error %q with tail %q; want %q in the error and %q in the tail", err, ee.Tail, tt.errMsg, tt.tail)
				}
				if ee.Usage != tt.usage {
					t.Errorf("usage so far %+v, want %+v", ee.Usage, tt.usage)
				}
				if tt.name == "unguarded crash" && (len(ee.Violations) != 1 || ee.Violations[0].Rule != "hook.unguarded") {
					t.Errorf("a crash after an unguarded command: violations %+v", ee.Violations)
				}
				return
			}
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			for i := range res.Violations {
				if res.Violations[i].Rule == "hook.unguarded" {
					res.Violations[i].Reason = ""
				}
			}
			if diff := cmp.Diff(tt.want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExecuteInvocation: how codex is started: its arguments, environment,
// prompt and hooks; and that its CODEX_HOME is gone afterwards.
func TestExecuteInvocation(t *testing.T) {
	ex, rec, work := fake(t)
	ex.PlanFile = "plan.yaml"
	ex.Model = "m1"
	ex.Provider = &codex.Provider{Name: "gw", BaseURL: "http://127.0.0.1:1/v1", EnvKey: "GW_KEY", Options: map[string]string{"request_max_retries": "0"}}
	ex.Env["HOME"] = "/nonexistent-home"
	ex.TranscriptDir = filepath.Join(t.TempDir(), "transcripts")
	write(t, filepath.Join(rec, "stream"), started+message("ok")+turnDone)
	res, err := ex.Execute(context.Background(), request(work))
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(rec, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	wantArgs := []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "--color", "never",
		"-C", work, "-s", "workspace-write", "-c", `approval_policy="never"`,
		"-c", `model_provider="gw"`, "-c", `model_providers.gw.name="gw"`, "-c", `model_providers.gw.base_url="http://127.0.0.1:1/v1"`,
		"-c", `model_providers.gw.wire_api="responses"`, "-c", `model_providers.gw.env_key="GW_KEY"`,
		"-c", "model_providers.gw.request_max_retries=0", "-m", "m1", "-"}
	if diff := cmp.Diff(wantArgs, strings.Split(strings.TrimSuffix(read("args"), "\n"), "\n")); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(read("env"), "\n") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for k, want := range map[string]string{"HARNISH_TASK_ID": "T1", "HARNISH_PHASE_ID": "p1", "HARNISH_ATTEMPT": "2",
		"HARNISH_WORKDIR": work, "HOME": "/nonexistent-home"} {
		if env[k] != want {
			t.Errorf("$%s = %q, want %q", k, env[k], want)
		}
	}
	home, hookLog := env["CODEX_HOME"], env["HARNISH_HOOK_LOG"]
	if home == "" || hookLog == "" {
		t.Fatalf("CODEX_HOME %q, HARNISH_HOOK_LOG %q", home, hookLog)
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("CODEX_HOME %s is left behind: %v", home, err)
	}
	// Codex makes its sandbox helpers in CODEX_HOME only if it is not inside
	// the temp dir: TMPDIR is a directory of the run's own, beside it.
	if tmp := env["TMPDIR"]; tmp == "" || filepath.Dir(tmp) != filepath.Dir(home) || tmp == home {
		t.Errorf("TMPDIR %q, want a directory beside CODEX_HOME %q", tmp, home)
	} else if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("TMPDIR %s is left behind: %v", tmp, err)
	}
	if got := read("stdin"); !strings.HasPrefix(got, "Do T1.\n\n") || !strings.Contains(got, "HARNISH-BLOCKED: <what you need>") {
		t.Errorf("prompt on stdin:\n%s", got)
	}
	plan := filepath.Join(work, "plan.yaml")
	// No deadline: each hook may run agent.DefaultHookTimeout.
	wantHooks := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/bin/true hook pre-tool-use --agent codex --plan ` + plan + `","timeout":1800}]}],` +
		`"Stop":[{"hooks":[{"type":"command","command":"/bin/true hook stop --agent codex --plan ` + plan + `","timeout":1800}]}]}}`
	if got := read("hooks.json"); got != wantHooks {
		t.Errorf("hooks.json:\n%s\nwant\n%s", got, wantHooks)
	}
	if filepath.Dir(res.Transcript) != ex.TranscriptDir || !strings.HasPrefix(filepath.Base(res.Transcript), "codex-T1-2-") {
		t.Errorf("transcript at %q", res.Transcript)
	} else if b, _ := os.ReadFile(res.Transcript); !strings.HasPrefix(string(b), `{"harnish":"attempt","agent":"codex","task":"T1","attempt":2,`) ||
		!strings.HasSuffix(string(b), "\n"+started+message("ok")+turnDone+`{"harnish":"exit","exit_code":0}`+"\n") {
		t.Errorf("transcript (the stream between harnish's first and last lines):\n%s", b)
	}
}

// noNamespace is a command that the sandbox could not start, as Codex
// 0.169.0 reports it where bubblewrap may not create user namespaces.
func noNamespace(id, command string) string {
	b, _ := json.Marshal(map[string]any{"type": "item.completed", "item": map[string]any{"id": id, "type": "command_execution",
		"command": "/bin/bash -lc '" + command + "'", "exit_code": 1, "status": "failed",
		"aggregated_output": "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)\n"}})
	return string(b) + "\n"
}

// TestExecuteSandboxFailure: a command whose output looks like the sandbox
// failing to start makes the executor start the sandbox itself; if it
// cannot, the run is stopped (it lingers here) and the attempt is
// unavailable, with a [*codex.SandboxError] naming the cause. A failed patch
// makes it look too. A command that runs bwrap itself, or any command when
// there is no sandbox, only failed.
func TestExecuteSandboxFailure(t *testing.T) {
	seen := record("go test ./...", "allow", "") + record("bwrap --ro-bind / / true", "allow", "")
	const said = "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)"
	failedPatch := `{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"W/a.txt","kind":"add"}],"status":"failed"}}` + "\n"
	tests := []struct {
		name     string
		bypass   bool
		mode     string
		stream   string
		cannot   bool                // codex sandbox fails
		want     *codex.SandboxError // nil: no error
		probe    []string            // the probe's arguments; nil: no probe
		lingered bool                // the run is stopped, not over
	}{
		{name: "workspace-write", stream: started + noNamespace("item_1", "go test ./...") + message("done") + turnDone, cannot: true,
			want:  &codex.SandboxError{Mode: "workspace-write", Command: "go test ./...", Message: said},
			probe: []string{"sandbox", "-P", ":workspace", "-C", "W", "--", "true"}, lingered: true},
		{name: "read-only", mode: codex.SandboxReadOnly, stream: started + noNamespace("item_1", "go test ./...") + message("done") + turnDone, cannot: true,
			want:  &codex.SandboxError{Mode: "read-only", Command: "go test ./...", Message: said},
			probe: []string{"sandbox", "-P", ":read-only", "-C", "W", "--", "true"}, lingered: true},
		{name: "patch", stream: started + failedPatch + message("done") + turnDone, cannot: true,
			want:  &codex.SandboxError{Mode: "workspace-write", Message: said},
			probe: []string{"sandbox", "-P", ":workspace", "-C", "W", "--", "true"}},
		{name: "the sandbox starts", stream: started + noNamespace("item_1", "go test ./...") + message("done") + turnDone,
			probe: []string{"sandbox", "-P", ":workspace", "-C", "W", "--", "true"}},
		{name: "the agent's own bwrap", stream: started + noNamespace("item_1", "bwrap --ro-bind / / true") + message("done") + turnDone, cannot: true},
		{name: "bypass", bypass: true, stream: started + noNamespace("item_1", "go test ./...") + failedPatch + message("done") + turnDone, cannot: true},
		{name: "full access", mode: codex.SandboxFullAccess, stream: started + noNamespace("item_1", "go test ./...") + message("done") + turnDone, cannot: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ex, rec, work := fake(t)
			ex.Bypass, ex.Sandbox = tt.bypass, tt.mode
			write(t, filepath.Join(rec, "stream"), strings.ReplaceAll(tt.stream, `"W/`, `"`+work+`/`))
			write(t, filepath.Join(rec, "hooklog"), seen)
			if tt.cannot {
				write(t, filepath.Join(rec, "sandbox"), "WARNING: a warning first\n"+said+"\n")
			}
			if tt.lingered {
				write(t, filepath.Join(rec, "linger"), "")
			}
			start := time.Now()
			res, err := ex.Execute(context.Background(), request(work))
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("Execute took %v: the run was not stopped", d)
			}
			var probe []string
			if b, err := os.ReadFile(filepath.Join(rec, "sandbox-args")); err == nil {
				probe = strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(b), work, "W"), "\n"), "\n")
			}
			if diff := cmp.Diff(tt.probe, probe); diff != "" {
				t.Errorf("probe arguments (-want +got):\n%s", diff)
			}
			if tt.want == nil {
				if err != nil || res.Status != executor.StatusDone {
					t.Fatalf("Execute = %+v, %v; want done", res, err)
				}
				return
			}
			ee, ok := errors.AsType[*executor.Error](err)
			if !ok || ee.Kind != executor.KindUnavailable || ee.Retryable() {
				t.Fatalf("Execute = %+v, %v; want an *executor.Error of kind unavailable", res, err)
			}
			se, ok := errors.AsType[*codex.SandboxError](err)
			if !ok {
				t.Fatalf("%v: no *codex.SandboxError", err)
			}
			if diff := cmp.Diff(tt.want, se); diff != "" {
				t.Errorf("sandbox error (-want +got):\n%s", diff)
			}
			if msg := err.Error(); !strings.Contains(msg, "sandbox cannot start") || !strings.Contains(msg, "user namespaces") {
				t.Errorf("error %q does not name the cause", msg)
			}
		})
	}
}

// TestExecuteBypass: the opt-in to no sandbox replaces the sandbox flags.
func TestExecuteBypass(t *testing.T) {
	ex, rec, work := fake(t)
	ex.Bypass = true
	write(t, filepath.Join(rec, "stream"), started+message("ok")+turnDone)
	if _, err := ex.Execute(context.Background(), request(work)); err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(filepath.Join(rec, "args"))
	if !strings.Contains(string(args), "--dangerously-bypass-approvals-and-sandbox\n") || strings.Contains(string(args), "approval_policy") {
		t.Errorf("args:\n%s", args)
	}
}

// TestExecuteHang: a codex that outlives the deadline is killed with its
// whole process tree, and the attempt is a timeout.
func TestExecuteHang(t *testing.T) {
	ex, rec, work := fake(t)
	write(t, filepath.Join(rec, "stream"), started)
	write(t, filepath.Join(rec, "hang"), "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := ex.Execute(ctx, request(work))
	if ee, ok := errors.AsType[*executor.Error](err); !ok || ee.Kind != executor.KindTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Execute: %v; want a timeout wrapping the context's cause", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Execute returned after %s", d)
	}
	for _, name := range []string{"pid", "child"} {
		b, err := os.ReadFile(filepath.Join(rec, name))
		if err != nil {
			t.Fatal(err)
		}
		var pid int
		if _, err := fmtSscan(string(b), &pid); err != nil {
			t.Fatal(err)
		}
		if alive(pid) {
			t.Errorf("process %s %d is still running after the timeout", name, pid)
		}
	}
}

// TestExecuteSignal: a codex killed by a signal is a crash.
func TestExecuteSignal(t *testing.T) {
	ex, rec, work := fake(t)
	write(t, filepath.Join(rec, "stream"), started)
	write(t, filepath.Join(rec, "signal"), "")
	_, err := ex.Execute(context.Background(), request(work))
	if ee, ok := errors.AsType[*executor.Error](err); !ok || ee.Kind != executor.KindCrashed || !strings.Contains(ee.Tail, "thread.started") {
		t.Fatalf("Execute: %v; want a crash with the stream's tail", err)
	}
}

// TestExecuteUnavailable: a missing codex or harnish, or a bad provider,
// stops before anything runs, and is not retryable.
func TestExecuteUnavailable(t *testing.T) {
	work := t.TempDir()
	tests := []struct {
		name string
		ex   *codex.Executor
	}{
		{"no codex", &codex.Executor{Codex: filepath.Join(work, "no-codex"), Harnish: "/bin/true"}},
		{"codex not in PATH", &codex.Executor{Codex: "harnish-no-such-codex", Harnish: "/bin/true"}},
		{"no harnish", &codex.Executor{Codex: "/bin/true", Harnish: filepath.Join(work, "no-harnish")}},
		{"provider without URL", &codex.Executor{Codex: "/bin/true", Harnish: "/bin/true", Provider: &codex.Provider{Name: "x"}}},
		{"provider name with a dot", &codex.Executor{Codex: "/bin/true", Harnish: "/bin/true", Provider: &codex.Provider{Name: "a.b", BaseURL: "http://x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.ex.Execute(context.Background(), request(work))
			if !errors.Is(err, executor.ErrUnavailable) || executor.IsRetryable(err) {
				t.Errorf("Execute: %v; want unavailable, not retryable", err)
			}
		})
	}
}

func fmtSscan(s string, pid *int) (int, error) { return fmt.Sscan(strings.TrimSpace(s), pid) }

// alive reports whether pid runs: it exists and is not a zombie waiting for
// a parent (in a container, PID 1 may never reap it).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc to tell: count it as running
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// TestExecuteCancelled: a run the caller cancels is not a timeout: the
// error is the context's cause, not a retryable *executor.Error; a deadline
// stays a timeout.
func TestExecuteCancelled(t *testing.T) {
	stopped := errors.New("stopped by the test")
	tests := []struct {
		name    string
		ctx     func() (context.Context, func())
		timeout bool
		cause   error
	}{
		{"cancelled", func() (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(context.Background())
			time.AfterFunc(time.Second, func() { cancel(stopped) })
			return ctx, func() { cancel(nil) }
		}, false, stopped},
		{"deadline", func() (context.Context, func()) {
			return context.WithTimeout(context.Background(), time.Second)
		}, true, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, rec, work := fake(t)
			write(t, filepath.Join(rec, "stream"), started)
			write(t, filepath.Join(rec, "hang"), "")
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err := ex.Execute(ctx, request(work))
			_, isExec := errors.AsType[*executor.Error](err)
			if isExec != tt.timeout || errors.Is(err, executor.ErrTimeout) != tt.timeout || !errors.Is(err, tt.cause) {
				t.Errorf("Execute: %v (an *executor.Error: %v); want a timeout: %v, wrapping %v", err, isExec, tt.timeout, tt.cause)
			}
			if executor.IsRetryable(err) != tt.timeout {
				t.Errorf("Execute: %v: retryable %v", err, executor.IsRetryable(err))
			}
		})
	}
}

// TestExecuteRelativeWorkDir: the hooks get the working tree as an absolute
// $HARNISH_WORKDIR, whatever the request gives.
func TestExecuteRelativeWorkDir(t *testing.T) {
	for _, name := range []string{"relative", "empty"} {
		t.Run(name, func(t *testing.T) {
			ex, rec, work := fake(t)
			write(t, filepath.Join(rec, "stream"), started+message("ok")+turnDone)
			req := request(filepath.Base(work))
			t.Chdir(filepath.Dir(work))
			if name == "empty" {
				req.WorkDir = ""
				t.Chdir(work)
			}
			if _, err := ex.Execute(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(rec, "env"))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(strings.Split(string(b), "\n"), "HARNISH_WORKDIR="+work) {
				t.Errorf("env lacks HARNISH_WORKDIR=%s:\n%s", work, b)
			}
		})
	}
}
