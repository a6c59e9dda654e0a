//go:build linux

package acp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/acp"
	"github.com/harnish/harnish/executor/claude/claudetest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// claude-code-acp turns Claude Code's own tools off and gives the model
// its ACP tools instead, which run through the client.
func cBash(command string) claudetest.Block {
	return claudetest.ToolUse("mcp__acp__Bash", map[string]any{"command": command, "description": "run it", "timeout": 60000})
}

func cWrite(path, content string) claudetest.Block {
	return claudetest.ToolUse("mcp__acp__Write", map[string]any{"file_path": path, "content": content})
}

func cEdit(path, old, new string) claudetest.Block {
	return claudetest.ToolUse("mcp__acp__Edit", map[string]any{"file_path": path, "old_string": old, "new_string": new})
}

func blocks(bs ...claudetest.Block) claudetest.Turn { return claudetest.Turn{Blocks: bs} }

const claudeModel = "claude-test-model"

func claudeExecutor(srv *claudetest.Server, plan *task.Plan) *acp.Executor {
	return &acp.Executor{Agent: acp.Claude, Model: claudeModel, Env: srv.Env(), Plan: plan}
}

// claudeLoop runs the loop over claude-code-acp, its model played by script.
func claudeLoop(t *testing.T, planYAML string, setup func(dir string), script func(dir string) []claudetest.Turn) (*run, *claudetest.Server) {
	t.Helper()
	needAgent(t, "claude-code-acp", "@zed-industries/claude-code-acp")
	var srv *claudetest.Server
	r := runLoop(t, planYAML, setup, func(plan *task.Plan, dir string) executor.Executor {
		srv = claudetest.NewServer(t, script(dir)...)
		return claudeExecutor(srv, plan)
	})
	t.Logf("server calls: %v", srv.Calls())
	return r, srv
}

