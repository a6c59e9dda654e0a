//go:build unix

package claude_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/claude"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/task"
)

// fakeClaude writes a shell script standing in for Claude Code and returns
// its path. The script runs in the working tree with the executor's
// environment.
func fakeClaude(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude")
	if err := fsx.WriteExecutable(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// hookRecord is the shell line that logs a pre-tool-use record, as the hook
// would.
func hookRecord(tool, field, value, level string) string {
	r := guardrail.HookRecord{Event: guardrail.HookPreToolUse, Agent: "claude", Tool: tool}
	switch field {
	case "command":
		r.Command = value
	case "path":
		r.Path = value
	}
	if level == "hard" {
		r.Decision = guardrail.Decision{Level: guardrail.Hard, Rule: "shell.test", Reason: "blocked for the test"}
	} else if level == "soft" {
		r.Decision = guardrail.Decision{Level: guardrail.Soft, Rule: "shell.warn", Reason: "warned for the test"}
	}
	b, _ := json.Marshal(r)
	return "printf '%s\\n' '" + string(b) + `' >> "$HARNISH_HOOK_LOG"`
}

const (
	lineInit   = `{"type":"system","subtype":"init","cwd":"/w","tools":["Bash"]}`
	lineResult = `{"type":"result","subtype":"success","is_error":false,"result":"All done.","total_cost_usd":0.0125,` +
		`"usage":{"input_tokens":100,"cache_creation_input_tokens":20,"cache_read_input_tokens":5,"output_tokens":40}}`
)

// emit is the shell line that prints a stream line.
func emit(line string) string { return "printf '%s\\n' '" + line + "'" }

func request(dir string) *executor.Request {
	return &executor.Request{Task: &task.Task{ID: "T1", Title: "t"}, PhaseID: "p1", Attempt: 2, WorkDir: dir, Prompt: "Do the thing."}
}

func TestExecuteResults(t *testing.T) {
	tests := []struct {
		name   string
		script []string // shell lines; $PWD is the working tree
		want   executor.Result
	}{
		{
			name:   "usage and cost from the result event",
			script: []string{emit(lineInit), emit(lineResult)},
			want: executor.Result{Status: executor.StatusDone, Summary: "All done.",
				Usage: executor.Usage{InputTokens: 125, OutputTokens: 40, CostUSD: 0.0125}},
		},
		{
			name: "files changed by edit tools, relative and once each",
			script: []string{
				emit(lineInit),
				`W="$PWD"`,
				hookRecord("Write", "path", "a/b.txt", ""),
				hookRecord("Edit", "path", "c.txt", ""),
				hookRecord("Write", "path", "/elsewhere/x.txt", ""),
				hookRecord("Write", "path", "refused.txt", ""),
				hookRecord("MultiEdit", "path", "a/b.txt", ""),
				`printf '%s\n' '{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":1,"output_tokens":1},"content":[` +
					`{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"'"$W"'/a/b.txt","content":"x"}},` +
					`{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"'"$W"'/c.txt","old_string":"a","new_string":"b"}},` +
					`{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":"/elsewhere/x.txt","content":"x"}},` +
					`{"type":"tool_use","id":"t4","name":"Write","input":{"file_path":"'"$W"'/refused.txt","content":"x"}},` +
					`{"type":"tool_use","id":"t5","name":"MultiEdit","input":{"file_path":"'"$W"'/a/b.txt","edits":[]}}]}}'`,
				emit(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},` +
					`{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"ok"}]},` +
					`{"type":"tool_result","tool_use_id":"t3","content":"ok"},` +
					`{"type":"tool_result","tool_use_id":"t4","content":"no","is_error":true},` +
					`{"type":"tool_result","tool_use_id":"t5","content":"ok"}]}}`),
				emit(`{"type":"result","subtype":"success","result":"Wrote them.","usage":{"input_tokens":1,"output_tokens":2}}`),
			},
			want: executor.Result{Status: executor.StatusDone, Summary: "Wrote them.", FilesChanged: []string{"a/b.txt", "c.txt"},
				Usage: executor.Usage{InputTokens: 1, OutputTokens: 2}},
		},
		{
			name: "blocked claim",
			script: []string{emit(`{"type":"result","subtype":"success","result":"I tried.\nHARNISH-BLOCKED: need the API token",` +
				`"usage":{"input_tokens":3,"output_tokens":4}}`)},
			want: executor.Result{Status: executor.StatusBlocked, Reason: "need the API token",
				Summary: "I tried.\nHARNISH-BLOCKED: need the API token", Usage: executor.Usage{InputTokens: 3, OutputTokens: 4}},
		},
		{
			name: "hook decisions become violations",
			script: []string{
				hookRecord("Bash", "command", "curl x", "soft"),
				hookRecord("Bash", "command", "rm -rf /", "hard"),
				emit(`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"curl x"}},` +
					`{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"rm -rf /"}}]}}`),
				emit(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},` +
					`{"type":"tool_result","tool_use_id":"t2","content":"blocked","is_error":true}]}}`),
				emit(`{"type":"result","subtype":"success","result":"ok"}`),
			},
			want: executor.Result{Status: executor.StatusDone, Summary: "ok", Violations: []executor.Violation{
				{Rule: "shell.warn", Reason: "warned for the test", Action: "curl x"},
				{Hard: true, Rule: "shell.test", Reason: "blocked for the test", Action: "rm -rf /"},
			}},
		},
		{
			name: "calls rejected before the hooks, and events that are not messages",
			script: []string{
				emit(`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/w/a.txt"}},` +
					`{"type":"tool_use","id":"t2","name":"WebFetch","input":{"url":"http://x"}}]}}`),
				emit(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,` +
					`"content":"<tool_use_error>File has not been read yet.</tool_use_error>"}]}}`),
				emit(`{"type":"system","subtype":"permission_denied","tool_name":"WebFetch","message":"not granted"}`),
				emit(`{"type":"system","subtype":"hook_response","message":{"weird":true}}`),
				emit(`{"type":"result","subtype":"success","result":"ok"}`),
			},
			want: executor.Result{Status: executor.StatusDone, Summary: "ok"},
		},
		{
			name: "a command the hook never saw ran unguarded",
			script: []string{
				emit(`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}},` +
					`{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/etc/hosts"}}]}}`),
				emit(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},` +
					`{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}}`),
				emit(`{"type":"result","subtype":"success","result":"ok"}`),
			},
			want: executor.Result{Status: executor.StatusDone, Summary: "ok", Violations: []executor.Violation{{Hard: true,
				Rule: "hook.unguarded", Action: "make",
				Reason: "the agent ran a command harnish's pre-tool-use hook never judged: its hooks did not run"}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ex := &claude.Executor{Claude: fakeClaude(t, strings.Join(tc.script, "\n")), Harnish: harnishBin}
			got, err := ex.Execute(t.Context(), request(dir))
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExecuteErrors(t *testing.T) {
	tests := []struct {
		name      string
		script    []string
		kind      executor.ErrorKind
		tail      string // in the error's tail
		msg       string // in the error's message
		usage     executor.Usage
		violation string // rule of a violation the error carries
	}{
		{
			name:   "unparsable stream",
			script: []string{emit(lineInit), "echo 'this is not JSON'", emit(lineResult)},
			kind:   executor.KindProtocol, tail: "this is not JSON", msg: "line 2 of the stream does not parse",
			usage: executor.Usage{InputTokens: 125, OutputTokens: 40, CostUSD: 0.0125},
		},
		{
			name:   "an assistant message that does not decode",
			script: []string{emit(`{"type":"assistant","message":"text"}`), emit(lineResult)},
			kind:   executor.KindProtocol, msg: "line 1 of the stream: the assistant message does not decode",
			usage: executor.Usage{InputTokens: 125, OutputTokens: 40, CostUSD: 0.0125},
		},
		{
			name:   "no result event",
			script: []string{emit(lineInit)},
			kind:   executor.KindProtocol, tail: `"subtype":"init"`, msg: "without a result event",
		},
		{
			name: "crash, with usage so far",
			script: []string{emit(`{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":7,"output_tokens":1},"content":[]}}`),
				emit(`{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":7,"output_tokens":3},"content":[]}}`),
				emit(`{"type":"assistant","message":{"id":"m2","usage":{"input_tokens":10,"output_tokens":5},"content":[]}}`),
				"echo 'fatal: out of memory' >&2", "exit 3"},
			kind: executor.KindCrashed, tail: "out of memory", msg: "exit status 3",
			usage: executor.Usage{InputTokens: 17, OutputTokens: 8},
		},
		{
			name:   "killed by a signal",
			script: []string{emit(lineInit), "kill -9 $$"},
			kind:   executor.KindCrashed, msg: "signal: killed",
		},
		{
			name: "result event with is_error",
			script: []string{emit(`{"type":"result","subtype":"error_during_execution","is_error":true,"result":"",` +
				`"errors":["tool loop broke"],"total_cost_usd":0.5,"usage":{"input_tokens":9,"output_tokens":9}}`), "exit 1"},
			kind: executor.KindCrashed, msg: "error_during_execution", tail: "tool loop broke",
			usage: executor.Usage{InputTokens: 9, OutputTokens: 9, CostUSD: 0.5},
		},
		{
			name: "refused credentials",
			script: []string{emit(`{"type":"result","subtype":"success","is_error":true,"api_error_status":401,` +
				`"result":"Invalid API key"}`), "exit 1"},
			kind: executor.KindUnavailable, msg: "API error status 401: Invalid API key",
		},
		{
			name: "an unguarded command on a crash",
			script: []string{
				emit(`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}`),
				emit(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`),
				"exit 1"},
			kind: executor.KindCrashed, violation: "hook.unguarded",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ex := &claude.Executor{Claude: fakeClaude(t, strings.Join(tc.script, "\n")), Harnish: harnishBin}
			res, err := ex.Execute(t.Context(), request(t.TempDir()))
			ee, ok := errors.AsType[*executor.Error](err)
			if !ok {
				t.Fatalf("Execute = %+v, %v; want an *executor.Error", res, err)
			}
			if ee.Kind != tc.kind || !strings.Contains(ee.Tail, tc.tail) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q (kind %s), tail:\n%s\nwant kind %s, %q in the message, %q in the tail", err, ee.Kind, ee.Tail, tc.kind, tc.msg, tc.tail)
			}
			if ee.Usage != tc.usage {
				t.Errorf("usage %+v, want %+v", ee.Usage, tc.usage)
			}
			if got := len(ee.Violations) > 0 && ee.Violations[0].Rule == tc.violation; got != (tc.violation != "") {
				t.Errorf("violations %+v, want rule %q", ee.Violations, tc.violation)
			}
		})
	}
}

// A Claude Code that hangs past the deadline is ended, its children with it.
func TestExecuteTimeout(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	ex := &claude.Executor{Harnish: harnishBin, Claude: fakeClaude(t,
		emit(lineInit)+"\nsleep 300 &\necho $$ $! > "+pids+"\nwait")}
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ex.Execute(ctx, request(t.TempDir()))
	if !errors.Is(err, executor.ErrTimeout) {
		t.Fatalf("Execute: %v, want a timeout", err)
	}
	if ee, _ := errors.AsType[*executor.Error](err); !strings.Contains(ee.Tail, `"init"`) {
		t.Errorf("tail %q lacks the stream", ee.Tail)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Execute took %s after the deadline", d)
	}
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		if !gone(pid) {
			t.Errorf("process %d is still running", pid)
		}
	}
}

// gone reports whether the process has ended within a few seconds: it no
// longer exists, or is a zombie nobody reaped (in a container without an
// init, an orphan stays one).
func gone(pid int) bool {
	for range 50 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return syscall.Kill(pid, 0) != nil
		}
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

func TestExecuteUnavailable(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	tests := []struct {
		name string
		ex   *claude.Executor
		want string
	}{
		{"claude not on PATH", &claude.Executor{Harnish: harnishBin}, "claude"},
		{"harnish missing", &claude.Executor{Claude: fakeClaude(t, "exit 0"), Harnish: filepath.Join(empty, "harnish")}, "harnish"},
		{"working tree missing", &claude.Executor{Claude: fakeClaude(t, "exit 0"), Harnish: harnishBin}, "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := request(empty)
			if tc.want == "nope" {
				req.WorkDir = filepath.Join(empty, "nope")
			}
			_, err := tc.ex.Execute(t.Context(), req)
			if !errors.Is(err, executor.ErrUnavailable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Execute: %v, want unavailable naming %s", err, tc.want)
			}
			if executor.IsRetryable(err) {
				t.Errorf("%v is retryable", err)
			}
		})
	}
}

// The invocation: argv, environment, hook settings, prompt on stdin, a HOME
// of its own removed afterwards, and the stream kept as the transcript.
func TestExecuteInvocation(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	dir := t.TempDir()
	script := strings.Join([]string{
		`for a in "$@"; do printf '%s\n' "$a"; done > ` + out + `/argv`,
		`cat > ` + out + `/stdin`,
		`env > ` + out + `/env`,
		`echo "$HOME" > ` + out + `/home`,
		emit(lineResult),
	}, "\n")
	ex := &claude.Executor{Claude: fakeClaude(t, script), Harnish: harnishBin, PlanFile: "/plans/my plan.yaml",
		Model: "claude-test", PermissionMode: "acceptEdits", Env: map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:1"},
		TranscriptDir: filepath.Join(out, "transcripts")}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	res, err := ex.Execute(ctx, request(dir))
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	argv := strings.Split(strings.TrimSuffix(read("argv"), "\n"), "\n")
	var settings string
	for i, a := range argv {
		if a == "--settings" && i+1 < len(argv) {
			settings = argv[i+1]
			argv[i+1] = "SETTINGS"
		}
	}
	wantArgv := []string{"-p", "--output-format", "stream-json", "--verbose", "--no-session-persistence",
		"--settings", "SETTINGS", "--allowedTools=Bash,Write,Edit,MultiEdit,NotebookEdit",
		"--permission-mode", "acceptEdits", "--model", "claude-test"}
	if diff := cmp.Diff(wantArgv, argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal([]byte(settings), &s); err != nil {
		t.Fatalf("settings %s: %v", settings, err)
	}
	wantHooks := map[string]string{
		"PreToolUse": harnishBin + " hook pre-tool-use --agent claude --plan '/plans/my plan.yaml'",
		"Stop":       harnishBin + " hook stop --agent claude --plan '/plans/my plan.yaml'",
	}
	for event, want := range wantHooks {
		if h := s.Hooks[event]; len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Command != want || h[0].Hooks[0].Type != "command" {
			t.Errorf("%s hooks %+v, want the command %s", event, h, want)
		} else if to := h[0].Hooks[0].Timeout; to < 590 || to > 600 {
			t.Errorf("%s hook timeout %ds, want the attempt's time left, 600s", event, to)
		}
	}
	if !strings.HasPrefix(read("stdin"), "Do the thing.\n") || !strings.Contains(read("stdin"), "HARNISH-BLOCKED:") {
		t.Errorf("stdin %q: want the prompt, then how to claim blocked", read("stdin"))
	}
	env := read("env")
	home := strings.TrimSpace(read("home"))
	for _, want := range []string{"HARNISH_TASK_ID=T1", "HARNISH_PHASE_ID=p1", "HARNISH_ATTEMPT=2", "HARNISH_WORKDIR=" + dir,
		"ANTHROPIC_BASE_URL=http://127.0.0.1:1", "CLAUDE_CONFIG_DIR=" + home + "/.claude", guardrail.EnvHookLog + "="} {
		if !strings.Contains(env, "\n"+want) {
			t.Errorf("the environment lacks %s", want)
		}
	}
	if home == "" || home == os.Getenv("HOME") {
		t.Errorf("HOME %q is not a fresh one", home)
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the HOME of the call is still there: %v", err)
	}
	if b, err := os.ReadFile(res.Transcript); err != nil || !strings.Contains(string(b), `"type":"result"`) {
		t.Errorf("transcript %s: %v\n%s", res.Transcript, err, b)
	}
}

// A run cancelled by the caller is not a timeout: the error is the
// context's cause, not a retryable *executor.Error; a deadline stays a
// timeout.
func TestExecuteCancelled(t *testing.T) {
	stopped := errors.New("stopped by the test")
	tests := []struct {
		name    string
		ctx     func() (context.Context, func())
		timeout bool
		cause   error
	}{
		{"cancelled", func() (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(t.Context())
			time.AfterFunc(time.Second, func() { cancel(stopped) })
			return ctx, func() { cancel(nil) }
		}, false, stopped},
		{"deadline", func() (context.Context, func()) {
			return context.WithTimeout(t.Context(), time.Second)
		}, true, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &claude.Executor{Harnish: harnishBin, Claude: fakeClaude(t, emit(lineInit)+"\nsleep 300 &\nwait")}
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err := ex.Execute(ctx, request(t.TempDir()))
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

// A hook log that does not read is a hard violation that names the log.
func TestExecuteHookLogUnreadable(t *testing.T) {
	ex := &claude.Executor{Harnish: harnishBin, Claude: fakeClaude(t,
		`rm -f "$HARNISH_HOOK_LOG"; mkdir "$HARNISH_HOOK_LOG"; echo "$HARNISH_HOOK_LOG" > log-path`+"\n"+emit(lineInit)+"\n"+emit(lineResult))}
	dir := t.TempDir()
	res, err := ex.Execute(t.Context(), request(dir))
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	logPath, err := os.ReadFile(filepath.Join(dir, "log-path"))
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, v := range res.Violations {
		if v.Rule == "hook.unguarded" && v.Hard && strings.Contains(v.Reason, "hook log") {
			found = true
			if v.Action != strings.TrimSpace(string(logPath)) {
				t.Errorf("violation %+v: want the hook log %s as its action", v, logPath)
			}
		}
	}
	if !found {
		t.Errorf("no hook-log violation in %+v", res.Violations)
	}
}
