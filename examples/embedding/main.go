// Command embedding shows harnish used as a library: load a plan strictly,
// report its problems, and read the durable state of the run in a working
// tree. Run it from the repository root:
//
//	go run ./examples/embedding examples/quickstart/testdata/project/plan.yaml .
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/task"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: embedding PLAN WORKTREE")
		os.Exit(1)
	}
	plan, err := task.Load(os.Args[1]) // every problem at once, with file:line:col
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, w := range plan.Validate().Warnings() {
		fmt.Println(w) // e.g. a task without acceptance criteria
	}
	for _, pt := range plan.Tasks() {
		fmt.Printf("%s/%s %q: %d checks, budget %+v\n", pt.Phase.ID, pt.Task.ID, pt.Task.Title,
			len(pt.Task.Acceptance), plan.TaskBudget(pt.Task))
	}
	st, err := loop.ReadState(filepath.Join(os.Args[2], loop.StateDir))
	switch {
	case errors.Is(err, loop.ErrNoState):
		fmt.Println("no run recorded yet")
	case err != nil:
		fmt.Fprintln(os.Stderr, err) // a corrupt state names its file; nothing is overwritten
		os.Exit(1)
	default:
		fmt.Printf("run %s: %d transitions, outcome %q\n", st.Run, st.Seq, st.Outcome)
	}
}
