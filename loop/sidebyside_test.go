package loop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// sideConfig is a committing run in a new git tree of one phase whose tasks
// run n at a time.
func sideConfig(t *testing.T, n int, ex executor.Executor, tasks ...task.Task) loop.Config {
	dir := testkit.GitTree(t)
	plan := &task.Plan{Version: "1", Name: "side", Phases: []task.Phase{{ID: "p", Parallel: n, Tasks: tasks}}}
	return loop.Config{Plan: plan, WorkDir: dir, Executor: ex, Verifier: &looptest.Verifier{}, Gate: loop.AutoApprove{},
		CommitTasks: true, RunID: "r1", Store: looptest.NewStore()}
}

// commitsOf returns the hashes of the commits of task id on the branch.
func commitsOf(t *testing.T, dir, id string) []string {
	return strings.Fields(testkit.Git(t, dir, "log", "--format=%H", "--fixed-strings", "--grep=Harnish-Task: "+id))
}

// TestLoopSideBySide: tasks run at once, each in a working copy of its own
// that the others do not see, and each change joins the branch as exactly
// one commit of the task.
func TestLoopSideBySide(t *testing.T) {
	var mu sync.Mutex
	started := map[string]string{}
	both := make(chan struct{})
	ex := executor.Func(func(ctx context.Context, req *executor.Request) (*executor.Result, error) {
		mu.Lock()
		started[req.Task.ID] = req.WorkDir
		if len(started) == 2 {
			close(both)
		}
		mu.Unlock()
		select { // each waits until both have started: they run at once
		case <-both:
		case <-time.After(10 * time.Second):
			return nil, errors.New("the other task never started")
		}
		name := "f-" + req.Task.ID + ".txt"
		for _, other := range []string{"f-T1.txt", "f-T2.txt"} {
			if _, err := os.Stat(filepath.Join(req.WorkDir, other)); err == nil && other != name {
				return nil, errors.New("a task saw the other's change half made")
			}
		}
		return &executor.Result{Status: executor.StatusDone}, os.WriteFile(filepath.Join(req.WorkDir, name), []byte(req.Task.ID), 0o644)
	})
	cfg := sideConfig(t, 2, ex, check("T1"), check("T2"))
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := l.Run(context.Background()); err != nil || res.Outcome != policy.Completed {
		t.Fatalf("Run = %v, %v", res, err)
	}
	if started["T1"] == started["T2"] || started["T1"] == cfg.WorkDir {
		t.Errorf("the tasks worked in %q and %q, not forks of %q of their own", started["T1"], started["T2"], cfg.WorkDir)
	}
	for _, id := range []string{"T1", "T2"} {
		if n := len(commitsOf(t, cfg.WorkDir, id)); n != 1 {
			t.Errorf("task %s: %d commits, want 1", id, n)
		}
		if _, err := os.Stat(filepath.Join(cfg.WorkDir, "f-"+id+".txt")); err != nil {
			t.Errorf("task %s's file is not in the tree: %v", id, err)
		}
		if _, err := os.Stat(started[id]); !os.IsNotExist(err) {
			t.Errorf("task %s's working copy is left: %v", id, err)
		}
	}
}