// Two tasks through claude-code-acp: its writes and edits come to harnish
// (fs/*), its commands run in harnish's terminals; the run completes.
func TestClaudeLoopCompletes(t *testing.T) {
	const plan = `version: 1
name: two
phases:
  - id: p1
    title: P1
    tasks:
      - id: T1
        title: write calc
        files: [calc.txt]
        acceptance:
          - sh: grep -q add calc.txt
      - id: T2
        title: extend calc
        depends_on: [T1]
        files: [calc.txt, run.sh]
        acceptance:
          - sh: grep -q sub calc.txt && ./run.sh
`
	r, srv := claudeLoop(t, plan, nil, func(dir string) []claudetest.Turn {
		calc := filepath.Join(dir, "calc.txt")
		return []claudetest.Turn{
			blocks(claudetest.Text("I will write it."), cWrite(calc, "add\n")),
			blocks(claudetest.Text("Done: calc.txt adds.")),
			blocks(claudetest.ToolUse("mcp__acp__Read", map[string]any{"file_path": calc})),
			blocks(cEdit(calc, "add\n", "add\nsub\n")),
			{Blocks: []claudetest.Block{cBash(`printf '#!/bin/sh\necho ok\n' > run.sh && chmod +x run.sh && echo made`)}},
			{Blocks: []claudetest.Block{claudetest.Text("Done: calc.txt subtracts too.")}, Want: "made"},
		}
	})
	if r.err != nil || r.res.Outcome != policy.Completed {
		t.Fatalf("outcome %s (%s): %v\nresults %+v\nerrors %v", r.res.Outcome, r.res.Reason, r.err, r.ex.res, r.ex.errs)
	}
	want := []string{"verify.passed T1#1", "task.done T1", "verify.passed T2#1", "task.done T2"}
	if diff := cmp.Diff(want, r.events(loop.VerifyPassed, loop.VerifyFailed, loop.TaskDone, loop.GuardrailViolated)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(filepath.Join(r.dir, "calc.txt")); err != nil || string(b) != "add\nsub\n" {
		t.Errorf("calc.txt = %q, %v", b, err)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d turns left", srv.Remaining())
	}
	for i, q := range srv.Turns() {
		if q.Model != claudeModel {
			t.Errorf("turn %d asked for model %q", i, q.Model)
		}
		// The tool that writes without harnish is not offered.
		if slices.Contains(q.Tools, "NotebookEdit") || !slices.Contains(q.Tools, "mcp__acp__Write") {
			t.Errorf("turn %d offers the tools %v", i, q.Tools)
		}
	}
	res := r.ex.res
	if len(res) != 2 || res[0] == nil || res[1] == nil {
		t.Fatalf("results %+v, errors %v", res, r.ex.errs)
	}
	if diff := cmp.Diff([]string{"calc.txt"}, res[0].FilesChanged); diff != "" {
		t.Errorf("T1's files changed (-want +got):\n%s", diff)
	}
	if !strings.Contains(res[1].Summary, "Commands run:\n- printf") {
		t.Errorf("T2's summary lacks the command:\n%s", res[1].Summary)
	}
}

// `rm -rf src` is rejected when claude-code-acp asks: nothing is deleted,
// and the run stops on the hard guardrail.
func TestClaudeGuardBlocks(t *testing.T) {
	const plan = `version: 1
name: rm
phases:
  - id: p1
    title: P1
    tasks:
      - id: T1
        title: clean up
        acceptance:
          - run: [test, -f, src/keep.txt]
`
	setup := func(dir string) {
		os.MkdirAll(filepath.Join(dir, "src"), 0o755)
		os.WriteFile(filepath.Join(dir, "src", "keep.txt"), []byte("keep\n"), 0o644)
	}
	r, _ := claudeLoop(t, plan, setup, func(dir string) []claudetest.Turn {
		return []claudetest.Turn{
			blocks(cBash("rm -rf src")),
			blocks(claudetest.Text("The harness would not let me.")),
		}
	})
	if r.res.Outcome != policy.StoppedByGuardrail {
		t.Fatalf("outcome %s (%s): %v", r.res.Outcome, r.res.Reason, r.err)
	}
	if out := testkit.Git(t, r.dir, "status", "--porcelain"); out != "" {
		t.Errorf("the tree changed:\n%s", out)
	}
	var rules []string
	for _, e := range r.rec.Events() {
		if e.Type == loop.GuardrailViolated {
			rules = append(rules, e.Level+" "+e.Rule)
		}
	}
	if diff := cmp.Diff([]string{"hard fs.recursive-delete"}, rules); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// A write that would put a secret in the tree is rejected before it reaches
// the disk, and the run stops.
func TestClaudeSecretWriteRejected(t *testing.T) {
	const plan = `version: 1
name: secret
phases:
  - id: p1
    title: P1
    tasks:
      - id: T1
        title: configure
        acceptance:
          - run: [test, -f, config.go]
`
	const secret = "package config\n\nconst token = \"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\"\n"
	r, _ := claudeLoop(t, plan, nil, func(dir string) []claudetest.Turn {
		return []claudetest.Turn{
			blocks(cWrite(filepath.Join(dir, "config.go"), secret)),
			blocks(claudetest.Text("I could not write it.")),
		}
	})
	if r.res.Outcome != policy.StoppedByGuardrail {
		t.Fatalf("outcome %s (%s): %v", r.res.Outcome, r.res.Reason, r.err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "config.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("config.go reached the disk: %v", err)
	}
	var rules []string
	for _, e := range r.rec.Events() {
		if e.Type == loop.GuardrailViolated {
			rules = append(rules, e.Level+" "+e.Rule)
		}
	}
	if diff := cmp.Diff([]string{"hard edit.secret.github"}, rules); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// The next attempt's prompt carries the previous failure, as the model got
// it.
func TestClaudeRetryCarriesFailure(t *testing.T) {
	const plan = `version: 1
name: retry
budget: {attempts: 2}
phases:
  - id: p1
    title: P1
    tasks:
      - id: T1
        title: write calc
        acceptance:
          - sh: grep -q sub calc.txt
`
	r, srv := claudeLoop(t, plan, nil, func(dir string) []claudetest.Turn {
		calc := filepath.Join(dir, "calc.txt")
		return []claudetest.Turn{
			blocks(cWrite(calc, "add\n")),
			blocks(claudetest.Text("Done.")),
			blocks(cWrite(calc, "add\nsub\n")),
			blocks(claudetest.Text("Done, with sub.")),
		}
	})
	if r.err != nil || r.res.Outcome != policy.Completed {
		t.Fatalf("outcome %s (%s): %v", r.res.Outcome, r.res.Reason, r.err)
	}
	reqs := r.ex.reqs
	if len(reqs) != 2 || len(reqs[1].Parts.Failures) != 1 {
		t.Fatalf("requests of the loop: %d; failures in the second %+v", len(reqs), reqs)
	}
	failure := strings.TrimSpace(executor.Render(executor.PromptParts{Failures: reqs[1].Parts.Failures}))
	turns := srv.Turns()
	if len(turns) != 4 {
		t.Fatalf("%d turns answered", len(turns))
	}
	if p := turns[2].Prompt(); !strings.Contains(p, failure) || !strings.Contains(p, "grep -q sub calc.txt") {
		t.Errorf("the first request of attempt 2 lacks the previous failure:\n%s\n--- want within it:\n%s", p, failure)
	}
}

// Cancelling while a command runs in harnish's terminal cancels the
// session, kills the terminal's process group and stops the agent: no
// process of the attempt is left.
func TestClaudeCancelMidCommand(t *testing.T) {
	needAgent(t, "claude-code-acp", "@zed-industries/claude-code-acp")
	dir := testkit.GitTree(t)
	pidFile := filepath.Join(dir, "pid")
	srv := claudetest.NewServer(t,
		blocks(cBash("sleep 300 & echo $! > pid; wait")),
		blocks(claudetest.Text("Stopped.")),
	)
	ex := claudeExecutor(srv, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	start := time.Now()
	_, err := ex.Execute(ctx, &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 1, WorkDir: dir, Prompt: "wait"})
	if !errors.Is(err, context.Canceled) || executor.IsRetryable(err) {
		t.Fatalf("Execute: %v, want a cancellation", err)
	}
	t.Logf("cancelled and stopped in %s", time.Since(start))
	if pid := readPid(t, pidFile); aliveAfter(pid, 2*time.Second) {
		t.Errorf("the command (pid %d) is still running", pid)
	}
	if left := marked(dir); len(left) > 0 {
		t.Errorf("processes of the attempt left running: %v", left)
	}
}
