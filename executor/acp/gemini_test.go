//go:build linux

package acp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/acp"
	"github.com/harnish/harnish/executor/acp/geminitest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

func needGemini(t *testing.T) { t.Helper(); needAgent(t, "gemini", "@google/gemini-cli") }

func parts(ps ...geminitest.Part) geminitest.Turn { return geminitest.Turn{Parts: ps} }

// geminiLoop runs the loop over Gemini CLI, its model played by script.
func geminiLoop(t *testing.T, planYAML string, setup func(dir string), script func(dir string) []geminitest.Turn) (*run, *geminitest.Server) {
	t.Helper()
	needGemini(t)
	var srv *geminitest.Server
	r := runLoop(t, planYAML, setup, func(plan *task.Plan, dir string) executor.Executor {
		srv = geminitest.NewServer(t, script(dir)...)
		ex := srv.Executor()
		ex.Plan = plan
		return ex
	})
	t.Logf("server calls: %v", srv.Calls())
	return r, srv
}

// Two tasks, done through Gemini CLI's tools: its file writes come to
// harnish (fs/write_text_file), its shell runs after harnish allowed it;
// harnish verifies each task and the run completes.
func TestGeminiLoopCompletes(t *testing.T) {
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
	r, srv := geminiLoop(t, plan, nil, func(dir string) []geminitest.Turn {
		calc := filepath.Join(dir, "calc.txt")
		return []geminitest.Turn{
			{Parts: []geminitest.Part{geminitest.Text("I will write it."), geminitest.WriteFile(calc, "add\n")},
				Usage: geminitest.Usage{PromptTokens: 1000, CandidatesTokens: 100}},
			{Parts: []geminitest.Part{geminitest.Text("Done: calc.txt adds.")}, Want: "Successfully"},
			parts(geminitest.Replace(calc, "add\n", "add\nsub\n")),
			parts(geminitest.Shell(`printf '#!/bin/sh\necho ok\n' > run.sh && chmod +x run.sh`)),
			parts(geminitest.Text("Done: calc.txt subtracts too.")),
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
	turns := srv.Turns()
	if len(turns) != 5 || srv.Remaining() != 0 {
		t.Fatalf("%d turns answered, %d left", len(turns), srv.Remaining())
	}
	for i, q := range turns {
		if q.Model != geminitest.Model {
			t.Errorf("turn %d asked for model %q", i, q.Model)
		}
	}
	for _, c := range []struct {
		turn int
		want string
	}{{0, "Task T1: write calc"}, {2, "Task T2: extend calc"}, {2, "HARNISH-BLOCKED:"}} {
		if !strings.Contains(turns[c.turn].Prompt(), c.want) {
			t.Errorf("the prompt of turn %d lacks %q:\n%s", c.turn, c.want, turns[c.turn].Prompt())
		}
	}
	res := r.ex.res
	if len(res) != 2 || res[0] == nil || res[1] == nil {
		t.Fatalf("results %+v, errors %v", res, r.ex.errs)
	}
	if diff := cmp.Diff([]string{"calc.txt"}, res[0].FilesChanged); diff != "" {
		t.Errorf("T1's files changed (-want +got):\n%s", diff)
	}
	if res[0].Summary != "Done: calc.txt adds." || res[0].Usage.InputTokens != 1000 || res[0].Usage.OutputTokens != 100 {
		t.Errorf("T1's result: %+v", res[0])
	}
	if !strings.Contains(res[1].Summary, "Commands run:\n- printf") {
		t.Errorf("T2's summary lacks the command:\n%s", res[1].Summary)
	}
	if got := r.res.State.Tasks["T1"]; got == nil || got.Tokens != 1100 {
		t.Errorf("T1's spend: %+v", got)
	}
}

// The agent's `rm -rf src` is rejected when Gemini CLI asks: nothing is
// deleted, and the run stops on the hard guardrail.
func TestGeminiGuardBlocks(t *testing.T) {
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
	r, _ := geminiLoop(t, plan, setup, func(dir string) []geminitest.Turn {
		return []geminitest.Turn{
			parts(geminitest.Shell("rm -rf src")),
			// Gemini CLI may go on after a rejection before the cancel
			// arrives; the script has an answer for that.
			parts(geminitest.Text("The harness would not let me.")),
		}
	})
	if r.res.Outcome != policy.StoppedByGuardrail {
		t.Fatalf("outcome %s (%s): %v", r.res.Outcome, r.res.Reason, r.err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "src", "keep.txt")); err != nil {
		t.Errorf("the file the agent tried to delete: %v", err)
	}
	if out := testkit.Git(t, r.dir, "status", "--porcelain"); out != "" {
		t.Errorf("the tree changed:\n%s", out)
	}
	want := []string{"guardrail.violation T1#1"}
	if diff := cmp.Diff(want, r.events(loop.GuardrailViolated, loop.VerifyPassed, loop.VerifyFailed)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	for _, e := range r.rec.Events() {
		if e.Type == loop.GuardrailViolated && (e.Level != "hard" || e.Rule != "fs.recursive-delete") {
			t.Errorf("violation %s %s, want hard fs.recursive-delete", e.Level, e.Rule)
		}
	}
}

// A file write that would put a secret in the tree is rejected before it
// reaches the disk, and the run stops.
func TestGeminiSecretWriteRejected(t *testing.T) {
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
	r, _ := geminiLoop(t, plan, nil, func(dir string) []geminitest.Turn {
		return []geminitest.Turn{
			parts(geminitest.WriteFile(filepath.Join(dir, "config.go"), secret)),
			parts(geminitest.Text("I could not write it.")),
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

// A failed check sends the task back: the next attempt's prompt carries the
// failure, and Gemini CLI hands it to the model.
func TestGeminiRetryCarriesFailure(t *testing.T) {
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
	r, srv := geminiLoop(t, plan, nil, func(dir string) []geminitest.Turn {
		calc := filepath.Join(dir, "calc.txt")
		return []geminitest.Turn{
			parts(geminitest.WriteFile(calc, "add\n")),
			parts(geminitest.Text("Done.")),
			// Attempt 2.
			parts(geminitest.WriteFile(calc, "add\nsub\n")),
			parts(geminitest.Text("Done, with sub.")),
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
	if strings.Contains(turns[0].Prompt(), failure) {
		t.Errorf("the first attempt was told of failures")
	}
}

// Cancelling mid-command (harnish stop, the task's budget) cancels the
// session and stops Gemini CLI, and no process of the attempt is left:
// not the agent, not the command it ran itself.
func TestGeminiCancelMidCommand(t *testing.T) {
	needGemini(t)
	dir := testkit.GitTree(t)
	pidFile := filepath.Join(dir, "pid")
	srv := geminitest.NewServer(t,
		parts(geminitest.Shell("sleep 300 & echo $! > pid; wait")),
		parts(geminitest.Text("Stopped.")),
	)
	ex := srv.Executor()
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
	pid := readPid(t, pidFile)
	if aliveAfter(pid, 2*time.Second) {
		t.Errorf("the agent's command (pid %d) is still running", pid)
	}
	if left := marked(dir); len(left) > 0 {
		t.Errorf("processes of the attempt left running: %v", left)
	}
}

var _ = acp.Gemini

// A daemon the agent's command leaves behind in a session of its own,
// outside every process group harnish started, is found by the attempt's
// mark and killed when the attempt ends.
func TestGeminiStrayDaemonKilled(t *testing.T) {
	needGemini(t)
	dir := testkit.GitTree(t)
	srv := geminitest.NewServer(t,
		// The command waits for the daemon's pid: under load the attempt could
		// otherwise end, and kill the daemon, before it wrote it.
		parts(geminitest.Shell(`setsid -f sh -c 'echo $$ > pid.tmp; mv pid.tmp pid; exec sleep 300' </dev/null >/dev/null 2>&1; while [ ! -s pid ]; do sleep 0.05; done`)),
		parts(geminitest.Text("Started a daemon.")),
	)
	res, err := srv.Executor().Execute(t.Context(), &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 1, WorkDir: dir, Prompt: "start it"})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if res.Summary == "" {
		t.Errorf("no summary: %+v", res)
	}
	if pid := readPid(t, filepath.Join(dir, "pid")); aliveAfter(pid, 2*time.Second) {
		t.Errorf("the daemon (pid %d) is still running", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if left := marked(dir); len(left) > 0 {
		t.Errorf("processes of the attempt left running: %v", left)
	}
}

// A soft decision lets the write through and is recorded once, though
// harnish judges it twice (the permission request's diff, then the write
// itself).
func TestGeminiSoftWarning(t *testing.T) {
	needGemini(t)
	dir := testkit.GitTree(t)
	src := "package calc\n\nfunc Add(a, b int) int { return a + b }\n"
	srv := geminitest.NewServer(t,
		parts(geminitest.WriteFile(filepath.Join(dir, "calc", "calc.go"), src)),
		parts(geminitest.Text("Wrote calc.go.")),
	)
	res, err := srv.Executor().Execute(t.Context(), &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 1, WorkDir: dir, Prompt: "add"})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "calc", "calc.go")); err != nil || string(b) != src {
		t.Errorf("calc.go = %q, %v", b, err)
	}
	if len(res.Violations) != 1 || res.Violations[0].Hard || res.Violations[0].Rule != "edit.tdd" || res.Violations[0].Action != "calc/calc.go" {
		t.Errorf("violations %+v, want one soft edit.tdd on calc/calc.go", res.Violations)
	}
	if res.Status != executor.StatusDone || res.Summary != "Wrote calc.go." || !slices.Equal(res.FilesChanged, []string{"calc/calc.go"}) {
		t.Errorf("result %+v", res)
	}
}

// The run's end while Gemini CLI runs a command (the host cancels, as
// harnish stop does): the session is cancelled, the agent stopped, the run
// ends cancelled, and nothing of the attempt runs on.
func TestGeminiLoopCancelled(t *testing.T) {
	needGemini(t)
	const plan = `version: 1
name: stop
phases:
  - id: p1
    title: P1
    tasks:
      - id: T1
        title: wait
        acceptance:
          - run: ["true"]
`
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	dirs := make(chan string, 1)
	go func() {
		dir := <-dirs
		for ctx.Err() == nil {
			if b, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil && len(b) > 0 {
				cancel(errors.New("harnish stop"))
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var srv *geminitest.Server
	r := runLoopCtx(ctx, t, plan, nil, func(plan *task.Plan, d string) executor.Executor {
		srv = geminitest.NewServer(t, parts(geminitest.Shell("sleep 300 & echo $! > pid; wait")), parts(geminitest.Text("Stopped.")))
		ex := srv.Executor()
		ex.Plan = plan
		dirs <- d
		return ex
	})
	if r.res.Outcome != policy.Cancelled {
		t.Fatalf("outcome %s (%s): %v", r.res.Outcome, r.res.Reason, r.err)
	}
	if pid := readPid(t, filepath.Join(r.dir, "pid")); aliveAfter(pid, 2*time.Second) {
		t.Errorf("the command (pid %d) is still running", pid)
	}
	if left := marked(r.dir); len(left) > 0 {
		t.Errorf("processes of the attempt left running: %v", left)
	}
}

// An attempt that hangs past the task's time is stopped, with its
// command, and the task escalates.
func TestGeminiLoopTaskTimeout(t *testing.T) {
	const plan = `version: 1
name: hang
budget: {attempts: 1, task_timeout: 8s}
phases:
  - id: p1
    title: P1
    tasks:
      - id: T1
        title: hang
        acceptance:
          - run: ["true"]
`
	r, _ := geminiLoop(t, plan, nil, func(dir string) []geminitest.Turn {
		return []geminitest.Turn{parts(geminitest.Shell("sleep 300 & echo $! > pid; wait")), parts(geminitest.Text("Stopped."))}
	})
	if r.res.Outcome != policy.Escalated {
		t.Fatalf("outcome %s (%s): %v", r.res.Outcome, r.res.Reason, r.err)
	}
	if len(r.ex.errs) != 1 || !errors.Is(r.ex.errs[0], executor.ErrTimeout) {
		t.Errorf("the attempt's error: %v, want a timeout", r.ex.errs)
	}
	if b, err := os.ReadFile(filepath.Join(r.dir, "pid")); err == nil {
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid > 0 && aliveAfter(pid, 2*time.Second) {
			t.Errorf("the command (pid %d) is still running", pid)
		}
	}
	if left := marked(r.dir); len(left) > 0 {
		t.Errorf("processes of the attempt left running: %v", left)
	}
}