// TestLoopSideBySideConflict: the second change to the same lines meets a
// conflict when it joins the branch; that is its attempt's failure, and the
// next attempt is told and finds the markers in its working copy, resolves
// them, and joins.
func TestLoopSideBySideConflict(t *testing.T) {
	var mu sync.Mutex
	var prompts []string
	t1done := make(chan struct{})
	ex := executor.Func(func(ctx context.Context, req *executor.Request) (*executor.Result, error) {
		mu.Lock()
		prompts = append(prompts, req.Task.ID+": "+req.Prompt)
		mu.Unlock()
		path := filepath.Join(req.WorkDir, "shared.txt")
		switch {
		case req.Task.ID == "T1":
		case req.Attempt == 1:
			// T2 forked with T1, and writes once T1's change has joined
			// the branch, so its own meets a conflict.
			select {
			case <-t1done:
			case <-time.After(10 * time.Second):
				return nil, errors.New("T1 never finished")
			}
		default:
			b, _ := os.ReadFile(path)
			if !strings.Contains(string(b), "<<<<<<<") {
				return nil, errors.New("no conflict markers in the working copy: " + string(b))
			}
			return &executor.Result{Status: executor.StatusDone}, os.WriteFile(path, []byte("T1\nT2\n"), 0o644)
		}
		return &executor.Result{Status: executor.StatusDone}, os.WriteFile(path, []byte(req.Task.ID+"\n"), 0o644)
	})
	cfg := sideConfig(t, 2, ex, check("T1"), check("T2"))
	cfg.Observer = loop.ObserverFunc(func(e loop.Event) {
		if e.Type == loop.TaskDone && e.Task == "T1" {
			close(t1done)
		}
	})
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Run(context.Background())
	if err != nil || res.Outcome != policy.Completed {
		t.Fatalf("Run = %v, %v", res, err)
	}
	if f := res.State.Tasks["T2"].Failures; len(f) != 1 || f[0].Class != "conflict" || f[0].Fingerprint != "conflict:shared.txt" {
		t.Errorf("T2's failures: %+v", f)
	}
	var told bool
	for _, p := range prompts {
		told = told || strings.HasPrefix(p, "T2: ") && strings.Contains(p, "CONFLICT in shared.txt")
	}
	if !told {
		t.Error("T2's second attempt was not told of the conflict")
	}
	if b, _ := os.ReadFile(filepath.Join(cfg.WorkDir, "shared.txt")); string(b) != "T1\nT2\n" {
		t.Errorf("shared.txt: %q", b)
	}
	for _, id := range []string{"T1", "T2"} {
		if n := len(commitsOf(t, cfg.WorkDir, id)); n != 1 {
			t.Errorf("task %s: %d commits, want 1", id, n)
		}
	}
}

// TestLoopSideBySideFailures: one member failing does not stop its
// siblings; the same failure in several is one cause, which stops the phase.
func TestLoopSideBySideFailures(t *testing.T) {
	t.Run("one fails, the others finish", func(t *testing.T) {
		cfg := sideConfig(t, 3, writeOwn, check("T1"), check("T2"), check("T3"))
		cfg.Verifier = &looptest.Verifier{Script: map[string][]string{"T1": {"a", "b", "c"}}}
		l, err := loop.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := l.Run(context.Background())
		if !errors.Is(err, policy.ErrEscalated) {
			t.Fatalf("Run: %v, want escalated", err)
		}
		for id, want := range map[string]policy.TaskStatus{"T1": policy.StatusEscalated, "T2": policy.StatusDone, "T3": policy.StatusDone} {
			if got := res.State.Tasks[id].Status; got != want {
				t.Errorf("%s is %s, want %s", id, got, want)
			}
		}
		if n := len(commitsOf(t, cfg.WorkDir, "T2")) + len(commitsOf(t, cfg.WorkDir, "T3")); n != 2 {
			t.Errorf("%d commits of T2 and T3, want 2", n)
		}
		if wt := testkit.Git(t, cfg.WorkDir, "worktree", "list"); !strings.Contains(wt, "r1-T1") {
			t.Errorf("the failed task's working copy is not kept for a person:\n%s", wt)
		}
	})
	t.Run("a shared cause", func(t *testing.T) {
		cfg := sideConfig(t, 3, writeOwn, check("T1"), check("T2"), check("T3"))
		cfg.Verifier = &looptest.Verifier{Script: map[string][]string{"T1": {"dep", "dep", "dep"}, "T2": {"dep", "dep", "dep"}, "T3": {"dep", "dep", "dep"}}}
		var causes int
		cfg.Observer = loop.ObserverFunc(func(e loop.Event) {
			if e.Type == loop.CauseShared {
				causes++
			}
		})
		l, err := loop.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := l.Run(context.Background())
		if !errors.Is(err, policy.ErrEscalated) || !strings.Contains(res.Reason, "a shared cause") {
			t.Fatalf("Run: %v (%s), want escalated with a shared cause", err, res.Reason)
		}
		if causes != 1 {
			t.Errorf("%d cause.shared events, want 1", causes)
		}
		for id, ts := range res.State.Tasks {
			if ts.Attempts > 2 {
				t.Errorf("%s spent %d attempts on a shared cause", id, ts.Attempts)
			}
		}
	})
}

