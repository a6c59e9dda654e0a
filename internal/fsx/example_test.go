package fsx_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnish/harnish/internal/fsx"
)

// A process sweeps what killed processes left under its prefix, then makes
// its own directory, named for it.
func ExampleMkdirTempOwned() {
	tmp, err := os.MkdirTemp("", "fsx-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)

	_ = fsx.SweepTemp(tmp, "myapp-work-")
	work, err := fsx.MkdirTempOwned(tmp, "myapp-work-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(work)
	fmt.Println(strings.HasPrefix(filepath.Base(work), fmt.Sprintf("myapp-work-%d-", os.Getpid())))
	// Output: true
}
