package codex_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/executor/codex/codextest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// e2e is one run of the loop through the real Codex CLI against a script.
type e2e struct {
	work  string
	srv   *codextest.Server
	ex    *prompts
	rec   *looptest.Recorder
	res   *loop.Result
	err   error
	lines []string
}

// prompts records the prompt of every attempt on its way to Codex.
type prompts struct {
	executor.Executor
	mu   sync.Mutex
	sent []string
}

func (p *prompts) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	p.mu.Lock()
	p.sent = append(p.sent, req.Prompt)
	p.mu.Unlock()
	return p.Executor.Execute(ctx, req)
}

// runLoop runs the plan (YAML) in a fresh git tree set up by prepare, with
// the plan file outside the tree, a DirStore and records in .harnish, and
// a commit per task.
func runLoop(t *testing.T, planYAML string, prepare func(work string), script ...codextest.Turn) *e2e {
	t.Helper()
	return runLoopWith(t, nil, planYAML, prepare, script...)
}

// runLoopWith is runLoop with the executor changed by configure first.
func runLoopWith(t *testing.T, configure func(*codex.Executor), planYAML string, prepare func(work string), script ...codextest.Turn) *e2e {
	t.Helper()
	work := testkit.GitTree(t)
	if prepare != nil {
		prepare(work)
	}
	planFile := filepath.Join(t.TempDir(), "harnish.yaml")
	write(t, planFile, planYAML)
	plan, err := task.Load(planFile)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	srv := codextest.NewServer(t, script...)
	cx := newExecutor(t, srv)
	cx.PlanFile = planFile
	if configure != nil {
		configure(cx)
	}
	state := filepath.Join(work, loop.StateDir)
	store, err := loop.OpenDir(state, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &e2e{work: work, srv: srv, ex: &prompts{Executor: cx}, rec: &looptest.Recorder{}}
	l, err := loop.New(loop.Config{Plan: plan, WorkDir: work, Executor: e.ex, Verifier: verify.Acceptance{},
		Store: store, Observer: e.rec, RecordsDir: state, CommitTasks: true, RunID: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	e.res, e.err = l.Run(context.Background())
	if e.res == nil {
		t.Fatalf("Run: %v", e.err)
	}
	e.lines = e.rec.Lines()
	return e
}

// has reports whether the run's events include each line, by prefix.
func (e *e2e) has(t *testing.T, prefixes ...string) {
	t.Helper()
	for _, p := range prefixes {
		if !slices.ContainsFunc(e.lines, func(l string) bool { return strings.HasPrefix(l, p) }) {
			t.Errorf("no event %q in\n%s", p, strings.Join(e.lines, "\n"))
		}
	}
}

func turn(items ...codextest.Item) codextest.Turn { return codextest.Turn{Items: items} }

// TestLoopCompletes: two tasks, edited by the agent through its own tools (a
// patch, a shell command), verified by harnish, committed: the run completes.
func TestLoopCompletes(t *testing.T) {
	needCodex(t)
	t.Parallel()
	plan := `version: 1
name: e2e
phases:
  - id: p1
    title: Greetings
    tasks:
      - id: T1
        title: hello in a.txt
        objective: a.txt holds hello
        files: [a.txt]
        acceptance:
          - sh: 'test "$(cat a.txt)" = hello'
      - id: T2
        title: world in b.txt
        objective: b.txt holds world
        files: [b.txt]
        depends_on: [T1]
        acceptance:
          - run: [grep, -qx, world, b.txt]
`
	e := runLoop(t, plan, nil,
		codextest.Turn{Items: []codextest.Item{codextest.ApplyPatch(addA)}, Expect: codextest.Containing("a.txt holds hello")},
		turn(codextest.Message("Wrote a.txt.")),
		codextest.Turn{Items: []codextest.Item{codextest.Shell(`printf 'world\n' > b.txt`)}, Expect: codextest.Containing("b.txt holds world")},
		turn(codextest.Message("Wrote b.txt.")),
	)
	if e.err != nil || e.res.Outcome != policy.Completed {
		t.Fatalf("outcome %s (%s): %v\n%s", e.res.Outcome, e.res.Reason, e.err, strings.Join(e.lines, "\n"))
	}
	e.has(t, "verify.passed T1#1", "task.done T1", "verify.passed T2#1", "task.done T2", "run.finished completed")
	out, err := exec.Command("git", "-C", e.work, "log", "--format=%s").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "feat(p1): T2 — world in b.txt\nfeat(p1): T1 — hello in a.txt\n") {
		t.Errorf("commits: %v\n%s", err, out)
	}
}

// TestLoopHookBlocks: the agent's rm -r (which Codex's own policy lets
// through) is blocked by harnish's pre-tool-use hook: the tree survives,
// the model is told why, and the run stops on the hard guardrail.
func TestLoopHookBlocks(t *testing.T) {
	needCodex(t)
	t.Parallel()
	plan := `version: 1
name: e2e
phases:
  - id: p1
    title: P
    tasks:
      - id: T1
        title: tidy
        objective: tidy up
        files: [keep/x.txt]
        acceptance:
          - sh: 'test -f keep/x.txt'
`
	e := runLoop(t, plan, func(work string) {
		if err := os.Mkdir(filepath.Join(work, "keep"), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(work, "keep", "x.txt"), "x\n")
	},
		turn(codextest.Shell("rm -r keep")),
		codextest.Turn{Items: []codextest.Item{codextest.Message("Tidied.")},
			Expect: codextest.Containing("harnish guardrail fs.recursive-delete blocked this")},
	)
	if !errors.Is(e.err, policy.ErrStoppedByGuardrail) || e.res.Outcome != policy.StoppedByGuardrail {
		t.Fatalf("outcome %s (%s): %v\n%s", e.res.Outcome, e.res.Reason, e.err, strings.Join(e.lines, "\n"))
	}
	if _, err := os.Stat(filepath.Join(e.work, "keep", "x.txt")); err != nil {
		t.Errorf("keep/x.txt is gone: %v", err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	outs := reqs[1].ToolOutputs()
	if len(outs) != 1 || !strings.Contains(outs[0], "blocked") || !strings.Contains(outs[0], "recursive deletion") {
		t.Errorf("the model was told %q", outs)
	}
	found := false
	for _, ev := range e.rec.Events() {
		if ev.Type == loop.GuardrailViolated && ev.Level == "hard" && ev.Rule == "fs.recursive-delete" && ev.Task == "T1" {
			found = true
		}
	}
	if !found {
		t.Errorf("no hard fs.recursive-delete violation in\n%s", strings.Join(e.lines, "\n"))
	}
}

// TestLoopStopRefusedAndRetried: the agent claims done while the checks
// fail. The stop hook refuses and Codex hands the model its reason; harnish's
// own verification refuses too, and the retry's prompt carries the failure.
//
// The stop hook and the loop run the same checks, so for both to refuse
// within one attempt the check passes on its second run only (a counter
// outside the tree): run 1 is the first stop (refused), run 2 the second
// stop (let through), run 3 harnish's verification (failed); attempt 2 then
// fixes a.txt for good.
func TestLoopStopRefusedAndRetried(t *testing.T) {
	needCodex(t)
	t.Parallel()
	counter := filepath.Join(t.TempDir(), "runs")
	plan := fmt.Sprintf(`version: 1
name: e2e
phases:
  - id: p1
    title: P
    tasks:
      - id: T1
        title: hello
        objective: a.txt holds hello
        files: [a.txt]
        acceptance:
          - sh: 'cat a.txt; n=$(( $(cat %[1]s 2>/dev/null || echo 0) + 1 )); echo $n > %[1]s; test "$(cat a.txt)" = hello || test $n -eq 2'
`, counter)
	const refused = "harnish: task T1 is not done: its checks fail"
	e := runLoop(t, plan, nil,
		// Attempt 1.
		turn(codextest.Shell(`printf 'hullo\n' > a.txt`)),
		turn(codextest.Message("Done.")),
		codextest.Turn{Items: []codextest.Item{codextest.Message("Done, I am sure.")}, Expect: codextest.Containing(refused)},
		// Attempt 2.
		codextest.Turn{Items: []codextest.Item{codextest.ApplyPatch("*** Begin Patch\n*** Update File: a.txt\n@@\n-hullo\n+hello\n*** End Patch\n")},
			Expect: codextest.Containing("hullo")},
		turn(codextest.Message("Fixed.")),
	)
	if e.err != nil || e.res.Outcome != policy.Completed {
		t.Fatalf("outcome %s (%s): %v\n%s", e.res.Outcome, e.res.Reason, e.err, strings.Join(e.lines, "\n"))
	}
	e.has(t, "verify.failed T1#1", "attempt.started T1#2", "verify.passed T1#2", "run.finished completed")
	reqs := e.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	// The stop hook's refusal reached the model, in the request after the stop.
	if !reqs[2].Contains(refused) || reqs[1].Contains(refused) {
		t.Errorf("the stop hook's reason did not reach the model in request 2")
	}
	// The retry's first request carries the whole prompt harnish rendered,
	// and that prompt carries the failure: its fingerprint and output tail.
	var fp string
	for _, ev := range e.rec.Events() {
		if ev.Type == loop.VerifyFailed && ev.Task == "T1" {
			fp = ev.Fingerprint
		}
	}
	if len(e.ex.sent) != 2 {
		t.Fatalf("%d attempts", len(e.ex.sent))
	}
	retry := e.ex.sent[1]
	if fp == "" || !strings.Contains(retry, fp) || !strings.Contains(retry, "hullo") || !strings.Contains(retry, "attempt 1") {
		t.Errorf("the retry's prompt lacks the failure (fingerprint %q):\n%s", fp, retry)
	}
	if !strings.Contains(reqs[3].UserText(), strings.TrimSpace(retry)) {
		t.Errorf("the retry's prompt did not reach the model whole; request 3 says:\n%s", reqs[3].UserText())
	}
	if strings.Contains(reqs[0].UserText(), fp) {
		t.Errorf("the first attempt already mentions the fingerprint")
	}
}
