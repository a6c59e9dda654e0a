package flagx_test

import (
	"flag"
	"fmt"
	"io"

	"github.com/harnish/harnish/internal/flagx"
)

// Flags may come after the positional arguments, as people type them; "--"
// ends them.
func ExampleParse() {
	fs := flag.NewFlagSet("guard check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	plan := fs.String("plan", "", "plan file")
	words, err := flagx.Parse(fs, []string{"check", "--plan", "p.yaml", "--", "rm", "-rf", "build"})
	fmt.Println(*plan, words, err)
	// Output: p.yaml [check rm -rf build] <nil>
}
