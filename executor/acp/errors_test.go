//go:build linux

package acp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/acp"
	"github.com/harnish/harnish/executor/acp/geminitest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/task"
)

// The agent's side of a conversation, as shell lines: each answer is sent
// after reading one message, in the order the executor sends them
// (initialize is id 1, session/new id 2, session/prompt id 3).
const (
	answerInit    = `read l; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}'`
	answerSession = `read l; echo '{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}'`
	readPrompt    = `read l; echo $$ > pid`
)

// agentScript is an "agent" that is a shell script: real processes that
// break the protocol in the ways a real agent may, on demand.
func agentScript(lines ...string) *acp.Executor {
	return &acp.Executor{Command: []string{"sh", "-c", strings.Join(lines, "\n")}, Grace: 500 * time.Millisecond,
		CancelWait: 500 * time.Millisecond}
}

// Each way an attempt fails to run is an *executor.Error of its kind, with
// the stream's (and stderr's) tail, and the agent gone afterwards.
func TestAttemptErrors(t *testing.T) {
	tests := []struct {
		name     string
		ex       *acp.Executor
		timeout  time.Duration
		kind     executor.ErrorKind
		wantErr  string // in the error's message
		wantTail string
		rpc      bool // the cause is an *acp.RPCError
	}{
		{name: "exits at once", ex: agentScript(`echo "no API key" >&2; exit 3`),
			kind: executor.KindCrashed, wantErr: "exited during initialize", wantTail: "no API key"},
		{name: "crashes mid-turn", ex: agentScript(answerInit, answerSession, readPrompt, `echo 'segfault at 0' >&2; exit 139`),
			kind: executor.KindCrashed, wantErr: "exited during session/prompt", wantTail: "segfault at 0"},
		{name: "exits quietly mid-turn", ex: agentScript(answerInit, answerSession, readPrompt, `exit 0`),
			kind: executor.KindCrashed, wantErr: "exited during session/prompt: exit status 0"},
		{name: "malformed message", ex: agentScript(answerInit, answerSession, readPrompt,
			`echo '{"jsonrpc":"2.0","method":"session/update","params":{'`, `exec sleep 300`),
			kind: executor.KindProtocol, wantErr: "malformed message", wantTail: `"method":"session/update","params":{`},
		{name: "not JSON-RPC 2.0", ex: agentScript(answerInit, answerSession, readPrompt,
			`echo '{"jsonrpc":"1.0","id":3,"result":{"stopReason":"end_turn"}}'`, `exec sleep 300`),
			kind: executor.KindProtocol, wantErr: `jsonrpc is "1.0"`},
		{name: "JSON-RPC error", ex: agentScript(answerInit, answerSession, readPrompt,
			`echo '{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"model exploded"}}'`, `exec sleep 300`),
			kind: executor.KindCrashed, wantErr: "session/prompt: JSON-RPC error -32603: model exploded", rpc: true},
		{name: "empty turn", ex: agentScript(answerInit, answerSession, readPrompt,
			`echo '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'`, `exec sleep 300`),
			kind: executor.KindProtocol, wantErr: "with no output at all"},
		{name: "hangs past the budget", ex: agentScript(answerInit, answerSession, readPrompt, `exec sleep 300`),
			timeout: 2 * time.Second, kind: executor.KindTimeout, wantErr: "context deadline exceeded", wantTail: `"sessionId":"s1"`},
		{name: "authentication required", ex: agentScript(`read l; echo '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Authentication required"}}'`, `exec sleep 300`),
			kind: executor.KindUnavailable, wantErr: "Authentication required", rpc: true},
		{name: "another protocol version", ex: agentScript(`read l; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2}}'`, `exec sleep 300`),
			kind: executor.KindUnavailable, wantErr: "protocol version 2"},
		{name: "no such program", ex: &acp.Executor{Command: []string{"/nonexistent/agent"}},
			kind: executor.KindUnavailable, wantErr: "/nonexistent/agent"},
		{name: "no such agent", ex: &acp.Executor{Agent: "cursor"},
			kind: executor.KindUnavailable, wantErr: `no agent "cursor" (known: claude, codex, gemini)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.GitTree(t)
			ctx := t.Context()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			start := time.Now()
			res, err := tt.ex.Execute(ctx, &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 1, WorkDir: dir, Prompt: "go"})
			ee, ok := errors.AsType[*executor.Error](err)
			if !ok || res != nil {
				t.Fatalf("Execute = %+v, %v; want an *executor.Error", res, err)
			}
			if ee.Kind != tt.kind || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q of kind %s; want kind %s containing %q", err, ee.Kind, tt.kind, tt.wantErr)
			}
			if !strings.Contains(ee.Tail, tt.wantTail) {
				t.Errorf("the tail lacks %q:\n%s", tt.wantTail, ee.Tail)
			}
			if _, isRPC := errors.AsType[*acp.RPCError](err); isRPC != tt.rpc {
				t.Errorf("an *acp.RPCError: %t, want %t", isRPC, tt.rpc)
			}
			if tt.kind == executor.KindTimeout && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a timeout that does not wrap the deadline: %v", err)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %s: the agent was not stopped", d)
			}
			if left := marked(dir); len(left) > 0 {
				t.Errorf("processes of the attempt left running: %v", left)
			}
		})
	}
}

// An API error Gemini CLI does not retry comes back as the prompt's
// JSON-RPC error: a crashed attempt whose cause is an *acp.RPCError.
func TestGeminiAPIError(t *testing.T) {
	needGemini(t)
	dir := testkit.GitTree(t)
	srv := geminitest.NewServer(t, geminitest.Turn{Status: 400})
	_, err := srv.Executor().Execute(t.Context(), &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 1, WorkDir: dir, Prompt: "go"})
	ee, ok := errors.AsType[*executor.Error](err)
	re, isRPC := errors.AsType[*acp.RPCError](err)
	if !ok || ee.Kind != executor.KindCrashed || !isRPC || re.Method != "session/prompt" || !ee.Retryable() {
		t.Fatalf("Execute: %v; want a retryable crash with the prompt's JSON-RPC error", err)
	}
	t.Logf("%v", err)
	if left := marked(dir); len(left) > 0 {
		t.Errorf("processes of the attempt left running: %v", left)
	}
}

// A tool call the session's updates show ran, that harnish neither was
// asked about nor carried out, ran unguarded: a hard violation for a
// command or an edit; a read or search that ran a command (as Codex does
// for what it deems read-only) only when the guardrail would have refused
// the command.
func TestUnasked(t *testing.T) {
	update := func(id, kind, title, raw string) string {
		return `echo '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"` +
			id + `","kind":"` + kind + `","title":"` + title + `","status":"completed","rawInput":` + raw + `}}}'`
	}
	ex := agentScript(answerInit, answerSession, readPrompt,
		update("c1", "execute", "make", `{"command":"make"}`),
		update("c2", "search", "List", `{"command":["/bin/bash","-lc","ls"]}`),
		update("c3", "read", "Read", `{"command":["/bin/bash","-lc","cat a; rm -rf src"]}`),
		update("c4", "edit", "Edit a.txt", `{}`),
		update("c5", "think", "Think", `{}`),
		`echo '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Done."}}}}'`,
		`echo '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'`, `exec sleep 300`)
	res, err := ex.Execute(t.Context(), &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 1, WorkDir: testkit.GitTree(t), Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range res.Violations {
		if !v.Hard || v.Rule != acp.RuleUnguarded {
			t.Errorf("violation %+v", v)
		}
		got = append(got, v.Action)
	}
	if want := []string{"make", "Edit a.txt", "cat a; rm -rf src"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("unguarded %q, want %q", got, want)
	}
	if res.Summary != "Done." {
		t.Errorf("summary %q", res.Summary)
	}
}

// A file write the agent hands harnish without having asked first is
// judged on its own: a secret is refused before it reaches the disk, a
// path outside the working tree is refused; both are hard violations.
func TestWriteJudgedWithoutPermission(t *testing.T) {
	dir := testkit.GitTree(t)
	outside := filepath.Join(t.TempDir(), "x.txt")
	write := func(id int, path, content string) string {
		return `echo '{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"` +
			path + `","content":"` + content + `"}}'` + "\n" +
			// Read up to the answer, past a session/cancel.
			`while read answer; do echo "$answer" >> answers; case $answer in *'"id":` + strconv.Itoa(id) + `,'*) break;; esac; done`
	}
	ex := agentScript(answerInit, answerSession, readPrompt,
		write(100, filepath.Join(dir, "ok.txt"), `fine\\n`),
		write(101, filepath.Join(dir, "config.go"), `package config\\nconst token = \"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\"\\n`),
		write(102, outside, `x`),
		`echo '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'`, `exec sleep 300`)
	res, err := ex.Execute(t.Context(), &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 1, WorkDir: dir, Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(b) != "fine\n" {
		t.Errorf("ok.txt = %q, %v", b, err)
	}
	for _, p := range []string{filepath.Join(dir, "config.go"), outside} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s reached the disk: %v", p, err)
		}
	}
	var got []string
	for _, v := range res.Violations {
		got = append(got, fmt.Sprintf("%t %s %s", v.Hard, v.Rule, v.Action))
	}
	want := []string{"true edit.secret.github config.go", "true " + acp.RuleOutside + " " + outside}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("violations %q, want %q", got, want)
	}
	answers, _ := os.ReadFile(filepath.Join(dir, "answers"))
	if n := strings.Count(string(answers), "harnish guardrail"); n != 2 || !strings.Contains(string(answers), `"id":100,"result":{}`) {
		t.Errorf("the agent's answers:\n%s", answers)
	}
	if diff := strings.Join(res.FilesChanged, ","); diff != "ok.txt" {
		t.Errorf("files changed %q", res.FilesChanged)
	}
}
