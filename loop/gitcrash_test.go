package loop_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// crashStore is a store whose process "dies" at one commit: the loop's
// goroutine ends there (runtime.Goexit), after the commit is durable or
// just before it is, so nothing the loop would do next happens.
type crashStore struct {
	*looptest.Store
	at     int  // the Commit call that crashes, 1-based
	before bool // crash before the commit is durable, not after
	calls  int
}

func (s *crashStore) Commit(ctx context.Context, ts ...policy.Transition) error {
	s.calls++
	if s.calls == s.at && s.before {
		runtime.Goexit()
	}
	err := s.Store.Commit(ctx, ts...)
	if s.calls == s.at {
		runtime.Goexit()
	}
	return err
}

// writeOwn is an executor that writes the task's own file, f-<id>.txt.
var writeOwn = executor.Func(func(_ context.Context, req *executor.Request) (*executor.Result, error) {
	err := os.WriteFile(filepath.Join(req.WorkDir, "f-"+req.Task.ID+".txt"), []byte(req.Task.ID+"\n"), 0o644)
	return &executor.Result{Status: executor.StatusDone, Summary: "wrote f-" + req.Task.ID}, err
})

// TestLoopGitSurvivesCrashes crashes a committing run in a git tree at every
// commit of its state, after the commit and just before it, resumes it to
// the end, and checks git: every task has exactly one commit holding exactly
// its file, on the run's branch, the records are committed once, and the
// tree holds nothing uncommitted.
//
// With parallel: 2 the first phase's tasks run side by side in forks of
// their own, so the crashes fall mid-attempt in two forks and mid-merge in
// the queue too.
func TestLoopGitSurvivesCrashes(t *testing.T) {
	for _, parallel := range []int{1, 2} {
		t.Run(fmt.Sprintf("parallel %d", parallel), func(t *testing.T) { gitSurvivesCrashes(t, parallel) })
	}
}

func gitSurvivesCrashes(t *testing.T, parallel int) {
	plan := &task.Plan{Version: "1", Name: "g", Phases: []task.Phase{
		{ID: "p1", Title: "P1", Parallel: parallel, Tasks: []task.Task{check("T1"), check("T2")}},
		{ID: "p2", Title: "P2", Tasks: []task.Task{check("T3")}},
	}}
	const branch = "harnish/g-1"
	config := func(dir string, store loop.Store) loop.Config {
		return loop.Config{Plan: plan, WorkDir: dir, Executor: writeOwn, Store: store, Gate: loop.AutoApprove{},
			Verifier:    &looptest.Verifier{Script: map[string][]string{"T2": {"x"}}},
			CommitTasks: true, RecordsDir: filepath.Join(dir, loop.StateDir), RunID: "r1"}
	}
	// A run without a crash says how many commits of state there are.
	dir := testkit.GitTree(t)
	clean := looptest.NewStore()
	cfg := config(dir, clean)
	cfg.Branch = branch
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkGit(t, dir, branch, clean)
	n := len(clean.Cuts())
	if n < 10 {
		t.Fatalf("only %d commits of state", n)
	}

	for at := 1; at <= n; at++ {
		for _, before := range []bool{false, true} {
			t.Run(fmt.Sprintf("crash %d before %v", at, before), func(t *testing.T) {
				dir := testkit.GitTree(t)
				inner := looptest.NewStore()
				cfg := config(dir, &crashStore{Store: inner, at: at, before: before})
				cfg.Branch = branch
				l, err := loop.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				go func() {
					defer close(done)
					l.Run(context.Background())
				}()
				<-done
				// The host comes back: resume the run it finds, or start anew.
				l, err = loop.New(config(dir, inner))
				if err != nil {
					t.Fatal(err)
				}
				var res *loop.Result
				if _, lerr := inner.Load(context.Background()); errors.Is(lerr, loop.ErrNoState) {
					cfg := config(dir, inner)
					cfg.Branch = branch
					if l, err = loop.New(cfg); err != nil {
						t.Fatal(err)
					}
					res, err = l.Run(context.Background())
				} else {
					res, err = l.Resume(context.Background(), loop.ResumeOptions{})
				}
				if err != nil || res.Outcome != policy.Completed {
					t.Fatalf("after the crash: %v", err)
				}
				checkGit(t, dir, branch, inner)
			})
		}
	}
}

