package proc_test

import (
	"fmt"

	"github.com/harnish/harnish/internal/proc"
)

func ExampleMaskArgv() {
	argv := []string{"git", "clone", "https://bob:hunter2@example.com/r.git", "--token", "ghp_x", "API_KEY=k"}
	fmt.Println(proc.MaskArgv(argv))
	// Output: [git clone https://bob:***@example.com/r.git --token *** API_KEY=***]
}
