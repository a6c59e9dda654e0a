package seed_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/seed"
)

// An agent that answers with the plan in its message; the first draft is
// refused for a task without a check that runs, the second is the plan.
func ExampleDraft() {
	dir, _ := os.MkdirTemp("", "seed-example-")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "prd-cache.md"), []byte("# Cache\n\n## Tests\n- go test ./cache/...\n"), 0o644)

	check := "manual: it works"
	agent := executor.Func(func(_ context.Context, req *executor.Request) (*executor.Result, error) {
		plan := "version: 1\nname: cache\nphases:\n  - id: logic\n    title: Logic\n    tasks:\n" +
			"      - id: T1\n        title: Cache\n        acceptance:\n          - " + check + "\n"
		check = "run: [go, test, ./cache/...]" // the feedback is taken
		return &executor.Result{Status: executor.StatusDone, Summary: "```yaml\n" + plan + "```"}, nil
	})
	res, err := seed.Draft(context.Background(), seed.Config{Executor: agent, Dir: dir}, seed.Request{PRD: "docs/prd-cache.md"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("rounds:", res.Rounds)
	fmt.Println("fed back:", res.Feedback[0][0])
	fmt.Printf("Seeding complete: %d phases, %d tasks\n", len(res.Plan.Phases), len(res.Plan.Tasks()))
	// Output:
	// rounds: 2
	// fed back: harnish-plan.draft.yaml: phases[0].tasks[0].acceptance: task "T1" has no check that runs (run, sh, gotest or cmake); take its criteria from the PRD's test section
	// Seeding complete: 1 phases, 1 tasks
}
