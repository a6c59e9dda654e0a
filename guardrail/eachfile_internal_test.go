package guardrail

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// A panic while judging a file on the parallel path comes back in the
// caller's goroutine, where Evaluate makes it a hard decision, rather than
// ending the process.
func TestEachFilePanicReachesCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	files := make([]FileDiff, 8)
	for i := range files {
		files[i].Hunks = []Hunk{{Lines: make([]Line, parallelLines)}}
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "file 5") {
			t.Fatalf("recovered %v, want the worker's panic", r)
		}
	}()
	_ = eachFile(context.Background(), files, func(i int) {
		if i == 5 {
			panic("file 5")
		}
	})
	t.Fatal("eachFile returned")
}
