package task_test

import (
	"fmt"
	"os"
	"path/filepath"
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

// BenchmarkLoadAtLimit loads plans of exactly MaxPlanSize bytes: a valid one
// of many tasks, and invalid ones whose problems quote long values. Those
// must cost no more than the valid one (compare ns/op and B/op).
func BenchmarkLoadAtLimit(b *testing.B) {
	fill := func(prefix, suffix string) string {
		return prefix + strings.Repeat("x", task.MaxPlanSize-len(prefix)-len(suffix)) + suffix
	}
	valid := func() string {
		n := 10_000
		for len(largePlan(n+1000)) < task.MaxPlanSize-100 {
			n += 1000
		}
		return fill(string(largePlan(n))+"#", "\n")
	}
	const task1 = "phases: [{id: p1, title: First, tasks: [{id: T1, title: One, acceptance: [{run: [make]}], "
	var deps strings.Builder // 400 dependencies on missing tasks of 10 KiB names
	for i := range 400 {
		fmt.Fprintf(&deps, "%s%d, ", strings.Repeat("x", 10_000), i)
	}
	plans := []struct{ name, src string }{
		{"valid.yaml", valid()},
		{"long-kind.yaml", fill(head+"executor: {kind: ", "}\n"+oneTask)},
		{"long-key.yaml", fill(head+"? ", "\n: 1\n"+oneTask)},
		{"long-dependencies.yaml", fill(head+task1+"depends_on: ["+deps.String(), "]}]}]\n")},
		{"long-kind.json", fill(`{"version": 1, "name": "p", "executor": {"kind": "`, `"}}`)},
		{"long-key.json", fill(`{"version": 1, "name": "p", "`, `": 1}`)},
	}
	dir := b.TempDir()
	for _, p := range plans {
		file := filepath.Join(dir, p.name)
		if err := os.WriteFile(file, []byte(p.src), 0o666); err != nil {
			b.Fatal(err)
		}
		if len(p.src) != task.MaxPlanSize {
			b.Fatalf("%s: %d bytes, want %d", p.name, len(p.src), task.MaxPlanSize)
		}
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(p.src)))
			b.ReportAllocs()
			var errBytes int
			for b.Loop() {
				_, err := task.Load(file)
				if (err == nil) != (p.name == "valid.yaml") {
					b.Fatalf("Load: %v", err)
				}
				if err != nil {
					errBytes = len(err.Error())
				}
			}
			b.ReportMetric(float64(errBytes), "err-bytes")
		})
	}
}
