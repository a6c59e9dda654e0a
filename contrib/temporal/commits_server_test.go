package temporal_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish"
	temporal "github.com/harnish/harnish/contrib/temporal"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// committingAgent is the agent of the commit tests: it logs each attempt,
// writes a file of its task's own into the tree, and on the first attempt
// of $HANG_TASK hangs (for the test to kill its worker) or, of $FAIL_TASK,
// fails.
const committingAgent = `echo "$HARNISH_TASK_ID#$HARNISH_ATTEMPT" >> "$LOG"
if [ "$HARNISH_TASK_ID" = "$HANG_TASK" ] && [ "$HARNISH_ATTEMPT" = 1 ]; then echo $$ > "$MARK.tmp"; mv "$MARK.tmp" "$MARK"; exec sleep 60; fi
if [ "$HARNISH_TASK_ID" = "$FAIL_TASK" ] && [ "$HARNISH_ATTEMPT" = 1 ]; then echo "first try fails" >&2; exit 1; fi
echo "$HARNISH_TASK_ID" > "$HARNISH_TASK_ID.txt"
printf '{"summary":"did %s","usage":{"input_tokens":10}}' "$HARNISH_TASK_ID" > "$HARNISH_RESULT_FILE"
`

// committingFixture is a 3-task plan over committingAgent and a git
// repository with one commit to work in.
func committingFixture(t *testing.T, hang, fail string) *fixture {
	t.Helper()
	f := newFixture(t, 3, "0", hang)
	f.plan.Executor.Argv = []string{"sh", "-c", committingAgent}
	f.plan.Executor.Env["FAIL_TASK"] = fail
	for i := range f.plan.Phases[0].Tasks {
		f.plan.Phases[0].Tasks[i].Title = "write " + f.plan.Phases[0].Tasks[i].ID
	}
	git(t, f.tree, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(f.tree, "README"), []byte("tree\n"), 0o644)
	git(t, f.tree, "add", "README")
	git(t, f.tree, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
	return f
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// commitsOf is the history the run made on its branch: each commit's
// message and the files it changed, oldest first.
func commitsOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, h := range strings.Fields(git(t, dir, "rev-list", "--reverse", "main..HEAD")) {
		msg := git(t, dir, "show", "-s", "--format=%B", h)
		files := git(t, dir, "show", "--name-only", "--format=", h)
		out = append(out, strings.TrimSpace(msg)+"\n--- files:\n"+strings.TrimSpace(files))
	}
	return out
}

// TestServerCommits: a run of the workflow with Records and CommitTasks
// leaves the same git history as the CLI's loop on the same plan (one
// commit per task, then one of the records, with the same messages,
// trailers and files) and the same run state on disk, although its worker
// is SIGKILLed while T2's agent works: no commit is lost or made twice.
// T2 takes two attempts in both: the CLI's first one fails.
func TestServerCommits(t *testing.T) {
	addr := sharedServer(t)
	const run, branch = "r1", "harnish/fleet-r1"

	cli := committingFixture(t, "", "T2")
	cliRun(t, cli, run, branch)
	want := commitsOf(t, cli.tree)

	f := committingFixture(t, "T2", "")
	queue := uniq(t)
	first := startWorker(t, addr, queue)
	startRun(t, addr, queue, queue, temporal.RunInput{Plan: f.plan, Dir: f.tree, RunID: run, Records: true, CommitTasks: true,
		Branch: branch, HeartbeatTimeout: 3 * time.Second})
	waitFile(t, f.mark, 2*time.Minute)
	if got := commitsOf(t, f.tree); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("before the kill, the branch holds %q, want T1's commit %q", got, want[:1])
	}
	first.kill()
	f.killHanging(t)
	startWorker(t, addr, queue)
	res := waitRun(t, addr, queue, 3*time.Minute)
	if res.Outcome != policy.Completed || res.State.Tasks["T2"].Attempts != 2 {
		t.Fatalf("outcome %s (%s), T2 %+v", res.Outcome, res.Reason, res.State.Tasks["T2"])
	}
	got := commitsOf(t, f.tree)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the workflow's history differs from the CLI's (-cli +workflow):\n%s", diff)
	}
	if len(got) != 4 {
		t.Errorf("%d commits, want 3 tasks' and the records'", len(got))
	}
	if b := strings.TrimSpace(git(t, f.tree, "branch", "--show-current")); b != branch {
		t.Errorf("the tree is on %s, want %s", b, branch)
	}
	if s := git(t, f.tree, "status", "--porcelain", "--untracked-files=all", "--", ".", ":!.harnish"); s != "" {
		t.Errorf("the tree has changes no commit took in:\n%s", s)
	}
	// The state on disk is the workflow's, transition for transition.
	disk, err := loop.ReadState(filepath.Join(f.tree, loop.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viewOf(res.State), viewOf(disk)); diff != "" || disk.Seq != res.State.Seq || !disk.RecordsCommitted {
		t.Errorf("the state on disk differs from the workflow's (-workflow +disk), seq %d/%d, records committed %v:\n%s",
			res.State.Seq, disk.Seq, disk.RecordsCommitted, diff)
	}
	for _, id := range []string{"T1", "T2", "T3"} {
		if ts := res.State.Tasks[id]; !ts.Committed || ts.Commit == "" {
			t.Errorf("%s: %+v", id, ts)
		}
		for _, p := range []string{"handoffs/" + id + ".json", "logs/fleet/task-" + id + ".json"} {
			if _, err := os.Stat(filepath.Join(f.tree, loop.StateDir, p)); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(f.tree, loop.StateDir, "summary.md")); err != nil {
		t.Error(err)
	}
}

// TestServerCancelResume: a run cancelled while T2's agent works ends
// with its tasks' handoffs in its result, so that its resume tells T2
// what T1 did, as a resume of the CLI's run does from its records.
func TestServerCancelResume(t *testing.T) {
	addr := sharedServer(t)
	f := newFixture(t, 3, "0", "T2")
	queue := uniq(t)
	startWorker(t, addr, queue)
	startRun(t, addr, queue, queue, temporal.RunInput{Plan: f.plan, Dir: f.tree})
	waitFile(t, f.mark, 2*time.Minute)
	c, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CancelWorkflow(context.Background(), queue, ""); err != nil {
		t.Fatal(err)
	}
	f.killHanging(t)
	res := waitRun(t, addr, queue, time.Minute)
	if res.Outcome != policy.Cancelled || res.Carry == nil || res.Carry.Tasks["T1"] == nil || res.Carry.Tasks["T1"].Handoff == nil ||
		res.Carry.Tasks["T1"].Handoff.Summary != "did T1" {
		t.Fatalf("outcome %s, carry %+v", res.Outcome, res.Carry)
	}
	if _, err := temporal.Resume(context.Background(), c, queue, queue, temporal.RunInput{Plan: f.plan, Dir: f.tree}, false); err != nil {
		t.Fatal(err)
	}
	res = waitRun(t, addr, queue, 2*time.Minute)
	if res.Outcome != policy.Completed || res.Carry.Tasks["T1"].Handoff == nil {
		t.Fatalf("after the resume: outcome %s (%s), T1's memo %+v", res.Outcome, res.Reason, res.Carry.Tasks["T1"])
	}
}

// TestServerCommitsSideBySide: a phase of three tasks side by side, with
// commits, leaves the commits the CLI's parallel mode leaves (each task in
// a fork of its own, the merge queue making its commit): the same
// messages, trailers and files, in the order the queue took them.
func TestServerCommitsSideBySide(t *testing.T) {
	addr := sharedServer(t)
	const run, branch = "r1", "harnish/fleet-r1"
	cli := committingFixture(t, "", "")
	cli.plan.Phases[0].Parallel = 3
	cliRun(t, cli, run, branch)
	f := committingFixture(t, "", "")
	f.plan.Phases[0].Parallel = 3
	queue := uniq(t)
	startWorker(t, addr, queue)
	startRun(t, addr, queue, queue, temporal.RunInput{Plan: f.plan, Dir: f.tree, RunID: run, Records: true, CommitTasks: true,
		Branch: branch, SideBySide: true})
	if res := waitRun(t, addr, queue, 3*time.Minute); res.Outcome != policy.Completed {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	want, got := commitsOf(t, cli.tree), commitsOf(t, f.tree)
	if len(want) != 4 || len(got) != 4 {
		t.Fatalf("%d commits from the CLI, %d from the workflow; want 4 each", len(want), len(got))
	}
	slices.Sort(want[:3]) // the tasks' commits come in the order the queue took them
	slices.Sort(got[:3])
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the workflow's history differs from the CLI's (-cli +workflow):\n%s", diff)
	}
	if wt := git(t, f.tree, "worktree", "list", "--porcelain"); strings.Count(wt, "worktree ") != 1 {
		t.Errorf("forks left behind:\n%s", wt)
	}
}

// cliRun carries f's plan out in f's tree as the CLI does (harnish.Open,
// commits on), as run on branch.
func cliRun(t *testing.T, f *fixture, run, branch string) {
	t.Helper()
	r, err := harnish.Open(context.Background(), f.plan, harnish.Options{Dir: f.tree, Gate: loop.AutoApprove{}, Unmarked: true,
		RunID: run, Branch: branch, CommitTasks: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(context.Background())
	r.Close()
	if err != nil {
		t.Fatalf("the CLI's run: %v", err)
	}
}
