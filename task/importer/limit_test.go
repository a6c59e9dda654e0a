package importer_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestFileSizeLimit: every file a source is read from may be at most
// task.MaxPlanSize bytes, and a larger one is refused without reading it.
func TestFileSizeLimit(t *testing.T) {
	const over = task.MaxPlanSize + 1
	big := make([]byte, over)
	tooLarge := func(file, size string) string {
		return "importer: " + file + ": the file is " + size + " bytes, over the limit of 4194304 bytes (4 MiB)"
	}
	okIndex := &fstest.MapFile{Data: []byte(`{"phases":[{"dir":"a"}]}`)}
	okSteps := &fstest.MapFile{Data: []byte(`{"steps":[{"step":0,"name":"a","status":"pending"}]}`)}
	tests := []struct {
		name  string
		parse func() (*task.Plan, error)
		want  string
		dir   string // instead of parse, Dir of a directory holding a 100 MiB file of this name
	}{
		{
			name:  "ProgressFile",
			parse: func() (*task.Plan, error) { return importer.ProgressFile("w.json", big) },
			want:  tooLarge("w.json", "4194305"),
		},
		{
			name:  "PlansMD",
			parse: func() (*task.Plan, error) { return importer.PlansMD("Plans.md", big) },
			want:  tooLarge("Plans.md", "4194305"),
		},
		{
			name:  "StepTree index",
			parse: func() (*task.Plan, error) { return importer.StepTree(fstest.MapFS{"phases/index.json": {Data: big}}) },
			want:  tooLarge("phases/index.json", "4194305"),
		},
		{
			name: "StepTree steps",
			parse: func() (*task.Plan, error) {
				return importer.StepTree(fstest.MapFS{"phases/index.json": okIndex, "phases/a/index.json": {Data: big}})
			},
			want: phaseSkipped(tooLarge("phases/a/index.json", "4194305")),
		},
		{
			name: "StepTree step file",
			parse: func() (*task.Plan, error) {
				return importer.StepTree(fstest.MapFS{"phases/index.json": okIndex, "phases/a/index.json": okSteps, "phases/a/step0.md": {Data: big}})
			},
			want: phaseSkipped(tooLarge("phases/a/step0.md", "4194305")),
		},
		{name: "Dir Plans.md", dir: "Plans.md"},
		{name: "Dir progress", dir: ".harnish/harnish-current-work.json"},
		{name: "Dir step tree", dir: "phases/index.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parse, want := tt.parse, tt.want
			if tt.dir != "" {
				dir := t.TempDir()
				path := filepath.Join(dir, filepath.FromSlash(tt.dir))
				if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, nil, 0o666); err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(path, 100<<20); err != nil {
					t.Fatal(err)
				}
				parse = func() (*task.Plan, error) { return importer.Dir(dir) }
				want = tooLarge(path, "104857600")
			}
			var p *task.Plan
			var err error
			mem := allocated(func() { p, err = parse() })
			if err == nil {
				t.Fatalf("got plan %+v, want an error", p)
			}
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if !errors.Is(err, importer.ErrFormat) {
				t.Errorf("error %v is not ErrFormat", err)
			}
			if tt.dir != "" && mem > 1<<20 {
				t.Errorf("allocated %d bytes to refuse a file", mem)
			}
		})
	}
}

// phaseSkipped is the error of a tree whose one phase, a, could not be
// read: it is left out, and nothing is left.
func phaseSkipped(err string) string {
	return `importer: phases/index.json: no tasks to import; first problem: phases/index.json:1:19: phases[0].dir: phase "a" not imported: ` +
		strings.TrimPrefix(err, "importer: ")
}
