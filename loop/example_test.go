package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// A run's state survives the process: commit transitions, and any later
// reader sees them.
func ExampleOpenDir() {
	dir, _ := os.MkdirTemp("", "harnish-example")
	defer os.RemoveAll(dir)
	stateDir := filepath.Join(dir, loop.StateDir)

	store, err := loop.OpenDir(stateDir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	err = store.Commit(context.Background(),
		policy.Transition{Kind: policy.TransRunStarted, Time: at, Run: "run-1", Plan: "add-division"},
		policy.Transition{Kind: policy.TransTaskStarted, Time: at, Phase: "api", Task: "T1"},
		policy.Transition{Kind: policy.TransAttemptStarted, Time: at, Task: "T1", Attempt: 1},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	store.Close()

	st, err := loop.ReadState(stateDir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("run %s of %s: task T1 %s, attempt %d, %d transitions\n",
		st.Run, st.Plan, st.Tasks["T1"].Status, st.Tasks["T1"].Attempts, st.Seq)
	// Output: run run-1 of add-division: task T1 running, attempt 1, 3 transitions
}

func ExampleOutcome_ExitCode() {
	for _, o := range policy.Outcomes {
		fmt.Printf("%-21s exit %d\n", o, o.ExitCode())
	}
	// Output:
	// completed             exit 0
	// escalated             exit 2
	// halted                exit 2
	// blocked               exit 2
	// budget-exceeded       exit 4
	// stopped-by-guardrail  exit 3
	// awaiting-approval     exit 2
	// cancelled             exit 130
	// error                 exit 1
}
