//go:build linux

package acp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/acp"
	"github.com/harnish/harnish/executor/codex/codextest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

func items(is ...codextest.Item) codextest.Turn { return codextest.Turn{Items: is} }

// codexExecutor is codex-acp pointed at srv, as a plan would give it:
// the provider in argv, the profile doing the rest.
func codexExecutor(srv *codextest.Server, plan *task.Plan) *acp.Executor {
	key := "model_providers.codextest."
	return &acp.Executor{Agent: acp.Codex, Model: codextest.Model, Plan: plan, Command: []string{"codex-acp",
		"-c", `model_provider="codextest"`, "-c", key + `name="codextest"`, "-c", key + `base_url="` + srv.URL() + `"`,
		"-c", key + `wire_api="responses"`, "-c", key + "request_max_retries=0", "-c", key + "stream_max_retries=0"}}
}

func codexLoop(t *testing.T, planYAML string, setup func(dir string), script func(dir string) []codextest.Turn) (*run, *codextest.Server) {
	t.Helper()
	needAgent(t, "codex-acp", "@zed-industries/codex-acp")
	var srv *codextest.Server
	r := runLoop(t, planYAML, setup, func(plan *task.Plan, dir string) executor.Executor {
		srv = codextest.NewServer(t, script(dir)...)
		return codexExecutor(srv, plan)
	})
	return r, srv
}

func violations(r *run) []string {
	var rules []string
	for _, e := range r.rec.Events() {
		if e.Type == loop.GuardrailViolated {
			rules = append(rules, e.Level+" "+e.Rule)
		}
	}
	return rules
}

// Two tasks through codex-acp, which runs its commands and patches itself
// after asking harnish for each; the run completes.
func TestCodexLoopCompletes(t *testing.T) {
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
	r, srv := codexLoop(t, plan, nil, func(dir string) []codextest.Turn {
		return []codextest.Turn{
			items(codextest.ApplyPatch("*** Begin Patch\n*** Add File: calc.txt\n+add\n*** End Patch")),
			items(codextest.Message("Done: calc.txt adds.")),
			items(codextest.ApplyPatch("*** Begin Patch\n*** Update File: calc.txt\n@@\n add\n+sub\n*** End Patch")),
			items(codextest.Shell(`printf '#!/bin/sh\necho ok\n' > run.sh && chmod +x run.sh`)),
			items(codextest.Message("Done: calc.txt subtracts too.")),
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
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d requests, want 5", n)
	}
	res := r.ex.res
	if len(res) != 2 || res[0] == nil || res[1] == nil {
		t.Fatalf("results %+v, errors %v", res, r.ex.errs)
	}
	if diff := cmp.Diff([]string{"calc.txt"}, res[0].FilesChanged); diff != "" {
		t.Errorf("T1's files changed (-want +got):\n%s", diff)
	}
	if res[0].Summary != "Done: calc.txt adds." {
		t.Errorf("T1's summary: %q", res[0].Summary)
	}
}

// `rm -rf src` is rejected when codex-acp asks: nothing is deleted, the
// run stops on the hard guardrail.
func TestCodexGuardBlocks(t *testing.T) {
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
	r, _ := codexLoop(t, plan, setup, func(dir string) []codextest.Turn {
		return []codextest.Turn{
			items(codextest.Shell("rm -r --force src")),
			items(codextest.Message("The harness would not let me.")),
		}
	})
	if r.res.Outcome != policy.StoppedByGuardrail {
		t.Fatalf("outcome %s (%s): %v", r.res.Outcome, r.res.Reason, r.err)
	}
	if out := testkit.Git(t, r.dir, "status", "--porcelain"); out != "" {
		t.Errorf("the tree changed:\n%s", out)
	}
	if diff := cmp.Diff([]string{"hard fs.recursive-delete"}, violations(r)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// Codex writes files itself, but asks first with the patch's changes: a
// secret in them is rejected before the patch is applied.
func TestCodexSecretPatchRejected(t *testing.T) {
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
	r, _ := codexLoop(t, plan, nil, func(dir string) []codextest.Turn {
		return []codextest.Turn{
			items(codextest.ApplyPatch("*** Begin Patch\n*** Add File: config.go\n+package config\n+\n+const token = \"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\"\n*** End Patch")),
			items(codextest.Message("I could not write it.")),
		}
	})
	if r.res.Outcome != policy.StoppedByGuardrail {
		t.Fatalf("outcome %s (%s): %v", r.res.Outcome, r.res.Reason, r.err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "config.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("config.go reached the disk: %v", err)
	}
	if diff := cmp.Diff([]string{"hard edit.secret.github"}, violations(r)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// The next attempt's first request to the model carries the previous
// failure.
func TestCodexRetryCarriesFailure(t *testing.T) {
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
	r, srv := codexLoop(t, plan, nil, func(dir string) []codextest.Turn {
		return []codextest.Turn{
			items(codextest.ApplyPatch("*** Begin Patch\n*** Add File: calc.txt\n+add\n*** End Patch")),
			items(codextest.Message("Done.")),
			items(codextest.ApplyPatch("*** Begin Patch\n*** Update File: calc.txt\n@@\n add\n+sub\n*** End Patch")),
			items(codextest.Message("Done, with sub.")),
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
	sent := srv.Requests()
	if len(sent) != 4 {
		t.Fatalf("%d requests", len(sent))
	}
	if p := sent[2].UserText(); !strings.Contains(p, failure) || !strings.Contains(p, "grep -q sub calc.txt") {
		t.Errorf("the first request of attempt 2 lacks the previous failure:\n%s\n--- want within it:\n%s", p, failure)
	}
}

// Cancelling while Codex runs a command cancels the session and stops the
// agent, with no time to clean up: the command, which Codex runs in a
// session of its own (outside the agent's process group) and which ignores
// SIGHUP, is gone too. (Codex 0.16 was seen to end it itself even so;
// TestGeminiStrayDaemonKilled shows the attempt's mark catching what
// escapes.)
func TestCodexCancelMidCommand(t *testing.T) {
	needAgent(t, "codex-acp", "@zed-industries/codex-acp")
	dir := testkit.GitTree(t)
	pidFile := filepath.Join(dir, "pid")
	srv := codextest.NewServer(t,
		items(codextest.Shell("(trap '' HUP; exec sleep 300) & echo $! > pid; wait")),
		items(codextest.Message("Stopped.")),
	)
	ex := codexExecutor(srv, nil)
	ex.CancelWait, ex.Grace = time.Millisecond, time.Millisecond // no time for Codex to clean up
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
