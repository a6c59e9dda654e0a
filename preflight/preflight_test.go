package preflight_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/preflight"
	"github.com/harnish/harnish/task"
)

func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "init")
	return dir
}

func TestRun(t *testing.T) {
	dir := tree(t, map[string]string{"internal/cache/cache.go": "package cache\n", "go.mod": "module x\n"})
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	plan := &task.Plan{Version: "1", Name: "p", Phases: []task.Phase{{ID: "a", Title: "A", Tasks: []task.Task{
		{ID: "T1", Title: "Retry", Objective: "Modify internal/cache/client.go so lookups retry.",
			Files: []string{"internal/cache/client.go"}, Acceptance: []task.Check{{Run: []string{"go", "test", "./internal/cache/..."}}}},
		{ID: "T2", Title: "Docs", Acceptance: []task.Check{{Manual: "reads well"}}},
		{ID: "T3", Title: "Lint", Files: []string{"internal/cache/cache.go", "intrnal/cache/lint.go"},
			Acceptance: []task.Check{{Sh: "cd internal && FOO=1 harnish-no-such-tool --check && test -f x"}}},
		{ID: "T4", Title: "Old", Status: task.StatusDone, Acceptance: []task.Check{{Manual: "was fine"}}},
	}}}}
	plan.Context = []string{"internal/*/*.go", "AGENTS.md"}
	r, err := preflight.Run(context.Background(), preflight.Config{Plan: plan, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []preflight.Finding{
		{Kind: "input", Task: "T1", Blocking: true,
			Expected: `internal/cache/client.go exists (task T1: "Modify internal/cache/client.go")`, Found: "no such file"},
		{Kind: "checks", Task: "T2", Blocking: true, Message: "no check that runs: nothing would tell it is done"},
		{Kind: "input", Task: "T3", Blocking: true, Expected: "intrnal/ exists, beside the task's other files", Found: "no intrnal/ in the tree (scope: intrnal/cache/lint.go)"},
		{Kind: "input", Message: `context "AGENTS.md" names no file in the working tree: the prompts go without it`},
		{Kind: "tree", Message: "uncommitted changes (notes.txt): commit or stash them"},
		{Kind: "budget", Message: "no cap on the run's tokens, cost or time: set budget.tokens, budget.cost_usd or budget.run_timeout"},
		{Kind: "tool", Blocking: true, Message: "harnish-no-such-tool is not on PATH; the checks run it"},
	}
	if diff := cmp.Diff(want, r.Findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if !r.Blocking() {
		t.Error("not blocking")
	}
	names := map[string]preflight.Tool{}
	for _, tool := range r.Tools {
		names[tool.Name] = tool
	}
	if g := names["go"]; g.Path == "" || !strings.HasPrefix(g.Version, "go version go1.") {
		t.Errorf("go: %+v", g)
	}
	if diff := cmp.Diff([]string{"go", "sh", "harnish-no-such-tool"}, toolNames(r.Tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got := r.Findings[0].String(); got != "Expected: internal/cache/client.go exists (task T1: \"Modify internal/cache/client.go\")\nFound: no such file\nHow should I proceed?" {
		t.Errorf("String() = %q", got)
	}

	// A clean tree, capped, every check runnable: nothing to say.
	os.Remove(filepath.Join(dir, "notes.txt"))
	plan.Budget.CostUSD = 5
	plan.Context = plan.Context[:1]
	plan.Phases[0].Tasks = plan.Phases[0].Tasks[3:]
	plan.Phases[0].Tasks = append(plan.Phases[0].Tasks, task.Task{ID: "T5", Title: "t", Objective: "Update internal/cache/cache.go",
		Acceptance: []task.Check{{GoTest: &task.GoTestCheck{}}}})
	r, err = preflight.Run(context.Background(), preflight.Config{Plan: plan, Dir: dir, DirtyBlocks: true, BudgetBlocks: true})
	if err != nil || len(r.Findings) != 0 || r.Blocking() {
		t.Errorf("findings %+v, %v", r.Findings, err)
	}
	_ = cmpopts.EquateEmpty()
}

func toolNames(ts []preflight.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}
