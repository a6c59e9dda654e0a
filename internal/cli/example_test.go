package cli_test

import (
	"flag"
	"fmt"
	"io"

	"github.com/harnish/harnish/internal/cli"
)

// Flags may come after the positional arguments, as people type them; "--"
// ends them.
func ExampleParseFlags() {
	fs := flag.NewFlagSet("guard check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	plan := fs.String("plan", "", "plan file")
	words, err := cli.ParseFlags(fs, []string{"check", "--plan", "p.yaml", "--", "rm", "-rf", "build"})
	fmt.Println(*plan, words, err)
	// Output: p.yaml [check rm -rf build] <nil>
}
