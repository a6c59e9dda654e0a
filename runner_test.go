package harnish_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// agentScript makes the file of its task (see testkit.TwoTaskPlan).
const agentScript = `case "$HARNISH_TASK_ID" in
T1) touch a.txt ;;
T2) touch b.txt ;;
esac
`

// tree writes the two-task plan and its agent into a new working tree, a
// git one with them committed when git is set, and returns it and the plan.
func tree(t *testing.T, git bool, files map[string]string) (string, *task.Plan) {
	t.Helper()
	dir := t.TempDir()
	if git {
		dir = testkit.GitTree(t)
	}
	files["harnish.yaml"], files["agent.sh"] = testkit.TwoTaskPlan, agentScript
	for name, data := range files {
		if err := fsx.WriteExecutable(filepath.Join(dir, name), []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if git {
		testkit.Git(t, dir, "add", ".")
		testkit.Git(t, dir, "commit", "-q", "-m", "the plan")
	}
	plan, err := task.Load(filepath.Join(dir, "harnish.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, plan
}

// events records the types of the events it observes.
type events []string

func (e *events) Observe(ev loop.Event) { *e = append(*e, string(ev.Type)+string(ev.Outcome)) }

// TestOpenRun carries a plan out in a git working tree with the plan's own
// command executor, as "harnish run --yes" does: every task committed on
// the run's branch, the run's records last.
func TestOpenRun(t *testing.T) {
	dir, plan := tree(t, true, map[string]string{})
	var got events
	r, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: dir, Gate: loop.AutoApprove{}, Observer: &got,
		RunID: "r1", CommitTasks: true, Branch: "harnish/cli-test-r1"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if op := r.Opened(); op.Run != "r1" || len(op.Strays) != 0 || op.ImportedFrom != "" {
		t.Errorf("Opened() = %+v", op)
	}
	res, err := r.Run(t.Context())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Outcome != policy.Completed || res.State.Run != "r1" {
		t.Errorf("outcome %s of run %s, want completed of r1", res.Outcome, res.State.Run)
	}
	want := events{"run.started", "task.started", "attempt.started", "verify.passed", "attempt.finished", "task.done",
		"milestone.reached", "milestone.approved", "task.started", "attempt.started", "verify.passed", "attempt.finished", "task.done",
		"run.finishedcompleted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if b := testkit.Git(t, dir, "branch", "--show-current"); b != "harnish/cli-test-r1" {
		t.Errorf("branch %q", b)
	}
	log := strings.Split(testkit.Git(t, dir, "log", "--format=%s", "-3"), "\n")
	if diff := cmp.Diff([]string{"chore(harnish): records of run r1 (completed)", "feat(p2): T2 — make b", "feat(p1): T1 — make a"}, log); diff != "" {
		t.Errorf("git log (-want +got):\n%s", diff)
	}
	for _, rec := range []string{"handoffs/T1.json", "handoffs/T2.json"} {
		if _, err := os.Stat(filepath.Join(dir, loop.StateDir, rec)); err != nil {
			t.Errorf("record: %v", err)
		}
	}
	// The state's runtime files (journal, lock, the plan's copy, the
	// experience store) stay out of git status, in a tree that does not
	// ignore them itself.
	if st := testkit.Git(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status after the run:\n%s", st)
	}
}

// TestCloseReleasesTheState: while a Runner is open, no other may open the
// tree's run; once it is closed, the next one resumes the run where it
// stood.
func TestCloseReleasesTheState(t *testing.T) {
	dir, plan := tree(t, false, map[string]string{})
	r, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: dir}) // no gate: the run waits at the milestone
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := r.Run(t.Context())
	if res == nil || res.Outcome != policy.AwaitingApproval {
		t.Fatalf("Run = %v, %v; want awaiting approval", res, err)
	}
	if _, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: dir, Unmarked: true}); err == nil || !strings.HasPrefix(err.Error(), "harnish: ") {
		t.Fatalf("a second Open of an open run: %v, want an error", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := r.Run(t.Context()); err == nil {
		t.Error("Run after Close: no error")
	}
	r2, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: dir})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	defer r2.Close()
	if op := r2.Opened(); op.Run != res.State.Run {
		t.Errorf("the second Open found run %q, want %q", op.Run, res.State.Run)
	}
	if res, err := r2.Resume(t.Context(), loop.ResumeOptions{Approve: true}); err != nil || res.Outcome != policy.Completed {
		t.Errorf("Resume = %v, %v; want completed", res, err)
	}
}