// checkGit checks the history a completed run of T1..T3 leaves, and that
// the state records each task's commit.
func checkGit(t *testing.T, dir, branch string, store *looptest.Store) {
	t.Helper()
	st, err := store.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := testkit.Git(t, dir, "branch", "--show-current"); got != branch {
		t.Errorf("on branch %q, want %q", got, branch)
	}
	for _, id := range []string{"T1", "T2", "T3"} {
		hashes := strings.Fields(testkit.Git(t, dir, "log", "--format=%H", "--fixed-strings", "--grep=Harnish-Task: "+id))
		if len(hashes) != 1 {
			t.Errorf("task %s: %d commits, want 1\n%s", id, len(hashes), testkit.Git(t, dir, "log", "--stat"))
			continue
		}
		if ts := st.Tasks[id]; !ts.Committed || ts.Commit != hashes[0] {
			t.Errorf("task %s: the state records commit %q (committed %v), git has %s", id, ts.Commit, ts.Committed, hashes[0])
		}
		files := strings.Fields(testkit.Git(t, dir, "show", "--format=", "--name-only", hashes[0]))
		if diff := cmp.Diff([]string{"f-" + id + ".txt"}, files); diff != "" {
			t.Errorf("task %s's commit (-want +got):\n%s", id, diff)
		}
	}
	records := strings.Fields(testkit.Git(t, dir, "log", "--format=%H", "--fixed-strings", "--grep=Harnish-Outcome: completed"))
	if len(records) != 1 {
		t.Errorf("%d records commits, want 1", len(records))
	} else {
		got := strings.Fields(testkit.Git(t, dir, "show", "--format=", "--name-only", records[0]))
		want := []string{".harnish/handoffs/T1.json", ".harnish/handoffs/T2.json", ".harnish/handoffs/T3.json",
			".harnish/logs/g/task-T1.json", ".harnish/logs/g/task-T2.json", ".harnish/logs/g/task-T3.json", ".harnish/summary.md"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the records commit (-want +got):\n%s", diff)
		}
	}
	var left []string
	for _, line := range strings.Split(testkit.Git(t, dir, "status", "--porcelain", "--untracked-files=all"), "\n") {
		if line != "" && !strings.Contains(line, loop.StateDir+"/") {
			left = append(left, line)
		}
	}
	if len(left) > 0 {
		t.Errorf("uncommitted: %v", left)
	}
	branches := strings.Fields(testkit.Git(t, dir, "branch", "--format=%(refname:short)"))
	if slices.Contains(branches, "harnish/g-1-2") {
		t.Errorf("a second branch was made")
	}
	for _, b := range branches {
		if strings.HasPrefix(b, "harnish/fork/") {
			t.Errorf("the fork branch %s of a task done is left", b)
		}
	}
	if wt := strings.Count(testkit.Git(t, dir, "worktree", "list", "--porcelain"), "worktree "); wt != 1 {
		t.Errorf("%d worktrees, want the tree's own only:\n%s", wt, testkit.Git(t, dir, "worktree", "list"))
	}
}

