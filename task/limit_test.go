package task_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
)

// padded returns a valid plan of exactly size bytes, padded with a comment.
func padded(t testing.TB, size int) []byte {
	plan := head + oneTask + "#"
	if size < len(plan)+1 {
		t.Fatalf("size %d is too small for a plan", size)
	}
	return []byte(plan + strings.Repeat("x", size-len(plan)-1) + "\n")
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestLoadSizeLimit(t *testing.T) {
	dir := t.TempDir()
	tooLarge := func(file string, size int) []string {
		return []string{file + ": the file is " + strconv.Itoa(size) + " bytes, over the limit of 4194304 bytes (4 MiB) for a plan"}
	}
	tests := []struct {
		name   string
		size   int
		sparse bool // only the plan, then a hole up to size
		want   []string
	}{
		{name: "at the limit", size: task.MaxPlanSize},
		{name: "one byte over", size: task.MaxPlanSize + 1, want: tooLarge(filepath.Join(dir, "one byte over.yaml"), task.MaxPlanSize+1)},
		{name: "100 MiB", size: 100 << 20, sparse: true, want: tooLarge(filepath.Join(dir, "100 MiB.yaml"), 100<<20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, tt.name+".yaml")
			data := []byte(head + oneTask)
			if !tt.sparse {
				data = padded(t, tt.size)
			}
			if err := os.WriteFile(file, data, 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(file, int64(tt.size)); err != nil {
				t.Fatal(err)
			}
			var err error
			mem := allocated(func() { _, err = task.Load(file) })
			if diff := cmp.Diff(tt.want, messages(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tt.want != nil && !errors.Is(err, task.ErrTooLarge) {
				t.Errorf("errors.Is(err, ErrTooLarge) = false for %v", err)
			}
			if tt.want != nil && mem > 1<<20 {
				t.Errorf("Load allocated %d bytes to refuse the file", mem)
			}
		})
	}
}

func TestParseSizeLimit(t *testing.T) {
	over := padded(t, task.MaxPlanSize+1)
	for _, name := range []string{"plan.yaml", "plan.json"} {
		_, err := task.Parse(name, over)
		want := []string{name + ": the file is 4194305 bytes, over the limit of 4194304 bytes (4 MiB) for a plan"}
		if diff := cmp.Diff(want, messages(t, err)); diff != "" {
			t.Errorf("Parse(%s) problems (-want +got):\n%s", name, diff)
		}
		if !errors.Is(err, task.ErrTooLarge) {
			t.Errorf("Parse(%s): errors.Is(err, ErrTooLarge) = false", name)
		}
	}
}
