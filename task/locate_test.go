package task_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnish/harnish/task"
)

func TestLocate(t *testing.T) {
	const plan = "version: 1\nname: %s\nphases:\n  - id: p\n    tasks:\n      - {id: T1, title: t, acceptance: [{run: [\"true\"]}]}\n"
	for _, tc := range []struct {
		name     string
		files    []string // written, each a plan named after its file
		file     string   // given
		wantFile string   // loaded; "" for none
	}{
		{name: "none", wantFile: ""},
		{name: "the first default file", files: []string{"plan.yaml", "harnish.yml"}, wantFile: "harnish.yml"},
		{name: "a file named wins", files: []string{"harnish.yaml", "other.yaml"}, file: "other.yaml", wantFile: "other.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(fmt.Sprintf(plan, f)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			file := tc.file
			if file != "" {
				file = filepath.Join(dir, file)
			}
			p, got, err := task.Locate(file, dir)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantFile == "" {
				if p != nil || got != "" {
					t.Errorf("Locate found %q", got)
				}
				return
			}
			if got != filepath.Join(dir, tc.wantFile) || p == nil || p.Name != tc.wantFile {
				t.Errorf("Locate = %q (plan %v), want %s", got, p, tc.wantFile)
			}
		})
	}
}
