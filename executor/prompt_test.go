package executor_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
)

var update = flag.Bool("update", false, "rewrite the golden files of the prompt tests")

func promptTask() *task.Task {
	return &task.Task{ID: "T2", Title: "divide", Objective: "Add Divide(a, b) to the calc package.\nReturn an error for b == 0.",
		Files: []string{"calc/calc.go", "calc/calc_test.go"}, DependsOn: []string{"T1"},
		Acceptance: []task.Check{{Run: []string{"go", "test", "./calc/..."}}, {Sh: "go vet ./..."},
			{GoTest: &task.GoTestCheck{Flags: []string{"-race"}}}, {Manual: "the docs read well"}}}
}

// fullParts has every section, with sizes that make trimming visible.
func fullParts() executor.PromptParts {
	return executor.PromptParts{
		Spec:         executor.Spec(promptTask()),
		Prohibitions: executor.Prohibitions(task.Guardrails{Protected: []string{"secrets/"}, Packages: map[string][]string{"npm": {"zod"}, "go": {"github.com/google/go-cmp"}}}),
		Handoffs: []executor.Handoff{
			{TaskID: "T0", Text: "The module is github.com/x/calc.\n"},
			{TaskID: "T1", Text: "calc.Add exists; tests use table style.\n"},
		},
		Failures: []executor.Failure{
			{Attempt: 1, Class: "compile", Fingerprint: "compile:1a2b3c4d", Reason: "calc.go:9: undefined: errZero", OutputTail: "calc/calc.go:9:10: undefined: errZero\n"},
			{Attempt: 2, Class: "test", Fingerprint: "test:5e6f7a8b", Reason: "TestDivide/zero failed",
				OutputTail: strings.Repeat("=== RUN   TestDivide/ok\n", 30) + "--- FAIL: TestDivide/zero (0.00s)\n    calc_test.go:21: Divide(1, 0) error = nil, want errZero\n"},
		},
		Findings: []executor.Finding{
			{Severity: schema.SeverityLow, File: "calc/calc.go", Message: "doc comment missing"},
			{Severity: schema.SeverityCritical, File: "calc/calc.go", Line: 12, Message: "divides by zero before the check", Rule: "logic"},
		},
		Diagnosis: &executor.Diagnosis{Found: true, RootCause: "the zero check comes after the division", Fix: "move the b == 0 check to the top of Divide"},
		Warnings:  []executor.Violation{{Rule: "edit.scope", Reason: "README.md is outside the task's files"}},
		Assets: []executor.Asset{
			{Type: "pattern", Slug: "table-tests", Text: "[pattern] table-tests: write table-driven tests with t.Run\n"},
			{Type: "failure", Slug: "zero-div", Text: "[failure] zero-div: check divisors before dividing\n"},
		},
	}
}

// TestRenderGolden: the prompt is deterministic and sectioned; over budget it
// loses the least important sections first. Rerun with -update to rewrite
// testdata/prompt/*.golden after a deliberate change, and read the diff.
func TestRenderGolden(t *testing.T) {
	whole := executor.RenderWithin(fullParts(), 0)
	full := len(whole)
	// A budget the whole prompt fits in changes nothing.
	if got := executor.RenderWithin(fullParts(), full); got != whole {
		t.Errorf("a budget of exactly the prompt's size trims it:\n%s", got)
	}
	tests := []struct {
		name   string
		parts  executor.PromptParts
		budget int
	}{
		{"first-attempt", executor.PromptParts{Spec: executor.Spec(promptTask()), Prohibitions: executor.Prohibitions(task.Guardrails{})}, 0},
		{"full", fullParts(), 0},
		{"no-experience", fullParts(), full - 1},
		{"down-to-failures-and-findings", fullParts(), full - 200},
		{"last-failure-only", fullParts(), full - 450},
		{"tail-cut", fullParts(), full - 900},
		{"only-what-is-never-cut", fullParts(), 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := executor.RenderWithin(tt.parts, tt.budget)
			if again := executor.RenderWithin(tt.parts, tt.budget); again != got {
				t.Fatal("two renders of the same parts differ")
			}
			golden := filepath.Join("testdata", "prompt", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("prompt (-%s +got):\n%s", golden, diff)
			}
			if tt.budget > 0 && len(got) > tt.budget && tt.name != "only-what-is-never-cut" {
				t.Errorf("%d bytes, over the budget of %d", len(got), tt.budget)
			}
		})
	}
}

// TestRenderWithinBudget: for every budget from the untrimmable core up to
// the whole, the prompt fits and keeps the spec, the prohibitions, the
// critical finding, the diagnosis and the last failure's fingerprint.
func TestRenderWithinBudget(t *testing.T) {
	p := fullParts()
	whole := executor.RenderWithin(p, 0)
	core := executor.RenderWithin(executor.PromptParts{Spec: p.Spec, Prohibitions: p.Prohibitions, Diagnosis: p.Diagnosis, Findings: p.Findings[1:],
		Failures: []executor.Failure{{Attempt: 2, Class: "test", Fingerprint: "test:5e6f7a8b", Reason: "TestDivide/zero failed"}}}, 0)
	for budget := len(core) + 200; budget <= len(whole)+10; budget += 7 {
		got := executor.RenderWithin(p, budget)
		if len(got) > budget {
			t.Fatalf("budget %d: %d bytes", budget, len(got))
		}
		for _, must := range []string{p.Spec, "## Prohibitions", "[critical] calc/calc.go:12", "Smallest fix: move the b == 0 check", "fingerprint test:5e6f7a8b"} {
			if !strings.Contains(got, must) {
				t.Fatalf("budget %d: lost %q:\n%s", budget, must, got)
			}
		}
		// Experience goes before handoffs: never a handoff dropped while
		// experience stays.
		if strings.Contains(got, "table-tests") && !strings.Contains(got, "calc.Add exists") {
			t.Fatalf("budget %d: trimmed out of order:\n%s", budget, got)
		}
	}
	if got := executor.Render(p); got != whole {
		t.Error("Render trims a prompt well within DefaultPromptBudget")
	}
}

