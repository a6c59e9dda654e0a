//go:build unix

package importer_test

import (
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

// TestLargeSources: sources shaped to hit every per-task and per-phase step
// many times (one ID for every task, long dependency chains, a phase per
// task) import in linear time: four times the input takes well under
// sixteen times as long (twelve is the bar). Each size is timed at its best of three, so a
// loaded machine does not decide; and the time is the CPU time this process
// spent, not the wall clock, which other processes share.
func TestLargeSources(t *testing.T) {
	fill := func(size int, line func(i int) string) []byte {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			b.WriteString(line(i))
		}
		return []byte(b.String())
	}
	tests := []struct {
		name   string
		format importer.Format
		data   func(size int) []byte
	}{
		{"plansmd same ID", importer.FormatPlansMD, func(size int) []byte {
			return fill(size, func(int) string { return "- [ ] 1.1: a `cc:TODO`\n" })
		}},
		{"plansmd phase per task, chained back", importer.FormatPlansMD, func(size int) []byte {
			return fill(size, func(i int) string { return fmt.Sprintf("## Phase %d\n- [ ] T%d: a `cc:TODO` depends:T%d\n", i, i, i+1) })
		}},
		{"plansmd wide dependency row", importer.FormatPlansMD, func(size int) []byte {
			return []byte("| Task | Depends | Status |\n|---|---|---|\n| 1 | " + strings.Repeat("2, ", size/3) + " | cc:TODO |\n| 2 | | cc:TODO |\n")
		}},
		{"progress same ID", importer.FormatProgress, func(size int) []byte {
			return []byte(`{"done":{"phases":[]},"todo":{"phases":[{"phase":1,"tasks":[` +
				strings.TrimSuffix(strings.Repeat(`{"id":"x","title":"t"},`, size/23), ",") + `]}]}}`)
		}},
		{"progress phase per task, chained back", importer.FormatProgress, func(size int) []byte {
			return []byte(`{"todo":{"phases":[` + strings.TrimSuffix(string(fill(size, func(i int) string {
				return fmt.Sprintf(`{"phase":%d,"tasks":[{"id":"%d","title":"t","depends_on":["%d"]}]},`, i, i, i+1)
			})), ",") + `]}}`)
		}},
	}
	timeOf := func(format importer.Format, data []byte) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			runtime.GC() // a collection owed by the last run is not this one's
			start := cpuTime()
			res, err := importer.Parse(format, "big", data)
			best = min(best, cpuTime()-start)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(res.Warnings); n > 1001 {
				t.Fatalf("%d warnings, want at most 1001", n)
			}
		}
		return best
	}
	const small = task.MaxPlanSize / 128
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t1 := timeOf(tt.format, tt.data(small))
			t4 := timeOf(tt.format, tt.data(4*small))
			if ratio := float64(t4) / float64(t1); ratio > 12 {
				t.Errorf("4x the input took %.1fx as long (%s, then %s): not linear", ratio, t1, t4)
			}
		})
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
