package executor_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/task"
)

func TestRender(t *testing.T) {
	tk := &task.Task{ID: "T1", Title: "divide", Objective: "Add Divide.", Files: []string{"calc.go"},
		Acceptance: []task.Check{{Run: []string{"go", "test", "./..."}}, {Sh: "go vet ./..."}, {Manual: "docs read well"}}}
	got := executor.Render(executor.PromptParts{
		Spec:      executor.Spec(tk),
		Handoffs:  []executor.Handoff{{TaskID: "T0", Text: "calc package exists\n"}},
		Failures:  []executor.Failure{{Attempt: 1, Class: "test", Summary: "TestDivide failed", OutputTail: "--- FAIL: TestDivide\n"}},
		Findings:  []executor.Finding{{Severity: "critical", File: "calc.go", Line: 3, Message: "divides by zero"}},
		Diagnosis: &executor.Diagnosis{Found: true, RootCause: "no zero check", Fix: "return an error for b == 0"},
		Warnings:  []executor.Warning{{Rule: "edit.scope", Reason: "README.md is outside the task's files"}},
	})
	want := "Task T1: divide\n\nAdd Divide.\n\nFiles in scope: calc.go\n\n" +
		"The harness runs these checks; the task is done when they pass:\n" +
		"- run: go test ./...\n- sh: go vet ./...\n- a person checks: docs read well\n" +
		"\n## Handoffs from earlier tasks\n### T0\ncalc package exists\n" +
		"\n## Previous attempts failed\n- attempt 1 (test): TestDivide failed\n```\n--- FAIL: TestDivide\n```\n" +
		"\n## Review findings to fix\n- [critical] calc.go:3: divides by zero\n" +
		"\n## Root cause found by the debugger\nno zero check\n\nSmallest fix: return an error for b == 0\n" +
		"\n## Guardrail warnings\n- edit.scope: README.md is outside the task's files\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prompt (-want +got):\n%s", diff)
	}
}
