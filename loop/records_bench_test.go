package loop

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/harnish/harnish/loop/policy"
)

// BenchmarkCompletionSummary: the summary's cost per task at 4,000 and at
// 32,000 tasks, measured in turns within one loop; "ratio" is the second
// over the first, about 1 when the summary is linear in the plan's size.
// With the collector on it is nearer 2: the larger run's tens of MB of live
// handoffs make each collection dearer (GOGC=off measures about 1.2).
func BenchmarkCompletionSummary(b *testing.B) {
	sizes := []int{4000, 32000}
	hs := map[int][]*Handoff{}
	for _, n := range sizes {
		for i := range n {
			hs[n] = append(hs[n], &Handoff{Task: fmt.Sprint("T", i), Status: policy.StatusDone, Attempts: 1, Summary: "did it",
				FilesChanged: []string{fmt.Sprintf("pkg%d/a.go", i), fmt.Sprintf("pkg%d/a_test.go", i), "go.mod"}, FilesFrom: "commit",
				Decisions: []string{"kept it small"}, Findings: []string{"[low] a.go:1 naming"}})
		}
	}
	st := &policy.RunState{Run: "r", Plan: "p", Cycles: 8000}
	title := func(id string) string { return id }
	perTask := map[int][]float64{}
	for b.Loop() {
		for _, n := range sizes {
			start := time.Now()
			completionSummary(st, hs[n], title, nil)
			perTask[n] = append(perTask[n], float64(time.Since(start).Nanoseconds())/float64(n))
		}
	}
	median := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
	small, large := median(perTask[4000]), median(perTask[32000])
	b.ReportMetric(small, "ns/task@4k")
	b.ReportMetric(large, "ns/task@32k")
	b.ReportMetric(large/small, "ratio")
}