// TestLoopSideBySideReview: the reviewer sees the change in the task's own
// working copy; a critical finding sends it back there, and only an approved
// change joins the branch.
func TestLoopSideBySideReview(t *testing.T) {
	var dirs []string
	var tree string // the run's working tree
	ex := executor.Func(func(_ context.Context, req *executor.Request) (*executor.Result, error) {
		dirs = append(dirs, req.WorkDir)
		if req.Attempt == 2 {
			if _, err := os.Stat(filepath.Join(tree, "f-T1.txt")); err == nil {
				return nil, errors.New("the change sent back is in the tree already")
			}
		}
		return &executor.Result{Status: executor.StatusDone}, os.WriteFile(filepath.Join(req.WorkDir, "f-T1.txt"), []byte(req.Prompt[:1]), 0o644)
	})
	cfg := sideConfig(t, 2, ex, check("T1"))
	tree = cfg.WorkDir
	rv := &looptest.Reviewer{Critical: map[string][]bool{"T1": {true}}}
	cfg.Reviewer = rv
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := l.Run(context.Background()); err != nil {
		t.Fatalf("Run = %v, %v", res, err)
	}
	if len(dirs) != 2 || dirs[0] != dirs[1] || dirs[0] == cfg.WorkDir {
		t.Errorf("attempts worked in %v, want twice the same fork of %s", dirs, cfg.WorkDir)
	}
	if reqs := rv.Requests(); len(reqs) != 2 || reqs[0].WorkDir != dirs[0] || !strings.Contains(reqs[0].Diff, "f-T1.txt") {
		t.Errorf("the reviewer saw %+v", reqs)
	}
	if n := len(commitsOf(t, cfg.WorkDir, "T1")); n != 1 {
		t.Errorf("%d commits of T1, want 1", n)
	}
}

// TestLoopSideBySideQueue: while a change waits in the merge queue or is
// being integrated, the queue's list in the records names it, for a person
// watching from another shell; it is gone when the run ends.
func TestLoopSideBySideQueue(t *testing.T) {
	t1done := make(chan struct{})
	ex := executor.Func(func(_ context.Context, req *executor.Request) (*executor.Result, error) {
		if req.Task.ID == "T2" {
			<-t1done // T2 joins after T1, so the branch it takes in has moved
		}
		return &executor.Result{Status: executor.StatusDone}, os.WriteFile(filepath.Join(req.WorkDir, "f-"+req.Task.ID+".txt"), nil, 0o644)
	})
	cfg := sideConfig(t, 2, ex, check("T1"), check("T2"))
	cfg.RecordsDir = filepath.Join(t.TempDir(), "records")
	var seen []string
	cfg.Verifier = verifyFunc(func(_ context.Context, r *verify.Request) (*verify.Report, error) {
		q, err := loop.ReadQueue(cfg.RecordsDir)
		if err != nil {
			return nil, err
		}
		seen = append(seen, r.Task.ID+":"+strings.Join(q, ","))
		return &verify.Report{Passed: true}, nil
	})
	cfg.Observer = loop.ObserverFunc(func(e loop.Event) {
		if e.Type == loop.TaskDone && e.Task == "T1" {
			close(t1done)
		}
	})
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := l.Run(context.Background()); err != nil {
		t.Fatalf("Run = %v, %v", res, err)
	}
	if !slices.Contains(seen, "T2:T2") {
		t.Errorf("the checks on T2's integrated tree saw the queue as %v, want T2 in it", seen)
	}
	if q, err := loop.ReadQueue(cfg.RecordsDir); err != nil || len(q) != 0 {
		t.Errorf("the queue after the run: %v, %v", q, err)
	}
}