// TestConfigSwap: a host swaps one component for its own before Run.
func TestConfigSwap(t *testing.T) {
	dir, plan := tree(t, false, map[string]string{})
	r, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: dir, Gate: loop.AutoApprove{}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ran []string
	r.Config().Executor = executor.Func(func(ctx context.Context, req *executor.Request) (*executor.Result, error) {
		ran = append(ran, req.Task.ID)
		name := map[string]string{"T1": "a.txt", "T2": "b.txt"}[req.Task.ID]
		return &executor.Result{Status: executor.StatusDone}, os.WriteFile(filepath.Join(req.WorkDir, name), nil, 0o644)
	})
	if res, err := r.Run(t.Context()); err != nil || res.Outcome != policy.Completed {
		t.Fatalf("Run = %v, %v", res, err)
	}
	if diff := cmp.Diff([]string{"T1", "T2"}, ran); diff != "" {
		t.Errorf("the host's executor ran (-want +got):\n%s", diff)
	}
	r.Config().Executor = nil
	if _, err := r.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "Executor is nil") {
		t.Errorf("Run with no executor: %v", err)
	}
}

// TestOpenAssets: a new experience store takes in the engine's history, once.
func TestOpenAssets(t *testing.T) {
	history := `{"type":"guardrail","slug":"no-force","title":"never force-push","tags":["git"],"date":"2026-01-02"}` + "\n"
	dir, plan := tree(t, false, map[string]string{"harnish-assets.jsonl": history})
	tests := []struct {
		name         string
		opts         harnish.Options
		wantImported int
		wantFrom     string
		wantAssets   bool
	}{
		{name: "no experience", opts: harnish.Options{NoAssets: true}},
		{name: "a new store", wantImported: 1, wantFrom: filepath.Join(dir, "harnish-assets.jsonl"), wantAssets: true},
		{name: "the store it made", wantAssets: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Dir = dir
			r, err := harnish.Open(t.Context(), plan, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			op := r.Opened()
			if op.Imported != tt.wantImported || op.ImportedFrom != tt.wantFrom || (r.Config().Assets != nil) != tt.wantAssets {
				t.Errorf("imported %d from %q, assets %v; want %d from %q, %v", op.Imported, op.ImportedFrom, r.Config().Assets != nil,
					tt.wantImported, tt.wantFrom, tt.wantAssets)
			}
		})
	}
}

// TestOpenMarks: an open Runner marks the process's children as its run's,
// and Close takes the mark away; the process has room for one mark.
func TestOpenMarks(t *testing.T) {
	const env = "HARNISH_RUN"
	t.Setenv(env, "the host's own")
	dir, plan := tree(t, false, map[string]string{})
	other, _ := tree(t, false, map[string]string{})
	r, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: dir, RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mark := filepath.Join(dir, loop.StateDir) + "#r1"
	if got := os.Getenv(env); got != mark {
		t.Errorf("%s = %q, want %q", env, got, mark)
	}
	if _, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: other}); err == nil || !strings.Contains(err.Error(), "Options.Unmarked") {
		t.Errorf("a second marked Runner: %v, want an error", err)
	}
	r2, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: other, Unmarked: true})
	if err != nil {
		t.Fatal(err)
	}
	r2.Close()
	if got := os.Getenv(env); got != mark {
		t.Errorf("after an unmarked Runner, %s = %q, want %q", env, got, mark)
	}
	r.Close()
	if got := os.Getenv(env); got != "the host's own" {
		t.Errorf("after Close, %s = %q, want what it was", env, got)
	}
}

// TestOpenWithoutGit: in a directory without git the change of each attempt
// is still judged (from the directory's snapshots): an agent that writes
// into the state directory stops the run, one that keeps to its task
// finishes, and nothing is committed.
func TestOpenWithoutGit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		git   bool
		write map[string]string // task -> the file it writes
		want  policy.Outcome
	}{
		{"keeps to its task", false, map[string]string{"T1": "a.txt", "T2": "b.txt"}, policy.Completed},
		{"writes into the state directory", false, map[string]string{"T1": filepath.Join(loop.StateDir, "evil")}, policy.StoppedByGuardrail},
		// The state directory's .gitignore hides it from git status, not
		// from the audit of what an attempt changed.
		{"writes into the ignored state directory of a git tree", true, map[string]string{"T1": filepath.Join(loop.StateDir, "evil")}, policy.StoppedByGuardrail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, plan := tree(t, tc.git, map[string]string{})
			r, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: dir, Gate: loop.AutoApprove{}, CommitTasks: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			r.Config().Executor = executor.Func(func(ctx context.Context, req *executor.Request) (*executor.Result, error) {
				return &executor.Result{Status: executor.StatusDone}, os.WriteFile(filepath.Join(req.WorkDir, tc.write[req.Task.ID]), nil, 0o644)
			})
			res, err := r.Run(t.Context())
			if res == nil || res.Outcome != tc.want {
				t.Fatalf("Run = %+v, %v; want %s", res, err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil && !tc.git {
				t.Error("a run without git made a repository")
			}
			if _, err := os.Stat(filepath.Join(dir, loop.StateDir, ".gitignore")); (err == nil) != tc.git {
				t.Errorf("the state directory's .gitignore: %v (a git tree: %t)", err, tc.git)
			}
		})
	}
}
