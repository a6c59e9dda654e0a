//go:build unix

package verify_test

import (
	"context"
	"fmt"
	"os"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// The verifier a loop uses runs a task's checks in its working tree.
func ExampleAcceptance() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	t := &task.Task{ID: "T1", Title: "Add a README", Acceptance: []task.Check{
		{Sh: "test -f README.md"},
	}}
	rep, err := verify.Acceptance{}.Verify(context.Background(), &verify.Request{Task: t, WorkDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Passed, rep.Fingerprint.Class, rep.Checks[0].ExitCode)
	// Output: false test 1
}
