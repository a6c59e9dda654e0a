package linediff_test

import (
	"fmt"

	"github.com/harnish/harnish/internal/linediff"
)

func ExampleUnified() {
	fmt.Print(linediff.Unified("a\nb\nc\n", "a\nB\nc", 3))
	// Output:
	// @@ -1,3 +1,3 @@
	//  a
	// -b
	// -c
	// +B
	// +c
	// \ No newline at end of file
}
