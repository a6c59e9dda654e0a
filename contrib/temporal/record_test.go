package temporal_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	temporal "github.com/harnish/harnish/contrib/temporal"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// writer is the scripted executor that also writes a file of its task's
// own into the tree, so that each task has a change to commit.
type writer struct{ *components }

func (w writer) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	w.mu.Lock()
	w.dirs = append(w.dirs, req.WorkDir)
	if w.parts == nil {
		w.parts = map[string]executor.PromptParts{}
	}
	w.parts[fmt.Sprintf("%s#%d", req.Task.ID, req.Attempt)] = req.Parts
	w.mu.Unlock()
	if err := os.WriteFile(filepath.Join(req.WorkDir, req.Task.ID+".txt"), []byte(req.Task.ID+"\n"), 0o644); err != nil {
		return nil, err
	}
	return w.components.Execute(ctx, req)
}

// mainTree makes a git working tree on branch main with a README committed.
func mainTree(t *testing.T) string {
	t.Helper()
	tree := t.TempDir()
	testkit.Git(t, tree, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(tree, "README"), []byte("tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.Git(t, tree, "add", "README")
	testkit.Git(t, tree, "commit", "-q", "-m", "init")
	return tree
}

// TestRecordCommits runs a 3-task plan with Records and CommitTasks
// offline, over a real git repository, and plays the worst a worker's
// crash can do to the record: every Record is run twice (Temporal tries it
// again when the worker died before its result reached the server), and
// the worker dies inside the Record that finishes T2, after the store took
// the transitions and git took T2's commit but before the commit was
// recorded. The branch must hold one commit per task and one of the
// records, the state on disk must be the workflow's, and the workflow must
// learn of every commit.
func TestRecordCommits(t *testing.T) {
	tree := mainTree(t)
	plan := onePhase(check("T1"), check("T2"), check("T3"))
	plan.Reviewer = nil
	c := &components{writes: true}
	worker := func() *temporal.Activities {
		a := &temporal.Activities{Build: c.build}
		a.AddPlan(plan)
		return a
	}
	e := env(t, c, plan)
	var (
		mu      sync.Mutex
		cur     = worker()
		records int
		crashed bool
	)
	defer func() { cur.Close() }()
	stateDir := filepath.Join(tree, loop.StateDir)
	e.OnActivity(temporal.ActivityRecord, mock.Anything, mock.Anything).Return(func(ctx context.Context, in temporal.RecordInput) (*temporal.RecordOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		records++
		if !crashed && slices.ContainsFunc(in.Transitions, func(tr policy.Transition) bool {
			return tr.Kind == policy.TransTaskFinished && tr.Task == "T2"
		}) {
			crashed = true
			// What the dead worker did: the transitions made durable, then
			// T2's commit made, and nothing more.
			cur.Close()
			store, err := loop.OpenDir(stateDir, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := store.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Commit(ctx, in.Transitions[st.Seq-in.From:]...); err != nil {
				t.Fatal(err)
			}
			store.Close()
			testkit.Git(t, tree, "add", "-A", "--", ".", ":!.harnish")
			testkit.Git(t, tree, "commit", "-q", "-m", "feat(p1): T2 — made by the worker that died\n\nHarnish-Run: r1\nHarnish-Task: T2\nHarnish-Attempts: 1\n")
			cur = worker() // the next worker
		}
		out, err := cur.Record(ctx, in)
		if err != nil {
			return nil, err
		}
		again, err := cur.Record(ctx, in)
		if err != nil {
			return nil, err
		}
		if diff := cmp.Diff(out, again); diff != "" {
			t.Errorf("Record again answered otherwise (-first +again):\n%s", diff)
		}
		return out, nil
	})
	// The attempts go to the current worker too: the prompt is made from
	// the record it keeps.
	e.OnActivity(temporal.ActivityExecute, mock.Anything, mock.Anything).Return(func(ctx context.Context, in temporal.ExecuteInput) (*temporal.ExecuteOutput, error) {
		mu.Lock()
		a := cur
		mu.Unlock()
		return a.Execute(ctx, in)
	})
	e.ExecuteWorkflow(temporal.WorkflowName, temporal.RunInput{Plan: plan, Dir: tree, RunID: "r1", Records: true, CommitTasks: true, Branch: "harnish/p-r1"})
	if err := e.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res temporal.RunResult
	if err := e.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Outcome != policy.Completed || !crashed || records < 5 {
		t.Fatalf("outcome %s (%s), crashed %v, %d records", res.Outcome, res.Reason, crashed, records)
	}
	var subjects []string
	for _, h := range strings.Fields(testkit.Git(t, tree, "rev-list", "--reverse", "main..HEAD")) {
		subjects = append(subjects, strings.TrimSpace(testkit.Git(t, tree, "show", "-s", "--format=%s", h)))
	}
	want := []string{"feat(p1): T1 — T1", "feat(p1): T2 — made by the worker that died", "feat(p1): T3 — T3", "chore(harnish): records of run r1 (completed)"}
	if diff := cmp.Diff(want, subjects); diff != "" {
		t.Errorf("the branch's commits (-want +got):\n%s", diff)
	}
	if b := strings.TrimSpace(testkit.Git(t, tree, "branch", "--show-current")); b != "harnish/p-r1" {
		t.Errorf("on branch %s", b)
	}
	disk, err := loop.ReadState(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res.State, disk); diff != "" {
		t.Errorf("the state on disk differs from the workflow's (-workflow +disk):\n%s", diff)
	}
	for _, id := range []string{"T1", "T2", "T3"} {
		if ts := res.State.Tasks[id]; !ts.Committed || ts.Commit == "" {
			t.Errorf("%s: %+v", id, ts)
		}
	}
	if !res.State.RecordsCommitted {
		t.Error("the records' commit is not recorded")
	}
	// The prompt is the CLI's, made from the record: where the task
	// stands, what was done before it, the handoff of the task before.
	// (T2's summary died with the worker that knew it, as a crash of the
	// CLI loses it: its handoff was repaired from the state.)
	p := c.parts["T3#1"]
	if p.Progress != "Task 3 of 3, in phase p1 (P1)." || len(p.Done) != 2 || p.Done[0].Line != "did T1" || p.Done[1].TaskID != "T2" ||
		len(p.Handoffs) != 1 || p.Handoffs[0].TaskID != "T2" || p.Spec == "" {
		t.Errorf("T3's prompt: progress %q, done %+v, handoffs %+v", p.Progress, p.Done, p.Handoffs)
	}
	h, err := os.ReadFile(filepath.Join(stateDir, "handoffs", "T1.json"))
	if err != nil || !strings.Contains(string(h), `"summary": "did T1"`) {
		t.Errorf("T1's handoff: %v\n%s", err, h)
	}
}

// TestEndDropsRun: when the run ends, the workflow's End has the worker
// close and forget the run's components and record.
func TestEndDropsRun(t *testing.T) {
	for _, records := range []bool{false, true} {
		tree := t.TempDir()
		testkit.Git(t, tree, "init", "-q")
		c := &components{writes: true}
		plan := onePhase(check("T1"))
		var s testsuite.WorkflowTestSuite
		s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
		e := s.NewTestWorkflowEnvironment()
		e.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 20 * time.Second})
		a := &temporal.Activities{Build: c.build}
		defer a.Close()
		a.AddPlan(plan)
		temporal.Register(e, a)
		e.ExecuteWorkflow(temporal.WorkflowName, temporal.RunInput{Plan: plan, Dir: tree, Records: records})
		if err := e.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		if runs, plans := a.Cached(); runs != 0 || plans != 1 || len(c.executed) != 1 {
			t.Errorf("records %v: after the run, %d runs and %d plans cached, %d executions", records, runs, plans, len(c.executed))
		}
	}
}

// TestRecordForks runs a phase of three tasks side by side with commits
// offline, over a real git repository: each task works in a fork of its
// own (never in the tree), and the merge queue brings each change onto the
// branch as the task's commit, one at a time; the forks are removed.
func TestRecordForks(t *testing.T) {
	tree := mainTree(t)
	plan := onePhase(check("T1"), check("T2"), check("T3"))
	plan.Reviewer, plan.Phases[0].Parallel = nil, 3
	c := &components{writes: true, sleep: 300 * time.Millisecond}
	res, _, err := runIn(t, c, temporal.RunInput{Plan: plan, Dir: tree, RunID: "r1", Records: true, CommitTasks: true, Branch: "harnish/p-r1",
		SideBySide: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != policy.Completed || c.peak < 2 {
		t.Fatalf("outcome %s (%s), %d tasks at once at most", res.Outcome, res.Reason, c.peak)
	}
	var subjects []string
	for _, h := range strings.Fields(testkit.Git(t, tree, "rev-list", "--reverse", "main..HEAD")) {
		subjects = append(subjects, strings.TrimSpace(testkit.Git(t, tree, "show", "-s", "--format=%s", h)))
		if files := strings.TrimSpace(testkit.Git(t, tree, "show", "--name-only", "--format=", h)); strings.HasPrefix(subjects[len(subjects)-1], "feat") &&
			!strings.HasSuffix(files, ".txt") || strings.Contains(files, "\n") && strings.HasPrefix(subjects[len(subjects)-1], "feat") {
			t.Errorf("%s changes %q, want its own file alone", subjects[len(subjects)-1], files)
		}
	}
	slices.Sort(subjects[:min(3, len(subjects))])
	want := []string{"feat(p1): T1 — T1", "feat(p1): T2 — T2", "feat(p1): T3 — T3", "chore(harnish): records of run r1 (completed)"}
	if diff := cmp.Diff(want, subjects); diff != "" {
		t.Errorf("the branch's commits (-want +got):\n%s", diff)
	}
	for _, id := range []string{"T1", "T2", "T3"} {
		ts := res.State.Tasks[id]
		if !ts.Committed || ts.Commit == "" || !strings.Contains(testkit.Git(t, tree, "show", "-s", "--format=%B", ts.Commit), "Harnish-Task: "+id) {
			t.Errorf("%s: %+v", id, ts)
		}
	}
	if slices.Contains(c.dirs, tree) || len(c.dirs) != 3 {
		t.Errorf("the agents worked in %q, want forks of %s", c.dirs, tree)
	}
	if wt := testkit.Git(t, tree, "worktree", "list", "--porcelain"); strings.Count(wt, "worktree ") != 1 {
		t.Errorf("forks left behind:\n%s", wt)
	}
	if s := testkit.Git(t, tree, "status", "--porcelain", "--", ".", ":!.harnish"); s != "" {
		t.Errorf("the tree has changes no commit took in:\n%s", s)
	}
}

// TestStuck: an agent that runs the same command with the same result
// five times in a row has its attempt ended stuck, by the plan's stuck
// rules, as the CLI's loop ends it.
func TestStuck(t *testing.T) {
	c := &components{sc: script{tries: map[string][]try{"T1": {{loops: 5}, {loops: 4}}}}}
	plan := onePhase(check("T1"))
	plan.Reviewer = nil
	res, _, err := runIn(t, c, temporal.RunInput{Plan: plan, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ts := res.State.Tasks["T1"]
	if res.Outcome != policy.Completed || ts.Attempts != 2 || len(ts.Failures) != 1 || ts.Failures[0].Kind != policy.FailStuck ||
		ts.Failures[0].Fingerprint != "stuck:repeated-command" {
		t.Fatalf("outcome %s, T1 %+v", res.Outcome, ts)
	}
}

// TestRecordResume: a run with commits that escalated, resumed without
// saying so again, goes on keeping the tree's record and committing: the
// task done after the resume is committed, and the state on disk is the
// workflow's.
func TestRecordResume(t *testing.T) {
	tree := mainTree(t)
	plan := onePhase(check("T1"), check("T2"))
	plan.Reviewer = nil
	c := &components{writes: true, sc: script{tries: map[string][]try{"T2": {{fp: "a"}, {fp: "b"}, {fp: "c"}}}}}
	res, _, err := runIn(t, c, temporal.RunInput{Plan: plan, Dir: tree, RunID: "r1", Records: true, CommitTasks: true, Branch: "harnish/p-r1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != policy.Escalated {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	res, _, err = runIn(t, c, temporal.RunInput{Plan: plan, Dir: tree, Resume: true, Carry: res.Carry})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != policy.Completed || !res.State.Tasks["T2"].Committed || !res.State.RecordsCommitted {
		t.Fatalf("after the resume: outcome %s (%s), T2 %+v", res.Outcome, res.Reason, res.State.Tasks["T2"])
	}
	var subjects []string
	for _, h := range strings.Fields(testkit.Git(t, tree, "rev-list", "--reverse", "main..HEAD")) {
		subjects = append(subjects, strings.TrimSpace(testkit.Git(t, tree, "show", "-s", "--format=%s", h)))
	}
	want := []string{"feat(p1): T1 — T1", "chore(harnish): records of run r1 (escalated)", "feat(p1): T2 — T2", "chore(harnish): records of run r1 (completed)"}
	if diff := cmp.Diff(want, subjects); diff != "" {
		t.Errorf("the branch's commits (-want +got):\n%s", diff)
	}
	disk, err := loop.ReadState(filepath.Join(tree, loop.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res.State, disk); diff != "" {
		t.Errorf("the state on disk differs from the workflow's (-workflow +disk):\n%s", diff)
	}
}

// TestRecordOtherRun: a tree whose record holds another run fails the
// run at once, rather than have Record tried again and again.
func TestRecordOtherRun(t *testing.T) {
	tree := t.TempDir()
	store, err := loop.OpenDir(filepath.Join(tree, loop.StateDir), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(context.Background(), policy.Transition{Kind: policy.TransRunStarted, Time: time.Now(), Run: "other", Plan: "p"}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	_, _, err = runIn(t, &components{}, temporal.RunInput{Plan: onePhase(check("T1")), Dir: tree, RunID: "r1", Records: true})
	if err == nil || !strings.Contains(err.Error(), "holds run other, not run r1") {
		t.Fatalf("err %v", err)
	}
}
