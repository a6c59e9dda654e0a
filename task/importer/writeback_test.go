package importer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

// copyTree copies testdata/src into a temporary directory.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func statuses(p *task.Plan) map[string]task.Status {
	out := map[string]task.Status{}
	for _, pt := range p.Tasks() {
		out[pt.Task.ID] = pt.Task.Status
	}
	return out
}

var at = time.Date(2026, 5, 1, 10, 0, 0, 0, time.FixedZone("KST", 9*3600))

// TestWriteBack: each update reaches the source in its own terms, and a
// new import of the source reads the statuses back.
func TestWriteBack(t *testing.T) {
	tests := []struct {
		name    string
		src     string // a directory under testdata
		updates []importer.Update
		want    map[string]task.Status // the changed statuses
		file    string                 // a file whose content is checked
		contain []string
	}{
		{"plansmd", "plansmd", []importer.Update{
			{Task: "2.1", Status: task.StatusDone, Commit: "0123456789abcdef", Time: at},
			{Task: "2.2", Status: task.StatusDoing, Time: at},
			{Task: "T301", Status: task.StatusDone, Time: at},
			{Task: "T302", Status: task.StatusDoing, Stopped: "licence review pending", Time: at},
		}, map[string]task.Status{"2.1": task.StatusDone, "2.2": task.StatusDoing, "T301": task.StatusDone, "T302": task.StatusTodo},
			"Plans.md", []string{
				"| 1.2, 0.9 | cc:完了 [0123456] |\n",
				"| 2.1 | cc:WIP |\n",
				"- [x] T301: Localise column headers `cc:完了` depends:1.1\n",
				"- `cc:blocked` T302: Excel (xlsx) export",
			}},
		{"steps", "steptree", []importer.Update{
			{Task: "1-api-step2", Status: task.StatusDoing, Time: at},
			{Task: "1-api-step2", Status: task.StatusDone, Summary: "token bucket per IP", Time: at},
			{Task: "1-api-step1", Status: task.StatusDone, Summary: "share tokens", Commit: "abc", Time: at},
			{Task: "2-ui-step0", Stopped: "needs a design", Blocked: true, Time: at},
		}, map[string]task.Status{"1-api-step1": task.StatusDone, "1-api-step2": task.StatusDone},
			"phases/index.json", []string{
				`"dir": "1-api",
      "status": "completed",
      "failed_at": "2026-04-02T15:40:00+0900",
      "completed_at": "2026-05-01T10:00:00+0900"`,
				`"dir": "2-ui",
      "status": "blocked",
      "blocked_at": "2026-05-01T10:00:00+0900"`,
			}},
		{"progress", "progress", []importer.Update{
			{Task: "2-3", Status: task.StatusDoing, Time: at}, // 2-2 holds doing: no change
			{Task: "2-2", Status: task.StatusDone, Summary: "invalidation in the update hook", Commit: "beef", Time: at},
			{Task: "2-3", Status: task.StatusDoing, Time: at},
			{Task: "3-1", Status: task.StatusDone, Summary: "counters", Time: at},
			{Task: "2-3", Stopped: "redis down", Time: at},
		}, map[string]task.Status{"2-2": task.StatusDone, "2-3": task.StatusDoing, "3-1": task.StatusDone},
			"harnish-current-work.json", []string{
				`"result": "invalidation in the update hook",
            "commit": "beef",
            "completed_at": "2026-05-01T10:00:00+09:00"`,
				`"blocker": "redis down"`,
				`"last_session": "2026-05-01T10:00:00+09:00"`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyTree(t, filepath.Join("testdata", tt.src))
			res, err := importer.Import(dir, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := statuses(res.Plan)
			for id, s := range tt.want {
				want[id] = s
			}
			w, err := res.Writer()
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range tt.updates {
				if err := w.Write(u); err != nil {
					t.Fatalf("Write(%+v): %v", u, err)
				}
			}
			again, err := importer.Import(dir, importer.Options{})
			if err != nil {
				t.Fatalf("the written source does not import: %v", err)
			}
			if diff := cmp.Diff(want, statuses(again.Plan)); diff != "" {
				t.Errorf("statuses after the write (-want +got):\n%s", diff)
			}
			data, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.contain {
				if !strings.Contains(string(data), s) {
					t.Errorf("%s lacks %q:\n%s", tt.file, s, data)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*", ".*tmp-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// TestWriteBackRefusesAChangedLine: a Plans.md line edited since the import
// is not overwritten.
func TestWriteBackRefusesAChangedLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "Plans.md")
	if err := os.WriteFile(file, []byte("- [ ] 1: a `cc:TODO`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := importer.Import(file, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("- [ ] 1: a, renamed `cc:TODO`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _ := res.Writer()
	err = w.Write(importer.Update{Task: "1", Status: task.StatusDone})
	if err == nil || !strings.Contains(err.Error(), "Plans.md:1 changed since the import; not written") {
		t.Errorf("got %v", err)
	}
	if err := w.Write(importer.Update{Task: "nope", Status: task.StatusDone}); err == nil {
		t.Error("an unknown task was written")
	}
}
