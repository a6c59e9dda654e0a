package importer_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

// TestLargeSources: large sources, shaped to hit every
// per-task and per-phase step many times (one ID for every task, long
// dependency chains, a phase per task), import in linear time.
func TestLargeSources(t *testing.T) {
	// A quarter of the limit: enough for a quadratic step to take minutes.
	const size = task.MaxPlanSize / 4
	fill := func(line func(i int) string) []byte {
		var b strings.Builder
		for i := 0; b.Len() < size-200; i++ {
			b.WriteString(line(i))
		}
		return []byte(b.String())
	}
	tests := []struct {
		name   string
		format importer.Format
		data   []byte
	}{
		{"plansmd same ID", importer.FormatPlansMD, fill(func(int) string { return "- [ ] 1.1: a `cc:TODO`\n" })},
		{"plansmd phase per task, chained back", importer.FormatPlansMD, fill(func(i int) string {
			return fmt.Sprintf("## Phase %d\n- [ ] T%d: a `cc:TODO` depends:T%d\n", i, i, i+1)
		})},
		{"plansmd wide dependency row", importer.FormatPlansMD, []byte("| Task | Depends | Status |\n|---|---|---|\n| 1 | " +
			strings.Repeat("2, ", size/4) + " | cc:TODO |\n| 2 | | cc:TODO |\n")},
		{"progress same ID", importer.FormatProgress, []byte(`{"done":{"phases":[]},"todo":{"phases":[{"phase":1,"tasks":[` +
			strings.TrimSuffix(strings.Repeat(`{"id":"x","title":"t"},`, size/25), ",") + `]}]}}`)},
		{"progress phases", importer.FormatProgress, []byte(`{"todo":{"phases":[` +
			strings.TrimSuffix(string(fill(func(i int) string {
				return fmt.Sprintf(`{"phase":%d,"tasks":[{"id":"%d","title":"t","depends_on":["%d"]}]},`, i, i, i+1)
			})[:size-300]), ",") + `]}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res, err := importer.Parse(tt.format, "big", tt.data)
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %s", d)
			}
			if err != nil {
				if len(err.Error()) > 2048 {
					t.Errorf("error of %d bytes", len(err.Error()))
				}
				return
			}
			if n := len(res.Warnings); n > 1001 {
				t.Errorf("%d warnings, want at most 1001", n)
			}
		})
	}
}
