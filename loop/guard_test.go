package loop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// writes returns an act that writes a file in the working tree.
func writes(name, text string) looptest.Act {
	return looptest.Act{Do: func(req *executor.Request) error {
		path := filepath.Join(req.WorkDir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(text), 0o644)
	}}
}

type violation struct{ Task, Level, Rule string }

func violations(rec *looptest.Recorder) []violation {
	var out []violation
	for _, e := range rec.Events() {
		if e.Type == loop.GuardrailViolated {
			out = append(out, violation{e.Task, e.Level, e.Rule})
		}
	}
	return out
}

// TestLoopAuditsTheDiff: after every attempt the change passes the edit
// rules; a soft decision is reported and put in the next attempt's prompt, a
// hard one stops the run at once, whatever the checks say.
func TestLoopAuditsTheDiff(t *testing.T) {
	dir := testkit.GitTree(t)
	plan := &task.Plan{Version: "1", Name: "g", Guardrails: task.Guardrails{Protected: []string{"secrets/"}},
		Phases: []task.Phase{{ID: "p1", Title: "P", Tasks: []task.Task{
			{ID: "T1", Title: "t1", Files: []string{"a.txt"}, Acceptance: []task.Check{{Run: []string{"true"}}}},
			{ID: "T2", Title: "t2", Files: []string{"b.txt"}, Acceptance: []task.Check{{Run: []string{"true"}}}},
		}}}}
	g, err := guardrail.NewEditGuard(guardrail.PlanEditConfig(plan, os.DirFS(dir)))
	if err != nil {
		t.Fatal(err)
	}
	ex := &looptest.Executor{Script: map[string][]looptest.Act{
		"T1": {writes("notes.txt", "outside the scope\n"), writes("a.txt", "in scope\n")},
		"T2": {writes("secrets/key.txt", "touching a protected path\n")},
	}}
	res, rec, err := looptest.Run(t, loop.Config{Plan: plan, WorkDir: dir, Executor: ex, Guardrail: g,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x"}}}})
	if !errors.Is(err, policy.ErrStoppedByGuardrail) {
		t.Fatalf("Run: %v", err)
	}
	// Every decision is reported, the soft one beside the hard one too.
	want := []violation{{"T1", "soft", guardrail.RuleEditScope}, {"T2", "hard", guardrail.RuleEditProtected}, {"T2", "soft", guardrail.RuleEditScope}}
	if diff := cmp.Diff(want, violations(rec)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if reqs := ex.Requests(); len(reqs) != 3 || len(reqs[1].Parts.Warnings) != 1 || !strings.Contains(reqs[1].Prompt, "## Guardrail warnings") {
		t.Errorf("attempt 2 of T1 was not told of the soft decision: %+v", reqs[1].Parts.Warnings)
	}
	if res.Outcome != policy.StoppedByGuardrail || res.Outcome.ExitCode() != 3 {
		t.Errorf("outcome %s", res.Outcome)
	}
	if f := res.State.Tasks["T2"].Failures; len(f) != 1 || f[0].Kind != policy.FailGuardrail {
		t.Errorf("T2 failures %+v", f)
	}
}

type panicky struct{}

func (panicky) Check(context.Context, guardrail.Action) (guardrail.Decision, error) {
	panic("rule bug")
}

// TestLoopGuardrailPanics: a guardrail that panics fails closed.
func TestLoopGuardrailPanics(t *testing.T) {
	dir := testkit.GitTree(t)
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {writes("a.txt", "x\n")}}}
	_, rec, err := looptest.Run(t, loop.Config{Plan: onePhase(check("T1")), WorkDir: dir, Executor: ex, Guardrail: panicky{}})
	if !errors.Is(err, policy.ErrStoppedByGuardrail) {
		t.Fatalf("Run: %v", err)
	}
	if diff := cmp.Diff([]violation{{"T1", "hard", guardrail.RuleError}}, violations(rec)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestLoopCommitsTasks: each task done is one commit with its changes only,
// its metadata in trailers; the run's records are one commit at the end,
// and the state files are never committed.
func TestLoopCommitsTasks(t *testing.T) {
	dir := testkit.GitTree(t)
	ex := &looptest.Executor{Script: map[string][]looptest.Act{
		"T1": {writes("a.txt", "a\n")},
		"T2": {writes("b.txt", "b\n")},
	}}
	records := filepath.Join(dir, loop.StateDir)
	if _, _, err := looptest.Run(t, loop.Config{Plan: onePhase(check("T1"), check("T2")), WorkDir: dir, Executor: ex,
		CommitTasks: true, RecordsDir: records}); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string { return testkit.Git(t, dir, args...) }
	if got := git("log", "--format=%s", "-3"); got != "chore(harnish): records of run test-run (completed)\nfeat(p1): T2 — T2\nfeat(p1): T1 — T1" {
		t.Errorf("commits:\n%s", got)
	}
	if got := git("show", "--name-only", "--format=%(trailers:key=Harnish-Task,key=Harnish-Attempts)", "HEAD~2"); got != "Harnish-Task: T1\nHarnish-Attempts: 1\n\n\na.txt" {
		t.Errorf("first commit:\n%s", got)
	}
	// The run's records are committed apart; its state files never are.
	want := ".harnish/handoffs/T1.json\n.harnish/handoffs/T2.json\n.harnish/logs/p/task-T1.json\n.harnish/logs/p/task-T2.json\n.harnish/summary.md"
	if got := git("show", "--name-only", "--format=", "HEAD"); got != want {
		t.Errorf("the records commit holds:\n%s\nwant:\n%s", got, want)
	}
	if got := git("ls-files", loop.StateDir); got != want {
		t.Errorf("files of the state directory in git:\n%s", got)
	}
}

// TestLoopRollback: a failed attempt's changes are rolled back, so the next
// attempt starts from the tree before it; a passing attempt's stay.
func TestLoopRollback(t *testing.T) {
	dir := testkit.GitTree(t)
	seen := ""
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {
		writes("broken.txt", "half done\n"),
		{Do: func(req *executor.Request) error {
			if _, err := os.Stat(filepath.Join(req.WorkDir, "broken.txt")); err == nil {
				seen = "attempt 2 saw attempt 1's change"
			}
			return os.WriteFile(filepath.Join(req.WorkDir, "good.txt"), []byte("done\n"), 0o644)
		}},
	}}}
	_, _, err := looptest.Run(t, loop.Config{Plan: onePhase(check("T1")), WorkDir: dir, Executor: ex, Rollback: true,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if seen != "" {
		t.Error(seen)
	}
	if _, err := os.Stat(filepath.Join(dir, "good.txt")); err != nil {
		t.Errorf("the passing attempt's change is gone: %v", err)
	}
}

// TestLoopHookViolations: what the agent's hooks decided during an attempt,
// as the executor reports it, counts like the loop's own audit: a hard
// decision stops the run whatever the claim or the error, a soft one reaches
// the next prompt.
func TestLoopHookViolations(t *testing.T) {
	hard := executor.Violation{Hard: true, Rule: "shell.rm-recursive", Reason: "rm -rf", Action: "rm -rf src"}
	soft := executor.Violation{Rule: "shell.network", Reason: "curl", Action: "curl x"}
	tests := []struct {
		name    string
		acts    []looptest.Act
		outcome policy.Outcome
		want    []violation
	}{
		{"hard on a done claim", []looptest.Act{{Violations: []executor.Violation{hard}}},
			policy.StoppedByGuardrail, []violation{{"T1", "hard", hard.Rule}}},
		{"hard on a crash", []looptest.Act{{Crash: "agent died", Violations: []executor.Violation{hard}}},
			policy.StoppedByGuardrail, []violation{{"T1", "hard", hard.Rule}}},
		{"hard on a blocked claim", []looptest.Act{{Blocked: "stuck", Violations: []executor.Violation{soft, hard}}},
			policy.StoppedByGuardrail, []violation{{"T1", "soft", soft.Rule}, {"T1", "hard", hard.Rule}}},
		{"soft goes on", []looptest.Act{{Violations: []executor.Violation{soft}}},
			policy.Completed, []violation{{"T1", "soft", soft.Rule}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": tc.acts}}
			// T1's first checks fail, so a second attempt shows what it was told.
			res, rec, _ := looptest.Run(t, loop.Config{Plan: onePhase(check("T1"), check("T2")), Executor: ex,
				Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x"}}}})
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %s (%s), want %s", res.Outcome, res.Reason, tc.outcome)
			}
			if diff := cmp.Diff(tc.want, violations(rec)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if tc.outcome == policy.StoppedByGuardrail {
				if f := res.State.Tasks["T1"].Failures; len(f) != 1 || f[0].Kind != policy.FailGuardrail {
					t.Errorf("T1 failures %+v", f)
				}
				return
			}
			if reqs := ex.Requests(); len(reqs) < 2 || len(reqs[1].Parts.Warnings) != 1 {
				t.Errorf("the next attempt was not told of the soft decision")
			}
		})
	}
}
