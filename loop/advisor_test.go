package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
)

// The advisor's PLAN opens the next prompt, its CORRECTION goes with the
// debugger's fix, each consultation is an event and a line of the audit log.
func TestLoopAdvisor(t *testing.T) {
	tk := check("T1")
	tk.Risk = task.RiskHigh
	plan := onePhase(tk)
	ex := &looptest.Executor{}
	adv := &looptest.Advisor{Script: map[string][]executor.Advice{"T1": {
		{Verdict: schema.AdvisePlan, Text: "start from the failing test"},
		{Verdict: schema.AdviseCorrection, Text: "divide by the other operand"},
	}}}
	dir := t.TempDir()
	_, rec, err := looptest.Run(t, loop.Config{Plan: plan, Executor: ex, Advisor: adv, RecordsDir: dir,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}},
		Debugger: &looptest.Debugger{Found: map[string]bool{"T1": true}}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := ex.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d attempts, want 3", len(reqs))
	}
	if p := reqs[0].Prompt; !strings.HasPrefix(p, "## Advice before you start\nstart from the failing test\n") {
		t.Errorf("attempt 1's prompt does not open with the advice:\n%s", p)
	}
	if reqs[1].Parts.Advice != nil {
		t.Errorf("attempt 2 was told advice given before attempt 1: %+v", reqs[1].Parts.Advice)
	}
	for _, want := range []string{"## Correction from the advisor\ndivide by the other operand", "Smallest fix: scripted fix"} {
		if !strings.Contains(reqs[2].Prompt, want) {
			t.Errorf("attempt 3's prompt lacks %q:\n%s", want, reqs[2].Prompt)
		}
	}
	asked := adv.Requests()
	if len(asked) != 2 || asked[0].Point != schema.AtHighRisk || asked[1].Point != schema.AtRepeat || len(asked[1].Failures) != 2 {
		t.Fatalf("advisor requests: %+v", asked)
	}
	var consulted []string
	for _, e := range rec.Events() {
		if e.Type == loop.AdvisorConsulted {
			consulted = append(consulted, e.Message)
		}
	}
	want := []string{"high-risk: PLAN start from the failing test", "repeat: CORRECTION divide by the other operand"}
	if diff := cmp.Diff(want, consulted); diff != "" {
		t.Errorf("advisor events (-want +got):\n%s", diff)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "logs", plan.Name, "task-T1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var audit loop.AuditLog
	if err := json.Unmarshal(raw, &audit); err != nil {
		t.Fatal(err)
	}
	if len(audit.Advice) != 2 || audit.Advice[1].Verdict != schema.AdviseCorrection || audit.Advice[1].Attempt != 2 {
		t.Errorf("audit log advice: %+v", audit.Advice)
	}
}

// An advisor that says STOP ends the run escalated with its reason; one
// that fails is no answer, and the run goes on.
func TestLoopAdvisorStopsOrFails(t *testing.T) {
	tk := check("T1")
	tk.Risk = task.RiskHigh
	_, _, err := looptest.Run(t, loop.Config{Plan: onePhase(tk, check("T2")),
		Advisor: &looptest.Advisor{Script: map[string][]executor.Advice{"T1": {{Verdict: schema.AdviseStop, Text: "the schema migration is irreversible"}}}}})
	var oe *policy.OutcomeError
	if !errors.As(err, &oe) || oe.Outcome != policy.Escalated || !strings.Contains(oe.Reason, "the advisor said STOP: the schema migration is irreversible") {
		t.Fatalf("run error %v, want escalated by the advisor's STOP", err)
	}

	for name, a := range map[string]executor.Advisor{
		"an error": &looptest.Advisor{},
		"a panic": executor.AdvisorFunc(func(context.Context, *executor.AdviceRequest) (*executor.Advice, error) {
			panic("advisor bug")
		}),
		"an answer not to act on": executor.AdvisorFunc(func(context.Context, *executor.AdviceRequest) (*executor.Advice, error) {
			return &executor.Advice{Verdict: "MAYBE", Text: "?"}, nil
		}),
	} {
		res, rec, err := looptest.Run(t, loop.Config{Plan: onePhase(tk), Advisor: a})
		if err != nil || res.Outcome != policy.Completed {
			t.Errorf("%s: run %v, %v; want completed", name, res.Outcome, err)
		}
		if lines := rec.Lines(); !slices.Contains(lines, "advisor.finished T1") {
			t.Errorf("%s: no advisor event: %v", name, lines)
		}
	}
}

// Every prompt says where its task stands in the plan, lists the tasks done
// before it with what their agents said, and carries the project's context
// files as the attempt's tree has them.
func TestLoopPromptCarriesProgressAndContext(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Run gofmt before you finish.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := twoPhasePlan()
	plan.Context = []string{"AGENTS.md", "docs/*.md"}
	ex := &looptest.Executor{}
	_, _, err := looptest.Run(t, loop.Config{Plan: plan, WorkDir: dir, Executor: ex, Gate: &looptest.Gate{}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := ex.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d attempts, want 3", len(reqs))
	}
	last := reqs[2]
	if want := "Task 3 of 3, in phase p2 (P2)."; last.Parts.Progress != want {
		t.Errorf("progress %q, want %q", last.Parts.Progress, want)
	}
	wantDone := []executor.TaskSummary{{TaskID: "T1", Title: "T1", Line: "scripted"}, {TaskID: "T2", Title: "T2", Line: "scripted"}}
	if diff := cmp.Diff(wantDone, last.Parts.Done); diff != "" {
		t.Errorf("tasks done (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]executor.ContextFile{{Path: "AGENTS.md", Text: "Run gofmt before you finish.\n"}}, last.Parts.Context); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
	if !strings.Contains(last.Prompt, "## Project context\n### AGENTS.md\nRun gofmt before you finish.") {
		t.Errorf("prompt lacks the context:\n%s", last.Prompt)
	}
}

// What an agent leaves the tasks after it (decisions, open questions, a
// blocker) is kept in its handoff and told to the next task.
func TestLoopHandoffCarriesNotes(t *testing.T) {
	var prompts []string
	ex := executor.Func(func(_ context.Context, req *executor.Request) (*executor.Result, error) {
		prompts = append(prompts, req.Prompt)
		res := &executor.Result{Status: executor.StatusDone, Summary: "did " + req.Task.ID}
		if req.Task.ID == "T1" {
			res.Decisions, res.OpenQuestions, res.Blocker = []string{"kept the float API"}, []string{"rename Div?"}, "the CI key expires"
		}
		return res, nil
	})
	_, _, err := looptest.Run(t, loop.Config{Plan: onePhase(check("T1"), check("T2")), Executor: ex})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Decision: kept the float API", "Open question: rename Div?", "Blocker: the CI key expires"} {
		if !strings.Contains(prompts[1], want) {
			t.Errorf("T2's prompt lacks %q:\n%s", want, prompts[1])
		}
	}
}