func ExampleRenderWithin() {
	p := executor.PromptParts{
		Spec:     executor.Spec(&task.Task{ID: "T1", Title: "greet", Acceptance: []task.Check{{Run: []string{"go", "test", "./..."}}}}),
		Failures: []executor.Failure{{Attempt: 1, Class: "test", Fingerprint: "test:9f8e", Reason: "TestGreet failed"}},
	}
	fmt.Print(executor.RenderWithin(p, 1000))
	// Output:
	// # Task T1: greet
	//
	// ## Scope
	// The task declares no files: keep the change small and on its objective.
	//
	// ## Acceptance checks
	// The harness runs these checks; the task is done only when they pass:
	// - run: go test ./...
	//
	// ## The last attempt failed
	// - attempt 1 (test): TestGreet failed
	//   fingerprint test:9f8e: the same fingerprint twice brings in the debugger
}

// Cutting the last failure's output tail cuts the tail, not a code fence
// the failure's summary happens to hold.
func TestRenderTailCutSummaryWithFence(t *testing.T) {
	summary := "parse error near ```\nfunc main() {\n``` in main.go"
	p := executor.PromptParts{Spec: executor.Spec(promptTask()), Failures: []executor.Failure{{
		Attempt: 1, Class: "build", Fingerprint: "build:1", Reason: summary,
		OutputTail: strings.Repeat("noise line\n", 200) + "main.go:3: the cause\n"}}}
	whole := executor.RenderWithin(p, 0)
	got := executor.RenderWithin(p, len(whole)-500)
	for _, must := range []string{summary, "main.go:3: the cause", "left out to fit the prompt budget"} {
		if !strings.Contains(got, must) {
			t.Errorf("lost %q:\n%s", must, got)
		}
	}
	if len(got) > len(whole)-500 {
		t.Errorf("%d bytes, over the budget of %d", len(got), len(whole)-500)
	}
}

// The tasks done so far and the project's context have sections of their
// own; over budget, the oldest tasks done go first, then the last context
// files, while where the task stands stays.
func TestRenderProgressAndContext(t *testing.T) {
	p := executor.PromptParts{Spec: "# Task T3: c\n", Progress: "Task 3 of 3, in phase p1 (P1).",
		Done:    []executor.TaskSummary{{TaskID: "T1", Title: "a", Line: "added a"}, {TaskID: "T2", Title: "b", Line: "added b"}},
		Context: []executor.ContextFile{{Path: "AGENTS.md", Text: "Use gofmt.\n"}, {Path: "docs/big.md", Text: strings.Repeat("x", 400)}}}
	full := executor.RenderWithin(p, 0)
	for _, want := range []string{"## Where this task stands\nTask 3 of 3, in phase p1 (P1).\nDone so far, in order:\n- T1 a: added a\n- T2 b: added b\n",
		"## Project context\n### AGENTS.md\nUse gofmt.\n### docs/big.md\n"} {
		if !strings.Contains(full, want) {
			t.Errorf("prompt lacks %q:\n%s", want, full)
		}
	}
	// Over by a little: the last context file goes.
	mid := executor.RenderWithin(p, len(full)-300)
	if strings.Contains(mid, "docs/big.md") || !strings.Contains(mid, "### AGENTS.md") || !strings.Contains(mid, "- T1 a") {
		t.Errorf("over by a little, not only the last context file went:\n%s", mid)
	}
	// At every budget: where the task stands stays, a task done is left out
	// only after every context file and every task done before it.
	for b := len(full); b > 0; b-- {
		got := executor.RenderWithin(p, b)
		switch {
		case !strings.Contains(got, "Task 3 of 3"):
			t.Fatalf("budget %d: where the task stands is left out:\n%s", b, got)
		case strings.Contains(got, "- T1 a") && !strings.Contains(got, "- T2 b"):
			t.Fatalf("budget %d: a newer task done went before an older one:\n%s", b, got)
		case !strings.Contains(got, "- T2 b") && strings.Contains(got, "### AGENTS.md"):
			t.Fatalf("budget %d: a task done went before the context:\n%s", b, got)
		}
	}
}

func TestReadContext(t *testing.T) {
	fsys := fstest.MapFS{
		"AGENTS.md":     {Data: []byte("rules\n")},
		"docs/a.md":     {Data: []byte("a\n")},
		"docs/b.md":     {Data: []byte("b\n")},
		"docs/big.md":   {Data: []byte(strings.Repeat("é", executor.MaxContextFile))},
		"docs/sub/c.md": {Data: []byte("c\n")},
	}
	files, missing := executor.ReadContext(fsys, []string{"AGENTS.md", "docs/*.md", "docs/a.md", "NOTES.md", "src/*.md"})
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if diff := cmp.Diff([]string{"AGENTS.md", "docs/a.md", "docs/b.md", "docs/big.md"}, paths); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"NOTES.md", "src/*.md"}, missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
	big := files[3].Text
	if len(big) > executor.MaxContextFile+64 || !utf8.ValidString(big) || !strings.HasSuffix(big, "[… the rest of the file is left out]\n") {
		t.Errorf("a long file is not cut to the bound at a character: %d bytes, valid %t", len(big), utf8.ValidString(big))
	}
}
