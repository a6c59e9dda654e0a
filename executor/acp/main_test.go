package acp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// needAgent skips the test when the agent's program is not on PATH, unless
// HARNISH_REQUIRE_AGENTS=1 says it must be (as in CI): then it fails. The
// test gets a HOME of its own.
func needAgent(t *testing.T, program, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(program); err != nil {
		if os.Getenv("HARNISH_REQUIRE_AGENTS") == "1" {
			t.Fatalf("%s is not on PATH and HARNISH_REQUIRE_AGENTS=1: %v", program, err)
		}
		t.Skipf("%s is not on PATH; install %s (.ci/run does) or set HARNISH_REQUIRE_AGENTS=1 to require it", program, pkg)
	}
	t.Setenv("HOME", t.TempDir()) // the test's own, for git and the checks the loop runs
}

// recording is an executor that keeps the requests the loop made of it,
// and the results it returned.
type recording struct {
	executor.Executor
	mu   sync.Mutex
	reqs []executor.Request
	res  []*executor.Result
	errs []error
}

func (r *recording) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, *req)
	r.mu.Unlock()
	res, err := r.Executor.Execute(ctx, req)
	r.mu.Lock()
	r.res, r.errs = append(r.res, res), append(r.errs, err)
	r.mu.Unlock()
	return res, err
}

// run is one end-to-end run of the loop over a real agent.
type run struct {
	dir  string
	ex   *recording
	res  *loop.Result
	rec  *looptest.Recorder
	err  error
	plan *task.Plan
}

// runLoop loads planYAML, prepares a git working tree (setup, when set,
// fills it), and runs the loop with the executor newEx returns for the
// plan and the tree.
func runLoop(t *testing.T, planYAML string, setup func(dir string), newEx func(plan *task.Plan, dir string) executor.Executor) *run {
	t.Helper()
	return runLoopCtx(t.Context(), t, planYAML, setup, newEx)
}

// runLoopCtx is runLoop under ctx.
func runLoopCtx(ctx context.Context, t *testing.T, planYAML string, setup func(dir string), newEx func(plan *task.Plan, dir string) executor.Executor) *run {
	t.Helper()
	r := &run{dir: testkit.GitTree(t)}
	if setup != nil {
		setup(r.dir)
		testkit.Git(t, r.dir, "add", "-A")
		testkit.Git(t, r.dir, "commit", "-qm", "setup")
	}
	planFile := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(planFile, []byte(planYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if r.plan, err = task.Load(planFile); err != nil {
		t.Fatal(err)
	}
	r.ex = &recording{Executor: newEx(r.plan, r.dir)}
	r.rec = &looptest.Recorder{}
	l, err := loop.New(loop.Config{Plan: r.plan, WorkDir: r.dir, Executor: r.ex, Verifier: verify.Acceptance{},
		Store: looptest.NewStore(), Observer: r.rec, RunID: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	r.res, r.err = l.Run(ctx)
	if r.res == nil {
		t.Fatalf("the run could not be driven: %v", r.err)
	}
	return r
}

// events returns the run's events as looptest lines, of the given types.
func (r *run) events(types ...loop.EventType) []string {
	var out []string
	lines := r.rec.Lines()
	for i, e := range r.rec.Events() {
		for _, ty := range types {
			if e.Type == ty {
				out = append(out, lines[i])
			}
		}
	}
	return out
}