// TestLoopGitRecovers: what a person or a crash did to the repository
// between a run and its resume.
func TestLoopGitRecovers(t *testing.T) {
	plan := &task.Plan{Version: "1", Name: "g", Phases: []task.Phase{
		{ID: "p1", Title: "P1", Tasks: []task.Task{check("T1")}},
		{ID: "p2", Title: "P2", Tasks: []task.Task{check("T2")}},
	}}
	const branch = "harnish/g-1"
	for _, tc := range []struct {
		name string
		// between runs the first run (which stops at the gate) and a resume
		// with approval; it returns what the resume's error must say, if any.
		between func(t *testing.T, dir string) string
		// first, when set, fails the first run's commit in this way.
		hook string
	}{
		{name: "the person checked out main: resume goes back to the run's branch",
			between: func(t *testing.T, dir string) string {
				testkit.Git(t, dir, "checkout", "-q", "main")
				return ""
			}},
		{name: "the person checked out main and changed a file: resume refuses",
			between: func(t *testing.T, dir string) string {
				testkit.Git(t, dir, "checkout", "-q", "main")
				os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("mine\n"), 0o644)
				return "mine.txt"
			}},
		{name: "a crash left git's index locked: resume clears it and says so",
			between: func(t *testing.T, dir string) string {
				lock := filepath.Join(dir, ".git", "index.lock")
				os.WriteFile(lock, nil, 0o644)
				old := time.Now().Add(-time.Hour)
				os.Chtimes(lock, old, old)
				return ""
			}},
		{name: "a commit that fails ends the run in error with git's words; resume makes it",
			hook: "echo 'pre-commit: refused for the test' >&2; exit 1",
			between: func(t *testing.T, dir string) string {
				os.Remove(filepath.Join(dir, ".git", "hooks", "pre-commit"))
				return ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testkit.GitTree(t)
			testkit.Git(t, dir, "branch", "-M", "main")
			if tc.hook != "" {
				os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
				if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\n"+tc.hook+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			store := looptest.NewStore()
			var logs strings.Builder
			cfg := loop.Config{Plan: plan, WorkDir: dir, Executor: writeOwn, Store: store, Verifier: &looptest.Verifier{},
				CommitTasks: true, Branch: branch, RunID: "r1", Logger: slog.New(slog.NewTextHandler(&logs, nil))}
			l, err := loop.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := l.Run(context.Background())
			if tc.hook != "" {
				if res.Outcome != policy.Errored || !strings.Contains(res.Reason, "refused for the test") {
					t.Fatalf("run with a refusing hook: %s: %s, want error with git's stderr", res.Outcome, res.Reason)
				}
			} else if res.Outcome != policy.AwaitingApproval {
				t.Fatalf("run: %v", err)
			}
			refuse := tc.between(t, dir)
			cfg.Branch, cfg.Gate = "", loop.AutoApprove{}
			l, err = loop.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err = l.Resume(context.Background(), loop.ResumeOptions{Approve: true})
			if refuse != "" {
				if err == nil || !strings.Contains(err.Error(), refuse) || !strings.Contains(err.Error(), branch) {
					t.Fatalf("resume: %v, want a refusal naming %s and %s", err, refuse, branch)
				}
				if got := testkit.Git(t, dir, "branch", "--show-current"); got != "main" {
					t.Errorf("after the refusal, on %s", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("resume: %v\n%s", err, logs.String())
			}
			if got := testkit.Git(t, dir, "branch", "--show-current"); got != branch {
				t.Errorf("on branch %q, want %s", got, branch)
			}
			for _, id := range []string{"T1", "T2"} {
				if got := testkit.Git(t, dir, "log", "--format=%s", "--fixed-strings", "--grep=Harnish-Task: "+id, branch); strings.Count(got, "\n") != 0 || got == "" {
					t.Errorf("task %s's commits on %s: %q", id, branch, got)
				}
			}
			if got := testkit.Git(t, dir, "log", "--format=%s", "main"); got != "init" {
				t.Errorf("main moved: %q", got)
			}
			if strings.Contains(tc.name, "locked") && !strings.Contains(logs.String(), "index.lock") {
				t.Errorf("the lock's removal was not said:\n%s", logs.String())
			}
		})
	}
}

// recordingHistory is a History that records what the loop asks of it.
type recordingHistory struct {
	prepared []loop.PrepareRequest
	commits  []loop.CommitRequest
}

func (h *recordingHistory) Prepare(_ context.Context, r *loop.PrepareRequest) ([]string, error) {
	h.prepared = append(h.prepared, *r)
	return nil, nil
}

func (h *recordingHistory) Commit(_ context.Context, r *loop.CommitRequest) (string, error) {
	h.commits = append(h.commits, *r)
	return fmt.Sprintf("c%d", len(h.commits)), nil
}

// TestLoopOwnHistory: an embedder's History keeps the run's commits, with
// no git at all; a resume after a crash between a task's end and its commit
// asks it to find the commit before making one.
func TestLoopOwnHistory(t *testing.T) {
	plan := onePhase(check("T1"), check("T2"))
	inner := looptest.NewStore()
	h := &recordingHistory{}
	cfg := loop.Config{Plan: plan, WorkDir: t.TempDir(), Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{},
		CommitTasks: true, Branch: "runs/r1", History: h, RunID: "r1"}
	// Crash right after T1's task.finished is durable (the 3rd commit:
	// run.started; task and attempt started; attempt and task finished).
	cfg.Store = &crashStore{Store: inner, at: 3}
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); l.Run(context.Background()) }()
	<-done
	if ts := inner.Transitions(); len(h.commits) != 0 || ts[len(ts)-1].Kind != policy.TransTaskFinished {
		t.Fatalf("before the crash: commits %+v, last transition %s", h.commits, ts[len(ts)-1].Kind)
	}
	cfg.Store, cfg.Branch = inner, ""
	if l, err = loop.New(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Resume(context.Background(), loop.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	var finds [][]string
	for _, c := range h.commits {
		finds = append(finds, c.Find)
	}
	want := [][]string{{"Harnish-Run: r1", "Harnish-Task: T1"}, nil}
	if diff := cmp.Diff(want, finds); diff != "" {
		t.Errorf("commits' lookups (-want +got):\n%s", diff)
	}
	if len(h.prepared) != 2 || h.prepared[1].Branch != "runs/r1" {
		t.Errorf("prepared: %+v", h.prepared)
	}
	st, _ := inner.Load(context.Background())
	if st.Tasks["T1"].Commit != "c1" || st.Tasks["T2"].Commit != "c2" {
		t.Errorf("recorded commits: %q %q", st.Tasks["T1"].Commit, st.Tasks["T2"].Commit)
	}
}
