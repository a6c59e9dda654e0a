package task_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnish/harnish/task"
)

// largePlan writes a plan of n tasks in one phase, each depending on the one
// before, with files, tags and two checks.
func largePlan(n int) []byte {
	var b strings.Builder
	b.WriteString("version: 1\nname: large\nphases:\n  - id: p1\n    title: Everything\n    tasks:\n")
	for i := range n {
		fmt.Fprintf(&b, "      - id: T%d\n        title: Task %d\n        files: [pkg/f%d.go, pkg/f%d_test.go]\n        tags: [bulk]\n", i, i, i, i)
		if i > 0 {
			fmt.Fprintf(&b, "        depends_on: [T%d]\n", i-1)
		}
		fmt.Fprintf(&b, "        acceptance:\n          - run: [go, test, ./pkg/...]\n          - sh: \"test -f pkg/f%d.go\"\n", i)
	}
	return []byte(b.String())
}

func TestLargePlan(t *testing.T) {
	p, err := task.Parse("large.yaml", largePlan(10_000))
	if err != nil {
		t.Fatalf("a 10,000-task plan does not load: %v", err)
	}
	if got := len(p.Tasks()); got != 10_000 {
		t.Fatalf("loaded %d tasks, want 10000", got)
	}
}

// BenchmarkParse loads and validates plans of 100 and 10,000 tasks.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		data := largePlan(n)
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := task.Parse("large.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
